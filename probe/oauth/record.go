package oauth

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/netguard"
	"github.com/mcpprobe/mcpprobe/transport"
)

// maxBody bounds every body an OAuth exchange reads: metadata and token
// answers are a few KiB.
const maxBody = 256 << 10

// recorder makes the OAuth exchanges: each request and its answer a
// transport.DirAuth frame in the trace, every secret in an answer handed
// to OnSecret before the frame is added, every body bounded, every wait
// bounded, a redirect followed only within its origin.
type recorder struct {
	o      Options
	tr     *transport.Trace
	client *http.Client
}

func newRecorder(o Options, tr *transport.Trace, g *netguard.Guard) *recorder {
	// Every dial is judged by the guard on the address it reaches: the
	// URLs fetched here are named by the server and its metadata.
	base := g.Transport(o.Timeout)
	base.TLSClientConfig = &tls.Config{InsecureSkipVerify: o.Insecure} //nolint:gosec // only with --insecure
	r := &recorder{o: o, tr: tr}
	r.client = &http.Client{Transport: &recording{r: r, next: g.RoundTripper(base)}, Timeout: 2 * o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("more than 3 redirects")
			}
			if originOf(req.URL) != originOf(via[0].URL) {
				return fmt.Errorf("redirect to another origin (%s) refused", originOf(req.URL))
			}
			return nil
		}}
	return r
}

// answer is one exchange's outcome.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
	// held is the answer's frame of a document fetched with doc: kept
	// out of the trace until the caller has judged the document (show).
	held *transport.Frame
}

func (a answer) String() string {
	if a.err != nil {
		return "no answer (" + a.err.Error() + ")"
	}
	s := fmt.Sprintf("%d", a.status)
	if ct := a.header.Get("Content-Type"); ct != "" {
		s += " " + ct
	}
	return s
}

// do sends one request; headers in extra ("Name: value", the target's
// -H) are added only on the MCP server's origin, where they were given
// for.
func (r *recorder) do(ctx context.Context, method, u string, hdr map[string]string, body []byte, extra []string) answer {
	return r.send(ctx, method, u, hdr, body, extra, false)
}

// doc fetches a document (metadata) whose body reaches the trace only
// once the caller judged it (show): a server names where it is, so it
// may be anything, such as a service's secrets.
func (r *recorder) doc(ctx context.Context, u string, extra []string) answer {
	return r.send(ctx, http.MethodGet, u, map[string]string{"Accept": "application/json"}, nil, extra, true)
}

// heldKey marks a request whose answer's frame is held for the caller.
type heldKey struct{}

// show puts a document's held frame into the trace: its body when the
// document was judged fit to show (ok), else in its place what was
// wrong with it (status, content type, size and why), never its content.
func (r *recorder) show(a answer, ok bool, why string) {
	if a.held == nil {
		return
	}
	f := *a.held
	if !ok {
		f.Raw, f.Redacted = []byte(Withheld(a.status, f.HTTP.ContentType, len(f.Raw), why)), true
	}
	if r.tr != nil {
		r.tr.AddFrame(f)
	}
}

// Withheld is what stands for a document's body that is not shown.
func Withheld(status int, contentType string, size int, why string) string {
	if contentType == "" {
		contentType = "no Content-Type"
	}
	return fmt.Sprintf("[body withheld by mcpprobe: %d, %s, %d bytes: %s]", status, contentType, size, why)
}

func (r *recorder) send(ctx context.Context, method, u string, hdr map[string]string, body []byte, extra []string, held bool) answer {
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	var hf *transport.Frame
	if held {
		hf = &transport.Frame{}
		ctx = context.WithValue(ctx, heldKey{}, hf)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return answer{err: err}
	}
	if mcp, err := url.Parse(r.o.URL); err == nil && originOf(req.URL) == originOf(mcp) {
		for _, kv := range extra { // never to another origin, as on the session
			k, v, _ := strings.Cut(kv, ":")
			req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: b, err: err}
	if hf != nil && hf.HTTP != nil {
		a.held = hf
	}
	return a
}

// recording is the RoundTripper under every OAuth exchange, the
// oauth2 library's included.
type recording struct {
	r    *recorder
	next http.RoundTripper
}

func (t *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" && t.r.o.UserAgent != "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", t.r.o.UserAgent)
	}
	var sent []byte
	if req.GetBody != nil {
		if rb, err := req.GetBody(); err == nil {
			sent, _ = io.ReadAll(io.LimitReader(rb, maxBody))
			rb.Close()
		}
	}
	t.add(transport.Frame{Dir: transport.DirAuth, Raw: sent, HTTP: &transport.HTTPInfo{Method: req.Method, URL: req.URL.String()}})
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.add(transport.Frame{Dir: transport.DirAuth, Raw: []byte(err.Error()), HTTP: &transport.HTTPInfo{URL: req.URL.String()}})
		return nil, err
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	if rerr == nil && len(b) > maxBody {
		rerr = fmt.Errorf("the answer of %s is over %d bytes: mcpprobe reads no more", req.URL, maxBody)
		b = b[:maxBody]
	}
	secrets(b, t.r.o.OnSecret)
	f := transport.Frame{Dir: transport.DirAuth, Raw: b, HTTP: &transport.HTTPInfo{URL: req.URL.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}}
	if hf, ok := req.Context().Value(heldKey{}).(*transport.Frame); ok {
		if hf.HTTP != nil { // a redirect's answer before: judged as the document would be
			t.add(withheldFrame(*hf, "a redirect's body"))
		}
		*hf = f
	} else {
		t.add(f)
	}
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

func withheldFrame(f transport.Frame, why string) transport.Frame {
	f.Raw, f.Redacted = []byte(Withheld(f.HTTP.Status, f.HTTP.ContentType, len(f.Raw), why)), true
	return f
}

func (t *recording) add(f transport.Frame) {
	if t.r.tr != nil {
		t.r.tr.AddFrame(f)
	}
}

// secretFields are the members of an OAuth answer that are secrets.
var secretFields = []string{"access_token", "refresh_token", "id_token", "client_secret", "registration_access_token"}

// secrets hands every secret member of a JSON answer to on.
func secrets(b []byte, on func(string)) {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		if v, err := url.ParseQuery(string(b)); err == nil { // a form-encoded token answer (GitHub's)
			for _, f := range secretFields {
				if s := v.Get(f); s != "" {
					on(s)
				}
			}
		}
		return
	}
	for _, f := range secretFields {
		if s, ok := m[f].(string); ok && s != "" {
			on(s)
		}
	}
}

// ctxClient is the context the oauth2 library reads its client from.
func (r *recorder) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.o.Timeout)
}
