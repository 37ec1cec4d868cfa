package hosts

// OAuthRule is what one host needs of a server's OAuth discovery, as a
// public report describes it: the auth audit's A25 rows. It lives here,
// beside the hosts' delivery profiles, so that the host registry is one
// file; Profiles names the profiles (ids) it applies to.
type OAuthRule struct {
	Host     string   `json:"host"` // the name the audit prints
	Profiles []string `json:"profiles"`
	Versions string   `json:"versions"`
	// Rule is what the host needs of the server: "needs-header" (a
	// resource_metadata in the 401's challenge), "needs-well-known" (a
	// well-known URI that serves the metadata), "needs-exact-resource"
	// (the metadata's resource identical to the URL).
	Rule     string `json:"rule"`
	Says     string `json:"says"`
	Source   string `json:"source"`
	Reported string `json:"reported"`
}

// OAuthRules are the rules the audit knows.
var OAuthRules = []string{"needs-header", "needs-well-known", "needs-exact-resource"}

// KnownOAuth returns the embedded OAuth rows, in file order, a copy the
// caller may change.
func KnownOAuth() []OAuthRule { return append([]OAuthRule(nil), builtin().OAuth...) }
