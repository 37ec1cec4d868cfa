package authz

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/netguard"
	"github.com/mcpprobe/mcpprobe/probe/wwwauth"
)

const noToken = "POST initialize, no Authorization"

// challenge is the Bearer challenge of the first 401, parsed (derived;
// the raw header is in the exchange).
type challenge struct {
	raw      []string
	bearer   bool
	params   map[string]string
	parseErr error
}

func parseChallenge(h http.Header) challenge {
	c := challenge{raw: h.Values("WWW-Authenticate")}
	cs, err := wwwauth.Parse(c.raw)
	c.parseErr = err
	if b, ok := wwwauth.Find(cs, "bearer"); ok {
		c.bearer, c.params = true, b.Params
	}
	return c
}

// unauthenticated is A1: a POST without a token. It reports whether the
// rest of the audit can run: only a 401 says the endpoint is protected.
func (a *auditor) unauthenticated() bool {
	ans := a.post("A1", "none", "", nil)
	a.first = ans
	row := Row{ID: "A1", Check: "401 without a token", Clause: clauseErrorHandling, Sent: noToken, Got: ans.String()}
	switch {
	case ans.err != nil:
		row.Outcome, row.Why = NotRun, "the endpoint did not answer; nothing to audit"
	case ans.status == http.StatusUnauthorized:
		row.Outcome, row.Why = Pass, "401: authorization required"
	case ans.ok():
		row.Outcome, row.Why = Observed, "served without a token: the endpoint is not protected (authorization is OPTIONAL, Protocol Requirements); nothing more to audit"
	case ans.status == http.StatusNotFound || ans.status == http.StatusMethodNotAllowed:
		row.Outcome, row.Why = NotRun, fmt.Sprintf("%d: no MCP endpoint answers POST at this URL; give the endpoint's URL", ans.status)
	default:
		row.Outcome, row.Why = Fail, fmt.Sprintf("%d where authorization is required: the Error Handling table gives 401 for \"Authorization required\"", ans.status)
	}
	a.add(row)
	if ans.status != http.StatusUnauthorized {
		a.skipAll("A1 did not get a 401")
		return false
	}
	a.challenge = parseChallenge(ans.header)
	return true
}

// skipAll marks every later probe not run, for why.
func (a *auditor) skipAll(why string) {
	for _, p := range checklist {
		if p.id != "A1" {
			a.add(Row{ID: p.id, Check: p.check, Clause: p.clause, Outcome: NotRun, Why: why})
		}
	}
}

// prmFound is a protected-resource metadata document fetched from one
// URL, and the resource it must name there.
type prmFound struct {
	form   string // "header", "path", "root"
	url    string
	ans    *answer
	doc    map[string]any
	reason string // why it is not usable, or ""
	want   []string
}

func (p *prmFound) usable() bool { return p != nil && p.reason == "" }

// fetchPRM fetches a PRM document and checks RFC 9728 §3.2's form: 200,
// application/json, a JSON object.
func (a *auditor) fetchPRM(id, form, target string, want []string) prmFound {
	p := prmFound{form: form, url: target, want: want}
	p.ans = a.fetchDoc(id, target, func(ans *answer) (bool, string) {
		p.judge(ans)
		switch {
		case p.reason != "":
			return false, "not protected-resource metadata: " + p.reason
		case !p.sameOrigin(a.u):
			// A host uses metadata the 401 names wherever it is; what it
			// holds is shown only when the resource's origin served it.
			return false, "from another origin than the resource's"
		}
		return true, ""
	})
	if p.ans.err != nil {
		p.reason = noAnswer(p.ans.err)
	}
	return p
}

// judge sets reason by RFC 9728 §3.2's form: 200, application/json, a
// JSON object.
func (p *prmFound) judge(ans *answer) {
	switch {
	case ans.status != http.StatusOK:
		p.reason = fmt.Sprintf("%d", ans.status)
	case !strings.HasPrefix(strings.ToLower(ans.header.Get("Content-Type")), "application/json"):
		p.reason = fmt.Sprintf("200 with Content-Type %q, not application/json (RFC 9728 §3.2)", bound(ans.header.Get("Content-Type")))
	default:
		if err := json.Unmarshal(ans.body, &p.doc); err != nil || p.doc == nil {
			p.reason, p.doc = "200 but not a JSON object", nil
		}
	}
}

// sameOrigin: the document was served by the resource's own origin,
// where what it holds is the resource's to show.
func (p *prmFound) sameOrigin(u *url.URL) bool {
	d, err := url.Parse(p.url)
	return err == nil && strings.EqualFold(d.Scheme, u.Scheme) && strings.EqualFold(d.Host, u.Host)
}

// canonical is u as the spec's "Canonical Server URI" compares it:
// lowercase scheme and host, no fragment.
func canonical(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.Scheme, u.Host, u.Fragment, u.RawFragment = strings.ToLower(u.Scheme), strings.ToLower(u.Host), "", ""
	return u.String()
}

// discoverPRM is A2–A7: the challenge, the well-known URIs in the order
// the spec gives, and what the document says.
func (a *auditor) discoverPRM() {
	c := a.challenge
	rm := c.params["resource_metadata"]
	mcpURL := canonical(a.u.String())
	origin := canonical((&url.URL{Scheme: a.u.Scheme, Host: a.u.Host}).String())
	if rm != "" {
		p := a.fetchPRM("A2", "header", rm, []string{mcpURL})
		a.header = &p
	}
	path := strings.TrimSuffix(a.u.EscapedPath(), "/")
	if path != "" {
		p := a.fetchPRM("A3", "path", origin+"/.well-known/oauth-protected-resource"+path, []string{mcpURL})
		a.wellKnown = append(a.wellKnown, p)
	}
	// The root form names the origin as its resource (RFC 9728 §3.3);
	// MCP's text hosts the endpoint's document there too, so the
	// endpoint's URL is accepted as well.
	a.wellKnown = append(a.wellKnown, a.fetchPRM("A3", "root", origin+"/.well-known/oauth-protected-resource", []string{origin, mcpURL}))
	var known *prmFound
	for i := range a.wellKnown {
		if a.wellKnown[i].usable() {
			known = &a.wellKnown[i]
			break
		}
	}
	// The document a client uses: the header's when given, else the first
	// well-known one in the spec's order.
	a.prm = known
	if a.header.usable() {
		a.prm = a.header
	}
	a.found = discovered{header: a.header.usable(), wellKnown: known != nil}
	a.rowChallenge(rm, known)
	a.rowWellKnown(known)
	a.rowPRMContents()
	a.rowSameDocument(known)
	a.rowScope()
}

func (a *auditor) rowChallenge(rm string, known *prmFound) {
	c := a.challenge
	row := Row{ID: "A2", Check: "401 challenge names resource_metadata", Clause: clausePRMDiscovery, Sent: noToken, Got: a.first.String()}
	switch {
	case len(c.raw) == 0:
		row.Clause, row.Outcome, row.Why = clause401Challenge, Fail, "a 401 without WWW-Authenticate: RFC 9110 requires a challenge on every 401"
	case !c.bearer:
		row.Clause, row.Outcome, row.Why = clausePRMDiscovery, Fail, "no Bearer challenge in WWW-Authenticate"
		if c.parseErr != nil {
			row.Why += " (" + c.parseErr.Error() + ")"
		}
	case rm != "" && a.header.usable():
		row.Outcome, row.Why = Pass, "Bearer with resource_metadata; the document it names serves"
	case rm != "":
		row.Outcome, row.Why = Fail, fmt.Sprintf("resource_metadata %s does not serve the metadata: %s", rm, a.header.reason)
	case known != nil:
		row.Clause, row.Outcome, row.Why = clauseHeader0618, Warn, "no resource_metadata: 2025-11-25 and later accept the well-known URI instead (one of the two is MUST, and it serves); a client of 2025-06-18 reads only the header"
	default:
		// The one-of MUST is A3's fail; this row is the header's part.
		row.Clause, row.Outcome, row.Why = clauseHeader0618, Warn, "no resource_metadata in the challenge, and no well-known URI serves the metadata either (A3)"
	}
	a.add(row)
}

func (a *auditor) rowWellKnown(known *prmFound) {
	var tried []string
	for _, p := range a.wellKnown {
		r := "200"
		if p.reason != "" {
			r = p.reason
		}
		tried = append(tried, p.form+" "+p.url+" → "+r)
	}
	row := Row{ID: "A3", Check: "protected-resource metadata at the well-known URI (path form, then root)", Clause: clausePRMDiscovery,
		Sent: "GET, in the spec's order", Got: strings.Join(tried, "; ")}
	switch {
	case known != nil:
		row.Outcome, row.Why = Pass, fmt.Sprintf("the %s form serves it", known.form)
	case a.header.usable():
		row.Outcome, row.Why = Observed, "no well-known URI serves it; the challenge's resource_metadata does, which meets the MUST (one of the two)"
	default:
		row.Outcome, row.Why = Fail, "no well-known URI serves the metadata, and the challenge names none that does"
	}
	a.add(row)
}

// rowPRMContents is A4 (authorization_servers) and A5 (resource).
func (a *auditor) rowPRMContents() {
	if a.prm == nil {
		for _, p := range []probeDef{byID("A4"), byID("A5")} {
			a.add(Row{ID: p.id, Check: p.check, Clause: p.clause, Outcome: NotRun, Why: "no protected-resource metadata to read"})
		}
		return
	}
	sent := "GET " + a.prm.url
	as := stringList(a.prm.doc["authorization_servers"])
	row := Row{ID: "A4", Check: "authorization_servers lists at least one", Clause: clauseASLocation, Sent: sent,
		Got: "authorization_servers: " + strings.Join(as, ", ")}
	if len(as) > 0 {
		row.Outcome, row.Why = Pass, fmt.Sprintf("%d authorization server(s)", len(as))
	} else {
		row.Got, row.Outcome, row.Why = "no authorization_servers", Fail, "the document MUST include authorization_servers with at least one entry"
	}
	a.add(row)

	res, _ := a.prm.doc["resource"].(string)
	row = Row{ID: "A5", Check: "resource is the URL probed", Clause: clauseResource, Sent: sent, Got: "resource: " + res}
	switch {
	case res == "":
		row.Outcome, row.Why = Fail, "no resource member (REQUIRED, RFC 9728 §2)"
	case slices.Contains(a.prm.want, canonical(res)):
		row.Outcome, row.Why = Pass, "identical to the resource the "+a.prm.form+" form names"
		a.found.exactResource = true
	case pathPrefix(canonical(res), a.prm.want[0]):
		// A common deployment (the origin as the resource): the RFC's
		// clients reject it, prefix-matching ones (the TypeScript SDK's)
		// accept it. A draft (rfc9728bis) would allow it.
		row.Outcome, row.Why = Warn, fmt.Sprintf("a prefix of the URL, not identical (want %s): a client that checks as RFC 9728 §3.3 says rejects it, one that matches by prefix accepts it", a.prm.want[0])
	default:
		row.Outcome, row.Why = Fail, fmt.Sprintf("want %s: a client MUST NOT use a document whose resource differs", strings.Join(a.prm.want, " or "))
	}
	a.add(row)
}

// rowSameDocument is A6: both roads lead to the same document.
func (a *auditor) rowSameDocument(known *prmFound) {
	row := Row{ID: "A6", Check: "the header's document and the well-known one agree", Clause: clauseSameDocument}
	if !a.header.usable() || known == nil {
		row.Outcome, row.Why = NotRun, "only one road to the metadata serves"
		a.add(row)
		return
	}
	row.Sent = "GET " + a.header.url + " and " + known.url
	hb, _ := json.Marshal(a.header.doc)
	kb, _ := json.Marshal(known.doc)
	if a.header.url == known.url || string(hb) == string(kb) {
		row.Outcome, row.Why = Pass, "the same document"
	} else {
		row.Got, row.Outcome, row.Why = string(hb)+" vs "+string(kb), Warn, "two different documents: a client that follows the header and one that builds the well-known URI see different servers"
		if !a.header.sameOrigin(a.u) {
			row.Got = fmt.Sprintf("%d bytes vs %d bytes (the header's document is from another origin: its content is not shown)", len(a.header.ans.body), len(known.ans.body))
		}
	}
	a.add(row)
}

// rowScope is A7: the challenge's scope (SHOULD), and no offline_access
// in it or in scopes_supported (2026-07-28 "Refresh Tokens": SHOULD NOT).
func (a *auditor) rowScope() {
	row := Row{ID: "A7", Check: "the challenge names a scope", Clause: clauseScope, Sent: noToken, Got: strings.Join(a.challenge.raw, ", ")}
	s, ok := a.challenge.params["scope"]
	var supported []string
	if a.prm != nil {
		supported = stringList(a.prm.doc["scopes_supported"])
	}
	switch {
	case slices.Contains(strings.Fields(s), "offline_access") || slices.Contains(supported, "offline_access"):
		row.Clause, row.Outcome = clauseOfflineAccess, Warn
		row.Got = fmt.Sprintf("challenge scope %q; scopes_supported %q", s, strings.Join(supported, " "))
		row.Why = "offline_access is asked of the client: refresh tokens are not a resource requirement, so MCP servers SHOULD NOT include it in the challenge's scope or in scopes_supported"
	case ok && s != "":
		row.Outcome, row.Why = Pass, "scope \""+s+"\""
	case len(supported) > 0:
		row.Outcome, row.Why = Warn, "no scope in the challenge: a client falls back to all of scopes_supported ("+strings.Join(supported, " ")+"), not the least it needs (Scope Selection Strategy)"
	default:
		row.Outcome, row.Why = Warn, "no scope in the challenge and no scopes_supported: a client asks for none (Scope Selection Strategy)"
	}
	a.add(row)
}

// pathPrefix reports whether res names url's origin and a leading part
// of its path, at a segment boundary.
func pathPrefix(res, url string) bool {
	res = strings.TrimSuffix(res, "/")
	return res != "" && strings.HasPrefix(url, res) && (len(url) == len(res) || url[len(res)] == '/')
}

func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// noAnswer is a fetch that got no answer, saying so when mcpprobe itself
// refused to make it.
func noAnswer(err error) string {
	if r, ok := netguard.IsRefused(err); ok {
		return "not fetched: " + r.Error()
	}
	return "no answer"
}
