package authz

// clauseLegacy is how a 2025-03-26 client reaches the authorization
// server of a server without protected-resource metadata: the
// authorization base URL is the MCP server's URL without its path;
// clients MUST try RFC 8414 metadata there and, when there is none, MUST
// use the default endpoints /authorize, /token and /register. Later
// revisions dropped it (A3 judges the metadata they need), so what it
// finds is observed or judged by the rows that read it, never a fail of
// its own.
var clauseLegacy = clause("2025-03-26", "Server Metadata Discovery; Fallbacks for Servers without Metadata Discovery",
	"https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#2-3-server-metadata-discovery", Info)

const legacyNote = "no protected-resource metadata, so the authorization server is the MCP server's origin, as a 2025-03-26 client finds it"

// legacyDefaults is A8 and what follows when the origin serves no
// authorization-server metadata either: a 2025-03-26 client then uses the
// default endpoints there, which the audit takes for client_credentials
// and registration; the metadata's rows have nothing to read.
func (a *auditor) legacyDefaults(row Row, id func(string) string) {
	origin := originOf(a.u)
	row.Clause, row.Outcome = clauseLegacy, Observed
	row.Why = legacyNote + "; it serves no metadata, so the default endpoints " + origin + "/authorize, /token, /register are used (2025-11-25+ clients find no authorization server here: A3)"
	a.add(row)
	a.tokenEndpoint, a.tokenIssuer = origin+"/token", origin
	if a.registration == "" {
		a.registration = origin + "/register"
	}
	for _, s := range []string{"A9", "A10", "A11", "A13"} {
		p := byID(s)
		a.add(Row{ID: id(s), Check: p.check, Clause: p.clause, Outcome: NotRun, Why: "no authorization-server metadata (A8): the 2025-03-26 default endpoints are used, and say nothing of this"})
	}
}
