package transport

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// StepUpper is a Bearer that can re-authorize with the scope a 403
// challenge names (2025-11-25 basic/authorization, "Scope Challenge
// Handling"; probe/oauth implements it).
type StepUpper interface {
	// StepUp replaces refused, the Authorization value the server
	// answered 403 to, by one authorized with the scopes challenge asks
	// for (the 403's WWW-Authenticate values), recording any exchange in
	// tr; an error says why it did not (not insufficient_scope, no new
	// scope, no retry left).
	StepUp(ctx context.Context, refused string, challenge []string, tr *Trace) error
}

// maxStepUps bounds the re-authorizations one request makes: a server
// that asks for more each time cannot keep the probe authorizing.
const maxStepUps = 2

// stepUp answers a 403 on a request sent with auth: while the Bearer
// steps up, the request is sent again with the new token, at most
// maxStepUps times; otherwise the 403 is returned as it came, its body
// kept in the trace.
func (t *bearerTransport) stepUp(su StepUpper, req *http.Request, auth string, resp *http.Response) (*http.Response, error) {
	for range maxStepUps {
		body := readBounded(resp.Body, 4<<10, t.c.opts.Timeout)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err := su.StepUp(req.Context(), auth, resp.Header.Values("WWW-Authenticate"), t.c.trace); err != nil {
			return resp, nil
		}
		t.c.trace.AddFrame(Frame{Dir: DirHTTP, Raw: body, HTTP: &HTTPInfo{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}})
		auth = t.c.opts.Bearer.Authorization(req.Context(), req.URL, t.c.trace)
		again := req.Clone(req.Context())
		if req.GetBody != nil {
			rb, err := req.GetBody()
			if err != nil {
				return resp, nil
			}
			again.Body = rb
		}
		next, err := t.rt.RoundTrip(withAuth(again, auth))
		if err != nil || next.StatusCode != http.StatusForbidden {
			return next, err
		}
		resp = next
	}
	return resp, nil
}

// Rechallenger is a Bearer that reads the 401's challenge before it gets
// a fresh token: the protected-resource metadata it names may now name
// another authorization server, where the token must be got anew
// (2026-07-28 basic/authorization/client-registration, "Authorization
// Server Binding"; probe/oauth implements it).
type Rechallenger interface {
	// RefreshAfter is Refresh with the 401's WWW-Authenticate values.
	RefreshAfter(ctx context.Context, stale string, challenge []string, tr *Trace) error
}
