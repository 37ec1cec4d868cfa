package authz

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// asFound is one authorization server's metadata, found by the discovery
// order the spec gives.
type asFound struct {
	issuer string
	tried  []string // "URL → status", in order
	url    string   // where it was found
	doc    map[string]any
}

// asCandidates are the well-known URLs for an issuer in the order clients
// MUST try them ("Authorization Server Metadata Discovery").
func asCandidates(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}
}

// maxServers bounds how many of authorization_servers are audited.
const maxServers = 3

// authServers is A8–A11 and A13 for each authorization server the
// metadata lists (up to maxServers).
func (a *auditor) authServers() {
	var issuers []string
	if a.prm != nil {
		issuers = stringList(a.prm.doc["authorization_servers"])
	}
	if len(issuers) == 0 && a.prm == nil && a.first != nil && a.first.status == http.StatusUnauthorized {
		// No protected-resource metadata: found the 2025-03-26 way, the
		// MCP server's origin as the authorization server (legacy.go).
		a.legacy = true
		a.authServer(originOf(a.u), false)
		return
	}
	if len(issuers) == 0 {
		for _, id := range []string{"A8", "A9", "A10", "A11", "A13"} {
			p := byID(id)
			a.add(Row{ID: id, Check: p.check, Clause: p.clause, Outcome: NotRun, Why: "no authorization server to look up (A4)"})
		}
		return
	}
	if len(issuers) > maxServers {
		issuers = issuers[:maxServers]
	}
	for _, iss := range issuers {
		a.authServer(iss, len(issuers) > 1)
	}
}

func (a *auditor) authServer(issuer string, several bool) {
	f := asFound{issuer: issuer}
	for _, c := range asCandidates(issuer) {
		ans := a.fetchDoc("A8", c, func(ans *answer) (bool, string) {
			var doc map[string]any
			switch {
			case ans.status != http.StatusOK:
				return false, "not a 200 answer"
			case json.Unmarshal(ans.body, &doc) != nil || doc == nil:
				return false, "not a JSON object"
			case doc["issuer"] != issuer:
				return false, "failed validation: its issuer is not " + issuer
			}
			return true, ""
		})
		r := fmt.Sprintf("%d", ans.status)
		if ans.err != nil {
			r = noAnswer(ans.err)
		}
		f.tried = append(f.tried, c+" → "+r)
		if ans.status == http.StatusOK && json.Unmarshal(ans.body, &f.doc) == nil && f.doc != nil {
			f.url = c
			break
		}
		f.doc = nil
	}
	id := func(s string) string {
		if several {
			return s + " " + issuer
		}
		return s
	}
	row := Row{ID: id("A8"), Check: "authorization-server metadata by the spec's discovery order", Clause: clauseASDiscovery,
		Sent: "GET, in order", Got: strings.Join(f.tried, "; ")}
	if f.doc == nil && a.legacy {
		a.legacyDefaults(row, id)
		return
	}
	if f.doc == nil {
		row.Outcome, row.Why = Fail, "none of the well-known URIs for issuer "+issuer+" serves a JSON document: an authorization server MUST provide RFC 8414 metadata or OIDC Discovery"
		a.add(row)
		for _, s := range []string{"A9", "A10", "A11", "A13"} {
			p := byID(s)
			a.add(Row{ID: id(s), Check: p.check, Clause: p.clause, Outcome: NotRun, Why: "no authorization-server metadata (A8)"})
		}
		return
	}
	row.Outcome, row.Why = Pass, "found at "+f.url
	if a.legacy {
		row.Clause, row.Why = clauseLegacy, "found at "+f.url+": "+legacyNote
	}
	a.add(row)
	sent := "GET " + f.url

	got, _ := f.doc["issuer"].(string)
	row = Row{ID: id("A9"), Check: "issuer is the one the URL was built from", Clause: clauseIssuer, Sent: sent, Got: "issuer: " + got}
	if got == issuer {
		row.Outcome, row.Why = Pass, "identical"
		// The token endpoint is the first server's, or the one the user
		// named with --issuer.
		if te, _ := f.doc["token_endpoint"].(string); te != "" && (a.tokenEndpoint == "" || (a.o.Issuer != "" && sameIssuer(issuer, a.o.Issuer) && !a.pinned)) {
			a.tokenEndpoint, a.tokenIssuer = te, issuer
			a.pinned = a.o.Issuer != "" && sameIssuer(issuer, a.o.Issuer)
		}
		if re, _ := f.doc["registration_endpoint"].(string); re != "" && a.registration == "" {
			a.registration = re
		}
	} else {
		row.Outcome, row.Why = Fail, "want "+issuer+": a client MUST NOT use metadata whose issuer differs"
	}
	a.add(row)

	a.rowPKCE(id("A10"), f, sent)
	a.rowRegistration(id("A11"), f, sent)
	a.rowHTTPS(id("A13"), f, sent)
}

// rowHTTPS is A13: every endpoint the metadata names is https. Plain
// http on this machine is a local setup: observed, not failed.
func (a *auditor) rowHTTPS(id string, f asFound, sent string) {
	var plain, local []string
	for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint"} {
		s, _ := f.doc[k].(string)
		u, err := url.Parse(s)
		if s == "" || err != nil || u.Scheme == "https" {
			continue
		}
		if loopback(u.Hostname()) {
			local = append(local, k)
		} else {
			plain = append(plain, k)
		}
	}
	row := Row{ID: id, Check: "authorization-server endpoints are https", Clause: clauseHTTPS, Sent: sent}
	switch {
	case len(plain) > 0:
		row.Got, row.Outcome, row.Why = "not https: "+strings.Join(plain, ", "), Fail, "all authorization server endpoints MUST be served over HTTPS"
	case len(local) > 0:
		row.Got, row.Outcome, row.Why = "http on loopback: "+strings.Join(local, ", "), Observed, "a local setup; deployed, these MUST be https"
	default:
		row.Outcome, row.Why = Pass, "all https"
	}
	a.add(row)
}

// rowPKCE is A10.
func (a *auditor) rowPKCE(rowID string, f asFound, sent string) {
	methods, present := f.doc["code_challenge_methods_supported"]
	ms := stringList(methods)
	row := Row{ID: rowID, Check: "code_challenge_methods_supported has S256", Clause: clausePKCE, Sent: sent,
		Got: "code_challenge_methods_supported: " + strings.Join(ms, ", ")}
	switch {
	case !present:
		row.Got, row.Outcome, row.Why = "no code_challenge_methods_supported", Fail, "absent: the server declares no PKCE (RFC 8414 §2), which OAuth 2.1 requires of it, and every conforming MCP client MUST refuse to proceed"
	case slices.Contains(ms, "S256"):
		row.Outcome, row.Why = Pass, "S256 offered"
	default:
		row.Outcome, row.Why = Fail, "no S256: clients MUST use S256 when technically capable, so they cannot proceed"
	}
	a.add(row)

}

// rowRegistration is A11.
func (a *auditor) rowRegistration(rowID string, f asFound, sent string) {
	cimd, _ := f.doc["client_id_metadata_document_supported"].(bool)
	reg, _ := f.doc["registration_endpoint"].(string)
	row := Row{ID: rowID, Check: "registration options advertised", Clause: clauseRegistration, Sent: sent,
		Got: fmt.Sprintf("client_id_metadata_document_supported: %v; registration_endpoint: %q", cimd, reg)}
	switch {
	case cimd && reg != "":
		row.Outcome, row.Why = Pass, "Client ID Metadata Documents and dynamic registration"
	case cimd:
		row.Outcome, row.Why = Observed, "Client ID Metadata Documents only: a client of 2025-06-18 or earlier, which knows only dynamic registration, needs a pre-registered client"
	case reg != "":
		row.Outcome, row.Why = Warn, "dynamic registration only: authorization servers SHOULD support Client ID Metadata Documents (DCR is MAY, deprecated in 2026-07-28)"
	default:
		row.Outcome, row.Why = Warn, "neither: pre-registration only; authorization servers SHOULD support Client ID Metadata Documents"
	}
	a.add(row)
}

// sameIssuer compares issuers as identifiers: scheme and host in any
// case, a trailing slash or not.
func sameIssuer(x, y string) bool {
	ux, err1 := url.Parse(x)
	uy, err2 := url.Parse(y)
	if err1 != nil || err2 != nil {
		return x == y
	}
	return strings.EqualFold(ux.Scheme, uy.Scheme) && strings.EqualFold(ux.Host, uy.Host) &&
		strings.TrimSuffix(ux.EscapedPath(), "/") == strings.TrimSuffix(uy.EscapedPath(), "/")
}
