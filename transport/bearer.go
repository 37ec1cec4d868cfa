package transport

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// DirAuth is an exchange of the OAuth client (probe/oauth) with the
// resource's metadata or its authorization server, made to get a token:
// not part of the MCP session. Secrets in it are hidden when it is
// written, as everywhere.
const DirAuth Dir = "auth"

// Bearer is a source of OAuth access tokens for one origin (probe/oauth
// implements it): the transport asks it for the Authorization of every
// request and, once per connection, for a fresh token after a 401.
type Bearer interface {
	// Authorization is the header value for a request to u: "" when u is
	// not on the origin the token was issued for, so that no other
	// origin ever sees it. It may first refresh a token known to have
	// expired, recording any exchange in tr.
	Authorization(ctx context.Context, u *url.URL, tr *Trace) string
	// Refresh replaces stale, the Authorization value the server refused
	// with 401, by a fresh one, recording any exchange in tr; an error
	// says why none could be had.
	Refresh(ctx context.Context, stale string, tr *Trace) error
}

// bearerTransport adds the Bearer's Authorization to each request on the
// token's origin (redirects included: each hop asks again) and, after a
// 401, refreshes the token once per connection and sends the request
// again. A request that already carries an Authorization (-H) is left
// alone.
type bearerTransport struct {
	c  *HTTP
	rt http.RoundTripper

	mu        sync.Mutex
	refreshed bool
	note      string // how the refresh went, for the 401 that follows it
}

func (t *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	b := t.c.opts.Bearer
	if req.Header.Get("Authorization") != "" {
		return t.rt.RoundTrip(req)
	}
	auth := b.Authorization(req.Context(), req.URL, t.c.trace)
	if auth == "" {
		return t.rt.RoundTrip(req)
	}
	resp, err := t.rt.RoundTrip(withAuth(req, auth))
	if su, ok := b.(StepUpper); ok && err == nil && resp.StatusCode == http.StatusForbidden && (req.Body == nil || req.GetBody != nil) {
		return t.stepUp(su, req, auth, resp) // stepup.go
	}
	if err != nil || resp.StatusCode != http.StatusUnauthorized || (req.Body != nil && req.GetBody == nil) {
		return resp, err
	}
	t.mu.Lock()
	first := !t.refreshed
	t.refreshed = true
	t.mu.Unlock()
	if !first {
		return resp, nil
	}
	// The refused answer is kept in the trace, then the token refreshed.
	body := readBounded(resp.Body, 4<<10, t.c.opts.Timeout)
	resp.Body.Close()
	t.c.trace.AddFrame(Frame{Dir: DirHTTP, Raw: body, HTTP: &HTTPInfo{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}})
	restore := func(note string) (*http.Response, error) {
		t.mu.Lock()
		t.note = note
		t.mu.Unlock()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	refresh := b.Refresh
	if rc, ok := b.(Rechallenger); ok {
		refresh = func(ctx context.Context, stale string, tr *Trace) error {
			return rc.RefreshAfter(ctx, stale, resp.Header.Values("WWW-Authenticate"), tr)
		}
	}
	if rerr := refresh(req.Context(), auth, t.c.trace); rerr != nil {
		return restore("the server refused the OAuth token, and no fresh one could be had: " + rerr.Error())
	}
	fresh := b.Authorization(req.Context(), req.URL, t.c.trace)
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		rb, gerr := req.GetBody()
		if gerr != nil {
			return restore("the server refused the OAuth token; the request could not be sent again: " + gerr.Error())
		}
		again.Body = rb
	}
	resp2, err := t.rt.RoundTrip(withAuth(again, fresh))
	if err == nil && resp2.StatusCode == http.StatusUnauthorized {
		t.mu.Lock()
		t.note = "the server refused the OAuth token, and the fresh one it was refreshed to once"
		t.mu.Unlock()
	}
	return resp2, err
}

func withAuth(req *http.Request, auth string) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", auth)
	return r
}

// authNote says how the OAuth token fared, for a 401's message.
func (c *HTTP) authNote() string {
	if c.bearer == nil {
		return ""
	}
	c.bearer.mu.Lock()
	defer c.bearer.mu.Unlock()
	if c.bearer.note != "" {
		return c.bearer.note
	}
	return "the server refused the OAuth token"
}

// sendsAuth says whether requests to the server carry an Authorization.
func (c *HTTP) sendsAuth() bool {
	return c.headers.Get("Authorization") != "" || c.bearer != nil
}

// Restart moves the start of a trace that holds no frame yet to start,
// so that a session's times count from when it began, not from before
// the OAuth exchanges that preceded it. A trace with frames is left as
// it is (its times are already out). It reports whether it moved.
func (t *Trace) Restart(start time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seq > 0 || t.clock != nil {
		return false
	}
	t.start = start
	return true
}
