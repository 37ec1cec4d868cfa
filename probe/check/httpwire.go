package check

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// The Streamable HTTP checks make their own requests: each bends one
// header of an otherwise well-formed POST (a foreign Origin, a version
// the server cannot support, a session id it never issued), which the
// probe's client, built to be well-behaved, never sends. Everything read
// is bounded by size and by --timeout.

// maxHTTPBody bounds what is read of one answer.
const maxHTTPBody = 1 << 20

// hx is one HTTP exchange of a transport check.
type hx struct {
	Method string // POST, GET, DELETE
	What   string // the JSON-RPC method of a POST's body, or the HTTP method
	Sent   []string
	// What came back: Status 0 when nothing did (Err says why).
	Status      int
	ContentType string
	SessionID   string // the response's Mcp-Session-Id
	Body        []byte // a JSON body, or the stream as read
	Events      []sseEvent
	Msg         []byte // the JSON-RPC message that answered, from the body or an event
	Err         string
}

// sseEvent is one event of a text/event-stream as read, dispatched or not:
// a priming event (an id and empty data) counts too.
type sseEvent struct {
	ID, Data, Retry string
	HasID, HasData  bool
}

// answered reports whether the server gave an HTTP answer at all.
func (x hx) answered() bool { return x.Status != 0 }

func (x hx) mediaType() string {
	mt, _, _ := strings.Cut(x.ContentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// rpcCode is the JSON-RPC error code of the answer, and whether there is one.
func (x hx) rpcCode() (int64, bool) {
	c := gjson.GetBytes(x.Msg, "error.code")
	return c.Int(), c.Type == gjson.Number
}

// sent says what the exchange sent, for a verdict: the method, then the
// headers a check chose (never the target's own, which may be secrets).
func (x hx) sent() string {
	s := x.Method
	if x.What != "" && x.What != x.Method {
		s += " " + x.What
	}
	if len(x.Sent) > 0 {
		s += " (" + strings.Join(x.Sent, ", ") + ")"
	}
	return bound(s)
}

// got says what came back: status, content type, body, bounded.
func (x hx) got() string {
	if !x.answered() {
		return "no HTTP answer (" + x.Err + ")"
	}
	s := fmt.Sprintf("HTTP %d", x.Status)
	if x.ContentType != "" {
		s += " " + x.ContentType
	}
	switch {
	case len(x.Body) == 0:
		s += ", no body"
	default:
		s += ": " + string(x.Body)
	}
	if x.Err != "" {
		s += " (" + x.Err + ")"
	}
	return bound(s)
}

// wire makes the transport checks' requests to one MCP endpoint.
type wire struct {
	ctx     context.Context
	url     string
	headers []string // the target's own "Name: value" headers (--header)
	timeout time.Duration
	client  *http.Client
	// The legacy session, once initialize answered.
	session, version string
	nextID           int
}

// newWire reaches u with the target's headers (and User-Agent), taking
// TLS as the probe's transport does (insecure only with --insecure), and
// following no redirect: a 3xx is an answer, and the headers, which may
// carry a credential, go nowhere else.
func newWire(ctx context.Context, u string, headers []string, timeout time.Duration, insecure bool, userAgent string) *wire {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if userAgent != "" {
		headers = append([]string{"User-Agent: " + userAgent}, headers...)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure asked for it
	}
	return &wire{ctx: ctx, url: u, headers: headers, timeout: timeout, nextID: 100,
		client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// close lets the wire's idle connections go.
func (w *wire) close() { w.client.CloseIdleConnections() }

func (w *wire) id() int { w.nextID++; return w.nextID }

// hdr is a header a check sets, or removes with an empty value.
type hdr struct{ name, value string }

// do makes one request: the target's headers, then the check's.
func (w *wire) do(method, what string, body []byte, hs []hdr) hx {
	return w.doFor(method, what, body, hs, 0)
}

// resumeWait bounds how long a resumed GET stream is read for a replay:
// a server that resumes replays at once, and one that does not keeps a
// GET stream open for ever. A constant, so the verdict says no time.
const resumeWait = 2 * time.Second

// doFor is do; a GET answered text/event-stream is read for up to
// readGet (0: not read), for the response it may replay.
func (w *wire) doFor(method, what string, body []byte, hs []hdr, readGet time.Duration) hx {
	x := hx{Method: method, What: what}
	timeout := w.timeout
	if readGet > 0 {
		timeout = min(timeout, readGet)
	}
	ctx, cancel := context.WithTimeout(w.ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.url, rd)
	if err != nil {
		x.Err = err.Error()
		return x
	}
	for _, h := range w.headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	for _, h := range hs {
		if h.value == "" {
			req.Header.Del(h.name)
			continue
		}
		req.Header.Set(h.name, h.value)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		x.Err = reason(err)
		return x
	}
	defer resp.Body.Close()
	x.Status, x.ContentType, x.SessionID = resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id")
	switch {
	case method == http.MethodGet && x.mediaType() == "text/event-stream" && readGet == 0:
		// A GET's stream may last for ever: its status and type are the answer.
	case x.mediaType() == "text/event-stream":
		x.readEvents(resp.Body)
	default:
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
		x.Body = b
		if err != nil {
			x.Err = reason(err)
		}
		if gjson.ValidBytes(b) {
			x.Msg = b
		}
	}
	return x
}

// readEvents reads an SSE answer until the event that carries a JSON-RPC
// response, the end of the stream, the size bound or --timeout.
func (x *hx) readEvents(r io.Reader) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxHTTPBody), 32<<10)
	var raw bytes.Buffer
	ev, open := sseEvent{}, false
	var data []string
	for {
		line, err := br.ReadString('\n')
		raw.WriteString(line)
		l := strings.TrimRight(line, "\r\n")
		switch {
		case l == "" && err == nil:
			if open {
				ev.Data = strings.Join(data, "\n")
				x.Events = append(x.Events, ev)
				if m := []byte(ev.Data); gjson.ValidBytes(m) && gjson.GetBytes(m, "id").Exists() && gjson.GetBytes(m, "method").Type != gjson.String {
					x.Msg = m
					x.Body = raw.Bytes()
					return
				}
			}
			ev, open, data = sseEvent{}, false, nil
		case strings.HasPrefix(l, ":"):
		default:
			name, value, _ := strings.Cut(l, ":")
			value = strings.TrimPrefix(value, " ")
			open = true
			switch name {
			case "id":
				ev.ID, ev.HasID = value, true
			case "data":
				data, ev.HasData = append(data, value), true
			case "retry":
				ev.Retry = value
			}
		}
		if err != nil {
			x.Body = raw.Bytes()
			if !errors.Is(err, io.EOF) {
				x.Err = reason(err)
			}
			return
		}
	}
}

// reason is a transport error in a few stable words.
func reason(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "no answer within --timeout"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the connection ended"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// rpc is a JSON-RPC request or notification body (id 0: a notification),
// with members as params.
func rpc(id int, method, params string) []byte {
	s := `{"jsonrpc":"2.0",`
	if id != 0 {
		s += fmt.Sprintf(`"id":%d,`, id)
	}
	s += `"method":"` + method + `"`
	if params != "" {
		s += `,"params":{` + params + `}`
	}
	return []byte(s + "}")
}

var accept = hdr{"Accept", "application/json, text/event-stream"}
var jsonBody = hdr{"Content-Type", "application/json"}

// legacyHeaders are what a well-behaved 2025-11-25 client sends in the
// session: the session id and the negotiated version.
func (w *wire) legacyHeaders() []hdr {
	hs := []hdr{accept, jsonBody}
	if w.session != "" {
		hs = append(hs, hdr{"Mcp-Session-Id", w.session})
	}
	if w.version != "" {
		hs = append(hs, hdr{"MCP-Protocol-Version", w.version})
	}
	return hs
}

// with replaces or adds headers to hs (an empty value removes one).
func with(hs []hdr, more ...hdr) []hdr {
	out := append([]hdr(nil), hs...)
	for _, m := range more {
		found := false
		for i := range out {
			if strings.EqualFold(out[i].name, m.name) {
				out[i].value, found = m.value, true
			}
		}
		if !found {
			out = append(out, m)
		}
	}
	return out
}

// shown names the headers an exchange bent, for what was sent.
func shown(hs ...hdr) []string {
	var out []string
	for _, h := range hs {
		if h.value == "" {
			out = append(out, "no "+h.name)
			continue
		}
		out = append(out, h.name+": "+h.value)
	}
	sort.Strings(out)
	return out
}

// post sends a body with the headers given, and names the bent ones.
func (w *wire) post(method string, body []byte, hs []hdr, bent ...hdr) hx {
	x := w.do(http.MethodPost, method, body, hs)
	x.Sent = shown(bent...)
	return x
}

// initializeAs opens the legacy session the checks use: the answer, with
// its session id and version kept for the requests that follow.
func (w *wire) initializeAs(version string) hx {
	body := rpc(1, "initialize", `"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"mcpprobe-check","version":"1"}`)
	x := w.post("initialize", body, []hdr{accept, jsonBody})
	w.session = x.SessionID
	if v := gjson.GetBytes(x.Msg, "result.protocolVersion"); v.Type == gjson.String {
		w.version = v.String()
	}
	return x
}

// modernMeta is the _meta every 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v2 + `","io.modelcontextprotocol/clientInfo":{"name":"mcpprobe-check","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// modernHeaders are what a well-behaved 2026-07-28 client sends for method.
func modernHeaders(method string) []hdr {
	return []hdr{accept, jsonBody, {"MCP-Protocol-Version", v2}, {"Mcp-Method", method}}
}
