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
	said := said(ans)
	switch {
	case ans.err != nil:
		row.Outcome, row.Why = NotRun, "no answer"
	case ans.ok():
		row.Outcome, row.Why = Observed, "served: initialize needs no scope the token lacks (a server may require scopes per tool); give a token that lacks one the endpoint itself requires"
	case ans.status != http.StatusForbidden && c.params["error"] != "" && c.params["error"] != "insufficient_scope":
		// The server says what it thinks of the token: quote it, and
		// do not call it a scope answer it never gave.
		row.Outcome, row.Why = Warn, fmt.Sprintf("the server answered %s: it calls the token error=%q, not insufficient_scope; if the token is valid for this URL and only lacks a scope, the server SHOULD answer 403 error=\"insufficient_scope\" with the scopes needed (otherwise check the token)", said, c.params["error"])
	case ans.status != http.StatusForbidden:
		row.Outcome, row.Why = Warn, fmt.Sprintf("the server answered %s: a token with insufficient scope SHOULD get 403 (401 says the token is invalid, and a client then re-authorizes without the scope it lacks)", said)
	case !c.bearer:
		row.Outcome, row.Why = Warn, fmt.Sprintf("the server answered %s, without a Bearer challenge: a client cannot tell which scopes to ask for", said)
	case c.params["error"] != "" && c.params["error"] != "insufficient_scope":
		row.Outcome, row.Why = Warn, fmt.Sprintf("the server answered %s: error=%q, not insufficient_scope", said, c.params["error"])
	case len(missing) > 0:
		row.Outcome, row.Why = Warn, fmt.Sprintf("the server answered %s: the challenge lacks %s; the server SHOULD send error=\"insufficient_scope\", the scopes needed and resource_metadata", said, strings.Join(missing, ", "))
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
		row.Outcome, row.Why = Fail, fmt.Sprintf("registered a redirect URI that is neither localhost nor https (the server answered %s): all redirect URIs MUST be one or the other", said(bad))
	case !good.ok() && !refusal(good.status):
		// Not a refusal of the client: the endpoint is missing, closed
		// or broken, and the redirect check is not reached.
		row.Outcome, row.Why = Observed, fmt.Sprintf("the registration endpoint answered the loopback client %s: %s; the redirect check is not judged", said(good), statusMeaning(good.status))
	case !good.ok():
		row.Outcome, row.Why = Observed, fmt.Sprintf("refused a native client with a loopback redirect (the server answered %s): a client MUST be prepared for that, but none registers here", said(good))
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

// said is an answer as a reason quotes it: status and its name, the
// challenge and the OAuth error the body names, bounded.
func said(a *answer) string {
	if a.err != nil {
		return "nothing (" + a.err.Error() + ")"
	}
	s := fmt.Sprintf("%d %s", a.status, http.StatusText(a.status))
	if wa := a.header.Values("WWW-Authenticate"); len(wa) > 0 {
		s += ", WWW-Authenticate: " + strings.Join(wa, ", ")
	}
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(a.body, &e) == nil && e.Error != "" {
		s += fmt.Sprintf(", error %q", e.Error)
		if e.Description != "" {
			s += fmt.Sprintf(" (%q)", e.Description)
		}
	}
	return bound(s)
}

// refusal is a status by which a registration endpoint that exists
// refuses the client itself (RFC 7591 §3.2.2 gives 400; 401 and 403 ask
// for an initial access token, §3).
func refusal(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusUnauthorized || status == http.StatusForbidden
}

// statusMeaning says what a status the registration endpoint gave means
// for the audit, where it is not the client being refused.
func statusMeaning(status int) string {
	switch {
	case status == http.StatusNotFound || status == http.StatusGone:
		return "nothing is served at the registration_endpoint the metadata names"
	case status == http.StatusMethodNotAllowed:
		return "the registration_endpoint the metadata names does not take POST"
	case status >= 500:
		return "the registration endpoint failed (a server error, not a decision about the client)"
	case status >= 300 && status < 400:
		return "the registration endpoint redirects; the audit does not follow a redirect"
	default:
		return "neither a registration (201) nor a refusal of the client (400, RFC 7591 §3.2.2)"
	}
}
