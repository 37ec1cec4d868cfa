package authz

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// probeDef is one probe of the checklist as this package knows it.
type probeDef struct {
	id, check string
	clause    Clause
}

// checklist is every probe, in the checklist's order.
var checklist = []probeDef{
	{"A1", "401 without a token", clauseErrorHandling},
	{"A2", "401 challenge names resource_metadata", clausePRMDiscovery},
	{"A3", "protected-resource metadata at the well-known URI (path form, then root)", clausePRMDiscovery},
	{"A4", "authorization_servers lists at least one", clauseASLocation},
	{"A5", "resource is the URL probed", clauseResource},
	{"A6", "the header's document and the well-known one agree", clauseSameDocument},
	{"A7", "the challenge names a scope", clauseScope},
	{"A8", "authorization-server metadata by the spec's discovery order", clauseASDiscovery},
	{"A9", "issuer is the one the URL was built from", clauseIssuer},
	{"A10", "code_challenge_methods_supported has S256", clausePKCE},
	{"A11", "registration options advertised", clauseRegistration},
	{"A12", "dynamic registration refuses a non-loopback http redirect", clauseRedirectHTTPS},
	{"A13", "authorization-server endpoints are https", clauseHTTPS},
	{"A14", "the authorization response carries iss when advertised", clauseIss},
	{"A15", "an invalid token gets 401", clauseTokenHandling},
	{"A16", "an expired token gets 401", clauseTokenHandling},
	{"A17", "a token for another audience gets 401", clauseTokenHandling},
	{"A18", "a token in the query string is not accepted", clauseQueryToken},
	{"A19", "a token without a needed scope gets 403 insufficient_scope", clauseStepUp},
	{"A20", "GET and DELETE without a token get 401", clauseEveryRequest},
	{"A21", "a malformed Authorization header gets 400 or 401, not 500", clauseErrorHandling},
	{"A22", "no token passthrough", clausePassthrough},
	{"A23", "a foreign Origin gets 403", clauseOrigin},
	{"A24", "DPoP when the metadata asks for it", clauseDPoP},
	{"A25", "each host's discovery order works", clauseHosts},
}

func byID(id string) probeDef {
	for _, p := range checklist {
		if p.id == id {
			return p
		}
	}
	panic("authz: no probe " + id)
}

// tokenCheck is A15, A16, A17: a token the server must refuse with 401.
func (a *auditor) tokenCheck(id, auth, token, flag string) {
	p := byID(id)
	row := Row{ID: id, Check: p.check, Clause: p.clause}
	if token == "" {
		row.Outcome, row.Why = NotRun, "pass "+flag+" VAR"
		if id == "A17" && a.foreignErr != nil {
			row.Why = "the authorization server issued no token for another resource (" + a.foreignErr.Error() + "): pass " + flag + " VAR"
		}
		a.add(row)
		return
	}
	row.Sent = "POST initialize, Authorization: Bearer <" + auth + ">"
	ans := a.post(id, auth, "Bearer "+token, nil)
	row.Got = ans.String()
	switch {
	case ans.err != nil:
		row.Outcome, row.Why = NotRun, "no answer"
	case ans.status == http.StatusUnauthorized:
		row.Outcome, row.Why = Pass, "401"
		if id == "A15" && !strings.Contains(strings.Join(ans.header.Values("WWW-Authenticate"), ","), "invalid_token") {
			row.Clause, row.Outcome, row.Why = clauseBearerError, Warn, "401, but the challenge lacks error=\"invalid_token\""
		}
	default:
		row.Outcome, row.Why = Fail, fmt.Sprintf("%d: invalid or expired tokens MUST receive a 401", ans.status)
	}
	a.add(row)
}

// badTokens is A15, A21, A16, A17.
func (a *auditor) badTokens() {
	a.tokenCheck("A15", "invalid", randomToken(), "")
	a.malformed()
	a.tokenCheck("A16", "--expired-token-env", a.o.ExpiredToken, "--expired-token-env")
	label := "--foreign-token-env"
	if a.foreignNote != "" {
		label = a.foreignNote
	}
	if a.o.ForeignToken != "" && a.o.ForeignToken == a.o.Token {
		a.sameToken(label)
		return
	}
	a.tokenCheck("A17", label, a.o.ForeignToken, "--foreign-token-env")
}

// sameToken is A17 when the token for another resource is the valid one,
// byte for byte: the resource server's audience check has nothing to
// refuse (A17 unjudged), and when the audit asked for both tokens it is
// the authorization server that ignored resource (RFC 8707), said so with
// what it sent.
func (a *auditor) sameToken(label string) {
	p := byID("A17")
	row := Row{ID: "A17", Check: p.check, Clause: p.clause, Outcome: NotRun,
		Why: "unjudged, no baseline: the token for another audience (" + label + ") is the valid token byte for byte, so the resource server has no foreign token to refuse"}
	if a.foreignResource == "" {
		row.Why += ": pass --foreign-token-env VAR with a token issued for another resource"
		a.add(row)
		return
	}
	row.Why += "; the authorization server ignored resource (row A17 authorization server)"
	a.add(row)
	a.add(Row{ID: "A17 authorization server", Check: "the token endpoint binds a token to the resource asked (RFC 8707)", Clause: clauseAudienceBinding,
		Sent:    fmt.Sprintf("POST %s grant_type=client_credentials, resource=%s; then resource=%s", a.tokenEndpoint, a.validResource, a.foreignResource),
		Got:     fmt.Sprintf("the same access_token to both (%d bytes, byte for byte)", len(a.o.Token)),
		Outcome: Observed,
		Why: fmt.Sprintf("the authorization server %s ignored resource: asked for a token for %s it sent the token it had sent for %s; its fault, not the resource server's, which cannot tell the two apart (A17 unjudged)",
			a.tokenIssuer, a.foreignResource, a.validResource)})
}

// malformed is A21: an Authorization header that is not a bearer
// credential is the client's error (400) or no credential (401).
func (a *auditor) malformed() {
	p := byID("A21")
	row := Row{ID: "A21", Check: p.check, Clause: p.clause, Sent: `POST initialize, Authorization: "Bearer" (no token); then "Basic bWNwcHJvYmU6eA=="`}
	var got []string
	row.Outcome, row.Why = Pass, "400 or 401 to each"
	for _, h := range []string{"Bearer", "Basic bWNwcHJvYmU6eA=="} {
		ans := a.post("A21", "malformed", h, nil)
		got = append(got, ans.String())
		switch {
		case ans.err != nil:
			row.Outcome, row.Why = NotRun, "no answer"
		case ans.status >= 500:
			row.Outcome, row.Why = Fail, fmt.Sprintf("%d to %q: a malformed authorization request is the client's error, 400 (or 401), never a server error", ans.status, h)
		case ans.ok():
			row.Outcome, row.Why = Fail, fmt.Sprintf("%d to %q: served with no valid credential", ans.status, h)
		case ans.status != http.StatusBadRequest && ans.status != http.StatusUnauthorized && row.Outcome == Pass:
			row.Outcome, row.Why = Warn, fmt.Sprintf("%d to %q: the Error Handling table gives 400 (malformed) or 401", ans.status, h)
		}
	}
	row.Got = strings.Join(got, "; ")
	a.add(row)
}

// openBaseline initializes with the valid token: the session GET and
// DELETE are then sent in, and the proof the token works.
func (a *auditor) openBaseline() {
	row := Row{ID: "base", Check: "the valid token opens a session (baseline)", Clause: clause("baseline", "no judgement without a working baseline", "", Info)}
	if a.o.Token == "" {
		row.Outcome, row.Why = NotRun, "pass --token-env VAR with a valid token for this URL, or --client-id and --client-secret-env"
		if a.ccErr != nil {
			row.Sent, row.Got = a.ccNote, a.ccErr.Error()
			row.Outcome, row.Why = Observed, "the authorization server issued no token by client_credentials: the probes that need one are not judged"
		}
		a.add(row)
		a.queryToken()
		return
	}
	row.Sent = "POST initialize, Authorization: Bearer <--token-env>"
	if a.ccNote != "" {
		row.Sent = "POST initialize, Authorization: Bearer <" + a.ccNote + ">"
	}
	ans := a.post("base", "--token-env", "Bearer "+a.o.Token, nil)
	row.Got = ans.String()
	if ans.ok() {
		a.baseline, a.session = true, ans.header.Get("Mcp-Session-Id")
		row.Outcome, row.Why = Pass, "accepted"
		if a.session != "" {
			row.Why += "; session " + a.session
		}
		a.res.Protocol = protocolOf(ans.body)
		a.send("base", http.MethodPost, a.u.String(), "--token-env", "Bearer "+a.o.Token, a.sessionHeaders(),
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	} else {
		row.Outcome, row.Why = Observed, "the token was refused: the probes that need it are not judged"
	}
	a.add(row)
	a.queryToken()
}

func protocolOf(body []byte) string {
	s := string(body)
	i := strings.Index(s, `"protocolVersion":"`)
	if i < 0 {
		return ""
	}
	s = s[i+len(`"protocolVersion":"`):]
	if j := strings.IndexByte(s, '"'); j > 0 && j < 40 {
		return s[:j]
	}
	return ""
}

func (a *auditor) sessionHeaders() map[string]string {
	h := map[string]string{}
	if a.session != "" {
		h["Mcp-Session-Id"] = a.session
	}
	if a.res.Protocol != "" {
		h["MCP-Protocol-Version"] = a.res.Protocol
	}
	return h
}

// tokenLabel names the valid token where a row says what was sent.
func (a *auditor) tokenLabel() string {
	if a.ccNote != "" {
		return "the client_credentials token"
	}
	return "--token-env"
}

// queryToken is A18: the valid token in the query string, no header.
func (a *auditor) queryToken() {
	p := byID("A18")
	row := Row{ID: "A18", Check: p.check, Clause: p.clause}
	if !a.baseline {
		row.Outcome, row.Why = NotRun, "pass --token-env VAR with a valid token (the baseline)"
		a.add(row)
		return
	}
	q := *a.u
	v := q.Query()
	v.Set("access_token", a.o.Token)
	q.RawQuery = v.Encode()
	row.Sent = "POST initialize to ?access_token=<" + a.tokenLabel() + ">, no Authorization"
	a.scrub = func(ex Exchange) Exchange {
		ex.URL = a.u.String() + "?access_token=<" + a.tokenLabel() + ">"
		ex.Error = strings.ReplaceAll(ex.Error, url.QueryEscape(a.o.Token), "<"+a.tokenLabel()+">")
		return ex
	}
	ans := a.send("A18", http.MethodPost, q.String(), "--token-env in the query", "", nil, initialize)
	a.scrub = nil
	row.Got = ans.String()
	if ans.ok() {
		row.Outcome, row.Why = Observed, "accepted: clients MUST NOT send a token in the query (it ends up in logs); a server that takes one invites them to"
	} else {
		row.Outcome, row.Why = Pass, "not accepted"
	}
	a.add(row)
}

// everyMethod is A20: GET (the stream) and DELETE (the session) without
// a token, in the baseline's session when there is one.
func (a *auditor) everyMethod() {
	p := byID("A20")
	row := Row{ID: "A20", Check: p.check, Clause: p.clause, Outcome: Pass}
	hdr := a.sessionHeaders()
	in := "no session"
	if a.session != "" {
		in = "in the baseline's session"
	}
	row.Sent = "GET (Accept: text/event-stream) and DELETE, " + in + ", no Authorization"
	var got, why []string
	undecided := false
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		h := map[string]string{}
		for k, v := range hdr {
			h[k] = v
		}
		if m == http.MethodGet {
			h["Accept"] = "text/event-stream"
		}
		ans := a.send("A20", m, a.u.String(), "none", "", h, "")
		got = append(got, m+" "+ans.String())
		switch {
		case ans.err != nil:
			undecided = true
		case ans.ok():
			row.Outcome = Fail
			why = append(why, fmt.Sprintf("%s served without a token (%d): the server MUST validate the token before processing any request", m, ans.status))
		case ans.status == http.StatusUnauthorized || ans.status == http.StatusMethodNotAllowed:
		default:
			undecided = true
		}
	}
	row.Got = strings.Join(got, "; ")
	switch {
	case row.Outcome == Fail:
		row.Why = strings.Join(why, "; ")
	case undecided && a.session == "":
		row.Outcome, row.Why = NotRun, "refused for want of a session, before any token check could show: pass --token-env VAR so the probe opens one"
	case undecided:
		row.Outcome, row.Why = Observed, "refused, but not with 401 or 405"
	default:
		row.Why = "401 (or 405, not served) to each"
	}
	a.add(row)
}

// foreignOrigin is an Origin no server serves.
const foreignOrigin = "https://mcpprobe-foreign-origin.invalid"

// origin is A23: a foreign Origin gets 403, with the valid token when
// there is one, so that a 401 cannot stand in for the Origin check.
func (a *auditor) origin() {
	p := byID("A23")
	row := Row{ID: "A23", Check: p.check, Clause: p.clause}
	auth, authz := "none", ""
	if a.baseline {
		auth, authz = "--token-env", "Bearer "+a.o.Token
	}
	row.Sent = "POST initialize, Origin: " + foreignOrigin + ", Authorization: " + map[bool]string{true: "Bearer <" + a.tokenLabel() + ">", false: "none"}[a.baseline]
	ans := a.post("A23", auth, authz, map[string]string{"Origin": foreignOrigin})
	row.Got = ans.String()
	switch {
	case ans.err != nil:
		row.Outcome, row.Why = NotRun, "no answer"
	case ans.status == http.StatusForbidden:
		row.Outcome, row.Why = Pass, "403"
	case ans.ok():
		row.Outcome, row.Why = Fail, fmt.Sprintf("%d: served to a foreign Origin; servers MUST answer an invalid Origin with 403", ans.status)
	case ans.status == http.StatusUnauthorized && !a.baseline:
		row.Outcome, row.Why = NotRun, "401: the token is checked before the Origin; pass --token-env VAR to see the Origin check"
	default:
		row.Outcome, row.Why = Observed, fmt.Sprintf("%d, not 403", ans.status)
	}
	a.add(row)
}

// notRun adds the probes this release does not run, each with why.
func (a *auditor) notRun() {
	why := map[string]string{
		"A14": "needs an interactive authorization (a person at a browser): the authorization response's iss is not seen by an audit",
		"A22": "token passthrough is not provable from outside",
	}
	for _, id := range []string{"A14", "A22", "A24"} {
		p := byID(id)
		row := Row{ID: id, Check: p.check, Clause: p.clause, Outcome: NotRun, Why: why[id]}
		if id == "A24" {
			row.Why = "the metadata asks for no DPoP"
			if a.prm != nil {
				if _, ok := a.prm.doc["dpop_bound_access_tokens_required"]; ok {
					row.Outcome, row.Why = Observed, "the metadata names dpop_bound_access_tokens_required: DPoP is an extension this audit does not test"
				}
			}
		}
		a.add(row)
	}
	a.sortRows()
}

// sortRows puts the rows in the checklist's order, the baseline first.
func (a *auditor) sortRows() {
	rank := map[string]int{"base": -1}
	for i, p := range checklist {
		rank[p.id] = i
	}
	rows := a.res.Rows
	key := func(r Row) int { return rank[strings.Fields(r.ID)[0]] }
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && key(rows[j]) < key(rows[j-1]); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

// closeBaseline ends the baseline's session, with the token.
func (a *auditor) closeBaseline() {
	if a.session == "" {
		return
	}
	a.send("base", http.MethodDelete, a.u.String(), "--token-env", "Bearer "+a.o.Token, a.sessionHeaders(), "")
}
