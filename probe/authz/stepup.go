package authz

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// stepUp is A19: a valid token without a scope the endpoint requires
// (--narrow-token-env) gets 403 with a Bearer challenge that carries
// error="insufficient_scope", the scope needed and resource_metadata.
func (a *auditor) stepUp() {
	p := byID("A19")
	row := Row{ID: "A19", Check: p.check, Clause: p.clause}
	if a.o.NarrowToken == "" {
		row.Outcome, row.Why = NotRun, "pass --narrow-token-env VAR with a valid token for this URL that lacks a scope the endpoint requires"
		a.add(row)
		return
	}
	row.Sent = "POST initialize, Authorization: Bearer <--narrow-token-env>"
	ans := a.post("A19", "--narrow-token-env", "Bearer "+a.o.NarrowToken, nil)
	row.Got = ans.String()
	c := parseChallenge(ans.header)
	var missing []string
	for _, k := range []string{"error", "scope", "resource_metadata"} {
		if c.params[k] == "" {
			missing = append(missing, k)
		}
	}
	switch {
	case ans.err != nil:
		row.Outcome, row.Why = NotRun, "no answer"
	case ans.ok():
		row.Outcome, row.Why = Observed, "served: initialize needs no scope the token lacks (a server may require scopes per tool); give a token that lacks one the endpoint itself requires"
	case ans.status != http.StatusForbidden:
		row.Outcome, row.Why = Warn, fmt.Sprintf("%d: a token with insufficient scope SHOULD get 403 (401 says the token is invalid, and a client then re-authorizes without the scope it lacks)", ans.status)
	case !c.bearer:
		row.Outcome, row.Why = Warn, "403 without a Bearer challenge: a client cannot tell which scopes to ask for"
	case c.params["error"] != "" && c.params["error"] != "insufficient_scope":
		row.Outcome, row.Why = Warn, fmt.Sprintf("403 with error=%q, not insufficient_scope", c.params["error"])
	case len(missing) > 0:
		row.Outcome, row.Why = Warn, "403, but the challenge lacks "+strings.Join(missing, ", ")+`: the server SHOULD send error="insufficient_scope", the scopes needed and resource_metadata`
	default:
		row.Outcome, row.Why = Pass, fmt.Sprintf("403 insufficient_scope, scope %q", c.params["scope"])
	}
	a.add(row)
}

// The redirect URIs the registration probe asks for: one on loopback, the
// form a native client uses, and one plain http elsewhere, which no
// authorization server may register.
const (
	loopbackRedirect = "http://127.0.0.1:33418/callback"
	plainRedirect    = "http://mcpprobe-audit.invalid/callback"
)

// register is A12 (only with --register: it creates clients at the
// authorization server): a native client with a loopback redirect is
// registered (RFC 7591 §3.2.1, 201), one with a non-loopback http redirect
// is refused (RFC 7591 §3.2.2, 400 invalid_redirect_uri).
func (a *auditor) register() {
	p := byID("A12")
	row := Row{ID: "A12", Check: p.check, Clause: p.clause}
	switch {
	case !a.o.Register:
		row.Outcome, row.Why = NotRun, "registers two clients at the authorization server: pass --register to allow it"
	case a.registration == "":
		row.Outcome, row.Why = NotRun, "the authorization server advertises no registration_endpoint (A11)"
	}
	if row.Outcome != "" {
		a.add(row)
		return
	}
	body := func(redirect string) string {
		b, _ := json.Marshal(map[string]any{"client_name": "mcpprobe auth audit", "application_type": "native",
			"redirect_uris": []string{redirect}, "grant_types": []string{"authorization_code"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
		return string(b)
	}
	row.Sent = "POST " + a.registration + ": application_type native, redirect " + loopbackRedirect + "; then " + plainRedirect
	good := a.send("A12", http.MethodPost, a.registration, "none", "", nil, body(loopbackRedirect))
	bad := a.send("A12", http.MethodPost, a.registration, "none", "", nil, body(plainRedirect))
	row.Got = fmt.Sprintf("loopback → %s; non-loopback http → %s", statusOf(good), statusOf(bad))
	switch {
	case good.err != nil || bad.err != nil:
		row.Outcome, row.Why = NotRun, "no answer"
	case bad.ok():
		row.Outcome, row.Why = Fail, "registered a redirect URI that is neither localhost nor https: all redirect URIs MUST be one or the other"
	case !good.ok():
		row.Outcome, row.Why = Observed, "refused a native client with a loopback redirect: a client MUST be prepared for that, but none registers here"
	default:
		row.Outcome, row.Why = Pass, "the loopback client registered, the non-loopback http redirect refused"
	}
	a.add(row)
}

func statusOf(a *answer) string {
	if a.err != nil {
		return "no answer"
	}
	return fmt.Sprint(a.status)
}
