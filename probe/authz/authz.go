// Package authz audits a remote MCP server's authorization from the
// outside: it walks the black-box probes of the auth checklist (the 401
// and its challenge, protected-resource metadata, authorization-server
// metadata, registration options, invalid, expired and foreign tokens,
// auth on every HTTP method, Origin) against one URL and gives one row per
// probe, each resting on the clause it cites. It sends no token but the
// ones it is given, and those only to the MCP endpoint's own origin.
package authz

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/netguard"
)

// The outcomes of a row.
const (
	Pass     = "pass"
	Fail     = "fail"     // a MUST of the revision judged is not met
	Warn     = "warn"     // a SHOULD is not met, or a MUST only an older revision has
	Observed = "observed" // what the spec leaves open, or a host's quirk
	NotRun   = "not-run"  // the probe needs what was not given (Why says which flag)
)

// Options are what to audit and with what.
type Options struct {
	URL string
	// Token is a valid access token for URL (--token-env): the baseline
	// the probes that need a session start from.
	Token string
	// ForeignToken is a token the same authorization server issued for
	// another resource (--foreign-token-env); ExpiredToken one past its
	// expiry (--expired-token-env).
	ForeignToken, ExpiredToken string
	// NarrowToken is a valid token for URL without a scope the endpoint
	// requires (--narrow-token-env): the step-up probe (A19).
	NarrowToken string
	// Register lets the audit register two clients at the authorization
	// server's registration endpoint (--register): the A12 probe writes
	// to the server, so it runs only when asked.
	Register bool
	// OnExchange is told each HTTP exchange as it completes (--trace),
	// no token in it.
	OnExchange func(Exchange)
	// ClientID and ClientSecret get the tokens not given by the
	// client_credentials grant (--client-id, --client-secret-env).
	ClientID, ClientSecret string
	// OnSecret is told each token the audit obtains before it is used, so
	// the caller can hide it everywhere.
	OnSecret  func(string)
	Timeout   time.Duration // per HTTP request
	Insecure  bool
	UserAgent string
	// Progress is told each probe as it starts; nil for none.
	Progress func(id string)
	// Issuer is the authorization server the user named (--issuer): with
	// the endpoint's own origin, the only origin the client secret goes to.
	Issuer string
	// Notify is told, in a line, where a credential was sent or why it
	// was not (stderr).
	Notify func(string)
	// Classify replaces netguard's classifier of the addresses fetched
	// (tests).
	Classify func(netip.AddrPort) netguard.Class
}

// Row is one probe's verdict.
type Row struct {
	ID      string `json:"id"`    // the checklist's number: A1 … A25
	Check   string `json:"check"` // what is checked, in a few words
	Clause  Clause `json:"clause"`
	Sent    string `json:"sent"`    // what was sent, never a token
	Got     string `json:"got"`     // what came back, bounded (raw: escape it to print)
	Outcome string `json:"outcome"` // Pass, Fail, Warn, Observed, NotRun
	Why     string `json:"why"`
}

// Exchange is one HTTP request of the audit and its answer, as received:
// the body bounded, a token never recorded.
type Exchange struct {
	Probe  string `json:"probe"`
	Method string `json:"method"`
	URL    string `json:"url"`
	Auth   string `json:"auth,omitempty"` // which credential was sent: "none", "--token-env", "invalid", …
	// Sent are the request's headers besides Authorization (which Auth
	// names), and Request its body, as sent.
	Sent    map[string]string   `json:"sent,omitempty"`
	Request string              `json:"request,omitempty"`
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers,omitempty"` // the answer's
	Body    string              `json:"body,omitempty"`
	Error   string              `json:"error,omitempty"`
}

// Result is an audit.
type Result struct {
	Target    string     `json:"target"`
	Protocol  string     `json:"protocol,omitempty"` // what the baseline initialize negotiated
	Rows      []Row      `json:"rows"`
	Exchanges []Exchange `json:"exchanges"`
}

// Count is how many rows have each outcome.
func (r *Result) Count() map[string]int {
	n := map[string]int{}
	for _, row := range r.Rows {
		n[row.Outcome]++
	}
	return n
}

// Failing are the ids of the rows with outcome o, in order.
func (r *Result) Failing(o string) []string {
	var ids []string
	for _, row := range r.Rows {
		if row.Outcome == o {
			ids = append(ids, row.ID)
		}
	}
	return ids
}

// Summary is the answer in one line.
func (r *Result) Summary() string {
	n := r.Count()
	return fmt.Sprintf("%d fail, %d warn, %d pass, %d observed, %d not run", n[Fail], n[Warn], n[Pass], n[Observed], n[NotRun])
}

// bodyLimit bounds what is kept of one answer; gotLimit what a row shows.
const (
	bodyLimit = 16 << 10
	gotLimit  = 240
)

// auditor holds one audit's state as its probes run.
type auditor struct {
	ctx    context.Context
	o      Options
	u      *url.URL
	client *http.Client
	res    *Result

	first     *answer // the unauthenticated POST
	challenge challenge
	prm       *prmFound
	wellKnown []prmFound // each well-known form tried, in order
	header    *prmFound  // the document at the header's resource_metadata
	session   string     // from the baseline, for GET and DELETE
	// tokenEndpoint is the first authorization server's whose metadata a
	// client may use (A8, A9); ccNote, ccErr and foreignErr say how
	// client_credentials went.
	tokenEndpoint     string
	tokenIssuer       string // whose token endpoint it is
	pinned            bool   // it is --issuer's
	told              bool   // Notify said where the secret went
	ccNote            string
	ccErr, foreignErr error
	foreignNote       string
	// foreignResource and validResource are the resource parameters the
	// foreign and the valid token were asked with, when the audit asked
	// for them (client_credentials).
	foreignResource, validResource string
	baseline                       bool       // the valid token opened a session
	found                          discovered // what the hosts' rules read (A25)
	// scrub, when set, rewrites the next exchange before it is kept (the
	// query-string probe's URL holds the token).
	scrub func(Exchange) Exchange
	// registration is the first usable authorization server's
	// registration_endpoint (A12).
	registration string
	// legacy: no protected-resource metadata, so the authorization
	// server is the MCP server's origin, as 2025-03-26 had it (legacy.go).
	legacy bool
}

// answer is one response as the audit keeps it.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

func (a *answer) ok() bool { return a.err == nil && a.status >= 200 && a.status < 300 }

// String is the answer as a row's "got": status and what matters of it.
func (a *answer) String() string {
	if a.err != nil {
		return "no answer: " + a.err.Error()
	}
	s := fmt.Sprintf("%d", a.status)
	if wa := a.header.Values("WWW-Authenticate"); len(wa) > 0 {
		s += " · WWW-Authenticate: " + strings.Join(wa, ", ")
	}
	return bound(s)
}

func bound(s string) string {
	if len(s) > gotLimit {
		return s[:gotLimit] + "…"
	}
	return s
}

// Run audits o.URL. A URL that is not http(s) is a *probe.OptionError;
// whatever the server does is a row, never an error.
func Run(ctx context.Context, o Options) (*Result, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &probe.OptionError{Msg: fmt.Sprintf("auth audits an http(s) URL of an MCP endpoint; %q is not one", o.URL)}
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	// The audit fetches what the server names (resource_metadata,
	// authorization_servers): every dial is judged by the guard.
	g := &netguard.Guard{Target: o.URL, Classify: o.Classify}
	g.Prepare(ctx)
	tr := g.Transport(o.Timeout)
	if o.Insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure asks for it
	}
	a := &auditor{ctx: ctx, o: o, u: u, res: &Result{Target: o.URL},
		client: &http.Client{Transport: g.RoundTripper(tr), Timeout: o.Timeout,
			// A redirect is an answer to judge, not to follow: a token
			// is never carried to where a redirect points.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	defer tr.CloseIdleConnections()
	a.run()
	if a.first != nil && a.first.err != nil && ctx.Err() == nil {
		// Nothing answered at all: the target could not be probed, as
		// for every other command (exit 3), not a table of not-run rows.
		return nil, &probe.FatalError{What: fmt.Sprintf("could not reach %s: %v", o.URL, a.first.err),
			Received: "no HTTP answer to the first POST",
			Try:      "check the URL and that the server is up; for https with a certificate this machine does not trust, --insecure",
			Err:      a.first.err}
	}
	return a.res, nil
}

func (a *auditor) step(id string) {
	if a.o.Progress != nil {
		a.o.Progress(id)
	}
}

func (a *auditor) add(r Row) {
	r.Got = bound(r.Got)
	a.res.Rows = append(a.res.Rows, r)
}

// run walks the probes in the order a client meets them.
func (a *auditor) run() {
	a.step("A1")
	if !a.unauthenticated() {
		return
	}
	a.step("A2")
	a.discoverPRM()
	a.step("A8")
	a.authServers()
	a.clientCredentials()
	a.step("A15")
	a.badTokens()
	a.step("baseline")
	a.openBaseline()
	a.step("A20")
	a.everyMethod()
	a.step("A23")
	a.origin()
	a.step("A19")
	a.stepUp()
	a.step("A12")
	a.register()
	a.rowsHosts(a.found)
	a.notRun()
	a.closeBaseline()
}

// initialize is the body of every POST: an initialize any era's server
// reads (a 2026-07-28 server answers it or refuses it; either way only
// the status before authorization is judged).
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpprobe-auth","version":"1"}}}`

// send makes one request and keeps its exchange. auth names the
// credential for the record; authz is the Authorization header's value.
func (a *auditor) send(probeID, method, target, auth, authz string, hdr map[string]string, body string) *answer {
	return a.sendJudged(probeID, method, target, auth, authz, hdr, body, nil)
}

// judge says whether a document's body may be shown, and if not why.
type judge func(*answer) (show bool, why string)

// fetchDoc GETs a document the server named: its body is kept in the
// exchange (--json, --trace) only when j finds it fit to show; otherwise
// what was wrong with it stands in its place, and of its headers only
// Content-Type.
func (a *auditor) fetchDoc(probeID, target string, j judge) *answer {
	return a.sendJudged(probeID, http.MethodGet, target, "none", "", nil, "", j)
}

// Withheld stands for a document's body that is not shown.
func Withheld(status int, contentType string, size int, why string) string {
	if contentType == "" {
		contentType = "no Content-Type"
	}
	return fmt.Sprintf("[body withheld by mcpprobe: %d, %s, %d bytes: %s]", status, contentType, size, why)
}

func (a *auditor) sendJudged(probeID, method, target, auth, authz string, hdr map[string]string, body string, j judge) *answer {
	ctx, cancel := context.WithTimeout(a.ctx, a.o.Timeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ex := Exchange{Probe: probeID, Method: method, URL: target, Auth: auth, Request: body}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		ex.Error = err.Error()
		a.record(ex)
		return &answer{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if a.o.UserAgent != "" {
		req.Header.Set("User-Agent", a.o.UserAgent)
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	ex.Sent = map[string]string{}
	for k := range req.Header {
		if k != "Authorization" {
			ex.Sent[k] = req.Header.Get(k)
		}
	}
	resp, err := a.client.Do(req)
	if err != nil {
		ex.Error = err.Error()
		a.record(ex)
		return &answer{err: err}
	}
	defer resp.Body.Close()
	ans := &answer{status: resp.StatusCode, header: resp.Header}
	// A GET's stream is not read on: its status is the answer, and its
	// body could last for ever. A POST's answer, SSE or JSON, ends with
	// its response (bounded by size and the request's timeout).
	if method != http.MethodGet || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		ans.body, _ = io.ReadAll(io.LimitReader(resp.Body, bodyLimit))
	}
	ex.Status, ex.Headers, ex.Body = resp.StatusCode, resp.Header, string(ans.body)
	if j != nil {
		if ok, why := j(ans); !ok {
			ct := resp.Header.Get("Content-Type")
			ex.Body, ex.Headers = Withheld(resp.StatusCode, ct, len(ans.body), why), nil
			if ct != "" {
				ex.Headers = map[string][]string{"Content-Type": {ct}}
			}
		}
	}
	a.record(ex)
	return ans
}

// record keeps an exchange and tells OnExchange. A request whose URL
// carries a token (A18) is recorded by its caller, with the token cut out.
func (a *auditor) record(ex Exchange) {
	if a.scrub != nil {
		ex = a.scrub(ex)
	}
	a.res.Exchanges = append(a.res.Exchanges, ex)
	if a.o.OnExchange != nil {
		a.o.OnExchange(ex)
	}
}

// post sends initialize to the MCP endpoint.
func (a *auditor) post(probeID, auth, authz string, hdr map[string]string) *answer {
	return a.send(probeID, http.MethodPost, a.u.String(), auth, authz, hdr, initialize)
}

// randomToken is a token no server issued.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "mcpprobe-invalid-" + hex.EncodeToString(b)
}

// loopback reports whether host names this machine: a local setup, where
// plain http is what a developer runs.
func loopback(host string) bool {
	h := strings.ToLower(host)
	return h == "localhost" || h == "127.0.0.1" || h == "::1" || strings.HasPrefix(h, "127.")
}

// Findings are the rows that are not passes, as the registry's codes: a
// fail an error, a warning a warning, a host that will fail info. A row
// observed for another reason (what the spec leaves open) and a row not
// run are no finding: the table says them.
func (r *Result) Findings() []findings.Finding {
	var out []findings.Finding
	for _, row := range r.Rows {
		msg := fmt.Sprintf("%s %s: %s (%s %s, %s)", row.ID, row.Check, row.Why, row.Clause.Version, row.Clause.Section, row.Clause.Keyword)
		if strings.HasPrefix(row.ID, "A25 ") {
			msg = row.ID + ": " + row.Why // the why names the source
		}
		switch {
		case row.Outcome == Fail:
			out = append(out, findings.New(findings.AuthFail, "%s", msg))
		case row.Outcome == Warn:
			out = append(out, findings.New(findings.AuthWarn, "%s", msg))
		case row.Outcome == Observed && strings.HasPrefix(row.ID, "A25 "):
			out = append(out, findings.New(findings.AuthHostFails, "%s", msg))
		}
	}
	return out
}

// Protected reports whether the endpoint answered a POST without a token
// with 401 (A1 passed): only then was the rest of the audit run.
func (r *Result) Protected() bool {
	return len(r.Rows) > 0 && r.row("A1").Outcome == Pass
}

// row is the row with id, or a zero Row.
func (r *Result) row(id string) Row {
	for _, row := range r.Rows {
		if row.ID == id {
			return row
		}
	}
	return Row{}
}

// Unprotected says in a line why the audit went no further than A1: the
// endpoint served without a token, or answered otherwise than 401.
func (r *Result) Unprotected() (status int, why string) {
	a1 := r.row("A1")
	for _, ex := range r.Exchanges {
		if ex.Probe == "A1" {
			status = ex.Status
			break
		}
	}
	return status, a1.Why
}
