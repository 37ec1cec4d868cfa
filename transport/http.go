package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// HTTPOptions says how to reach a server over HTTP.
type HTTPOptions struct {
	URL     string
	Headers []string // "Name: value", sent on every request to the server's origin
	// Mode is "auto" (Streamable HTTP, falling back to legacy HTTP+SSE as
	// the spec says), "streamable" or "sse".
	Mode     string
	Insecure bool // skip TLS verification
	// MaxMessage bounds one response body or one SSE event.
	MaxMessage int
	// Timeout bounds connecting and waiting for response headers, and the
	// wait for the legacy SSE stream's endpoint event.
	Timeout time.Duration
	Trace   *Trace
	// UserAgent identifies the probe.
	UserAgent string
	// MaxBytes bounds every byte of every response body, together (0: no
	// bound). Past it the session is dropped: a problem wrapping
	// ErrTooMuch, every stream closed, the message stream ended.
	MaxBytes int64
	// Bearer, when set, gives each request to the server's origin its
	// OAuth Authorization and refreshes a refused token once
	// (probe/oauth).
	Bearer Bearer
}

// HTTPError is an HTTP answer that carries no JSON-RPC message for us.
type HTTPError struct {
	Method, URL string
	Status      int
	ContentType string
	Body        []byte // an excerpt
	// WWWAuthenticate is the challenge of a 401 or 403.
	WWWAuthenticate string
	// RPC is set when the body is a JSON-RPC error meant for nobody (id
	// null or another id), as some servers answer bad sessions.
	RPC string
	// Auth is set when the request carried an Authorization header.
	Auth bool
	// Expired: a 404 for a request that carried a session id, which means
	// the session is gone.
	Expired bool
	Why     string // a sentence on what the status means here
	// Fallback says how the legacy HTTP+SSE transport, tried next, failed.
	Fallback string
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d %s from %s %s", e.Status, http.StatusText(e.Status), e.Method, e.URL)
	if e.Why != "" {
		b.WriteString(": " + e.Why)
	}
	if e.WWWAuthenticate != "" {
		b.WriteString("; WWW-Authenticate: " + e.WWWAuthenticate)
	}
	if e.Auth && (e.Status == 401 || e.Status == 403) {
		b.WriteString("; the Authorization header was sent (its value is never shown)")
	}
	if e.RPC != "" {
		b.WriteString("; body: JSON-RPC " + e.RPC)
	} else if len(e.Body) > 0 {
		fmt.Fprintf(&b, "; body (%s): %s", e.ContentType, excerptBytes(e.Body, 300))
	}
	if e.Fallback != "" {
		b.WriteString("; then, as legacy HTTP+SSE: " + e.Fallback)
	}
	return b.String()
}

// ErrSessionExpired marks a 404 on a request that carried a session id.
var ErrSessionExpired = errors.New("the server no longer knows the session (HTTP 404)")

func (e *HTTPError) Unwrap() error {
	if e.Expired {
		return ErrSessionExpired
	}
	return nil
}

// ConnError is a failure to reach the server at all.
type ConnError struct {
	URL  string
	Err  error
	Hint string
}

func (e *ConnError) Error() string {
	s := fmt.Sprintf("could not reach %s: %v", e.URL, e.Err)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *ConnError) Unwrap() error { return e.Err }

// An error page is a web page, not a message: it is named by its title
// and size, and any other body is quoted on one line, whitespace runs
// made one space, cut at n bytes on a character's boundary.
func excerptBytes(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if title, ok := htmlTitle(b); ok {
		if title == "" {
			return fmt.Sprintf("an HTML page of %d bytes", len(b))
		}
		return fmt.Sprintf("an HTML page of %d bytes titled %q", len(b), excerptBytes([]byte(title), 80))
	}
	one := strings.Join(strings.Fields(string(b)), " ")
	if len(one) <= n {
		return one
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(one[cut]) {
		cut--
	}
	return one[:cut] + "…"
}

// htmlTitle says whether b is an HTML document, and its <title> text.
func htmlTitle(b []byte) (string, bool) {
	head := asciiLower(b[:min(len(b), 4096)])
	if !bytes.HasPrefix(head, []byte("<!doctype html")) && !bytes.HasPrefix(head, []byte("<html")) {
		return "", false
	}
	i := bytes.Index(head, []byte("<title>"))
	if i < 0 {
		return "", true
	}
	title, _, ok := bytes.Cut(b[i+len("<title>"):len(head)], []byte("<"))
	if !ok {
		return "", true
	}
	return strings.Join(strings.Fields(string(title)), " "), true
}

// asciiLower lowers A-Z only, so offsets stay those of b.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// HTTP is a Conn over Streamable HTTP or legacy HTTP+SSE.
type HTTP struct {
	opts    HTTPOptions
	trace   *Trace
	client  *http.Client
	base    *url.URL
	headers http.Header
	ctx     context.Context
	cancel  context.CancelFunc

	msgs     chan Message
	problems chan error
	readers  sync.WaitGroup
	closeMsg sync.Once

	mu        sync.Mutex
	mode      string // "streamable" or "sse" once known; "" while auto
	sessionID string
	version   string   // for MCP-Protocol-Version, once negotiated
	endpoint  *url.URL // legacy: where to POST
	// endpointErr: the endpoint event came but was refused.
	endpointErr error
	getOpened   bool
	// getAnswered is closed when the GET stream's request has its answer
	// (headers or an error): Close waits for it, so that what the GET got
	// is in every run's notes, not only in runs where it beat the close.
	getAnswered chan struct{}
	firstByte   time.Duration
	heard       chan struct{} // closed with the first response headers
	heardOnce   bool
	notes       []string // what the transport saw that the capture should report
	closed      bool
	err         error
	received    int64 // response body bytes read
	overflow    bool
	bearer      *bearerTransport // nil without HTTPOptions.Bearer
	// answers: how each POSTed notification or response was answered,
	// the most recent last (bounded), for the transport's 202 rule.
	answers []NotificationAnswer
	// paramHeaders: by tool, the parameters a tools/call mirrors into
	// Mcp-Param headers (SetParamHeaders).
	paramHeaders map[string][]ParamHeader
}

// NotificationAnswer is how the server answered the POST of a JSON-RPC
// notification or response, which Streamable HTTP says a server accepts
// with 202 Accepted and no body, or refuses with an HTTP error status.
type NotificationAnswer struct {
	Seq         int    // the trace frame of the POSTed message
	Method      string // the notification's method; "" for a response
	Status      int
	ContentType string
	// Body is the start of the body (a JSON-RPC body is also delivered as
	// a message); BodyLen its length, -1 when unknown (a stream).
	Body    []byte
	BodyLen int64
}

// Accepted: 202 with no body, the one answer the transport gives an
// accepted notification.
func (a NotificationAnswer) Accepted() bool { return a.Status == http.StatusAccepted && a.BodyLen == 0 }

// Refused: an HTTP error status, the transport's way to refuse one.
func (a NotificationAnswer) Refused() bool { return a.Status >= 400 }

// NotificationAnswers lists how each notification or response POSTed
// over Streamable HTTP was answered, oldest first (the last 64).
func (c *HTTP) NotificationAnswers() []NotificationAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]NotificationAnswer(nil), c.answers...)
}

func (c *HTTP) answered(a NotificationAnswer) {
	c.mu.Lock()
	c.answers = append(c.answers, a)
	if len(c.answers) > 64 {
		c.answers = c.answers[len(c.answers)-64:]
	}
	c.mu.Unlock()
}

// NewHTTP prepares a connection; nothing is sent until the first message.
func NewHTTP(o HTTPOptions) (*HTTP, error) {
	if o.Trace == nil {
		o.Trace = NewTrace(time.Now())
	}
	if o.Mode == "" {
		o.Mode = "auto"
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxLine
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", o.URL)
	}
	h := http.Header{}
	for _, kv := range o.Headers {
		k, v, _ := strings.Cut(kv, ":")
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if o.UserAgent != "" && h.Get("User-Agent") == "" {
		h.Set("User-Agent", o.UserAgent)
	}
	dialer := &net.Dialer{Timeout: o.Timeout}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		// Raw is sacred: ask for no compression, so the body is the bytes
		// the server wrote, and refuse it if it compresses anyway.
		DisableCompression:  true,
		MaxIdleConnsPerHost: 4,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: o.Insecure}, //nolint:gosec // only with --insecure
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &HTTP{
		opts: o, trace: o.Trace, base: u, headers: h, ctx: ctx, cancel: cancel,
		msgs:     make(chan Message, 64),
		problems: make(chan error, 16),
		heard:    make(chan struct{}),
	}
	if o.Mode != "auto" {
		c.mode = o.Mode
	}
	var rt http.RoundTripper = tr
	if o.Bearer != nil {
		c.bearer = &bearerTransport{c: c, rt: tr}
		rt = c.bearer
	}
	c.client = &http.Client{Transport: countingTransport{c, rt}, CheckRedirect: c.checkRedirect}
	return c, nil
}

// Abort drops the session at once: every request and stream in flight is
// cancelled, and Close sends no DELETE. For a run that was interrupted,
// or a server past its byte budget.
func (c *HTTP) Abort() { c.cancel() }

// Overflowed reports whether the server went past MaxBytes.
func (c *HTTP) Overflowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.overflow
}

// Received is how many response body bytes the server sent.
func (c *HTTP) Received() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.received
}

// countingTransport counts every response body against MaxBytes.
type countingTransport struct {
	c  *HTTP
	rt http.RoundTripper
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = countingBody{t.c, resp.Body}
	}
	return resp, err
}

type countingBody struct {
	c *HTTP
	io.ReadCloser
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.c.count(n) {
		return n, errTooMuchHTTP
	}
	return n, err
}

var errTooMuchHTTP = fmt.Errorf("%w; mcpprobe dropped the session", ErrTooMuch)

// count adds n body bytes, and reports false once past MaxBytes, when the
// session is dropped (once).
func (c *HTTP) count(n int) bool {
	c.mu.Lock()
	c.received += int64(n)
	over := c.opts.MaxBytes > 0 && c.received > c.opts.MaxBytes
	first := over && !c.overflow
	c.overflow = c.overflow || over
	c.mu.Unlock()
	if first {
		err := fmt.Errorf("%w: its responses came to more than %d bytes; mcpprobe dropped the session and kept what came before", ErrTooMuch, c.opts.MaxBytes)
		c.problem(err)
		c.cancel()
		c.end(err)
	}
	return !over
}

// checkRedirect follows a redirect only within the server's origin, so
// that headers (and the credentials in them) never reach another host.
func (c *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	if origin(req.URL) != origin(c.base) {
		return fmt.Errorf("redirect to another origin (%s) refused: mcpprobe never sends headers or credentials to another origin; probe that URL directly if it is the server", origin(req.URL))
	}
	return nil
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

func (c *HTTP) Trace() *Trace            { return c.trace }
func (c *HTTP) Messages() <-chan Message { return c.msgs }
func (c *HTTP) Problems() <-chan error   { return c.problems }

// Err says why the message stream ended.
func (c *HTTP) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Mode is the transport in use: "streamable", "sse", or "" if not yet known.
func (c *HTTP) Mode() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mode
}

// SessionID is the Mcp-Session-Id in use, if any.
func (c *HTTP) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// FirstByte is when the first response byte arrived.
func (c *HTTP) FirstByte() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstByte
}

// Notes returns what the transport observed that is worth a finding.
func (c *HTTP) Notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

func (c *HTTP) note(format string, args ...any) {
	c.mu.Lock()
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
	c.mu.Unlock()
}

// SetProtocolVersion sets the MCP-Protocol-Version header sent from now on.
func (c *HTTP) SetProtocolVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// ShortID cuts a session id to a prefix that identifies it in a trace
// without handing out the credential.
func ShortID(id string) string {
	if id == "" {
		return ""
	}
	if len(id) <= 4 {
		return "…"
	}
	return id[:4] + "…"
}

// ShortSessionURL is u with the value of every query parameter that names
// a session (sessionId, session_id, sessionid…) cut to a prefix, as
// ShortID cuts Mcp-Session-Id: a legacy HTTP+SSE server names its session
// in the endpoint's URL, and whoever holds it can speak in that session.
func ShortSessionURL(u string) string {
	base, query, ok := strings.Cut(u, "?")
	if !ok {
		return u
	}
	frag := ""
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query, frag = query[:i], query[i:]
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.Contains(strings.ToLower(k), "session") {
			parts[i] = k + "=" + ShortID(v)
		}
	}
	return base + "?" + strings.Join(parts, "&") + frag
}

func (c *HTTP) markFirstByte() {
	c.mu.Lock()
	if !c.heardOnce {
		c.heardOnce = true
		c.firstByte = c.trace.Since()
		close(c.heard)
	}
	c.mu.Unlock()
}

// HeardFrom is closed when the first response headers arrive: the server's
// HTTP stack is up and answering. An accepted connection alone is not
// counted, as the kernel accepts
// connections on behalf of a server that has not taken them yet.
func (c *HTTP) HeardFrom() <-chan struct{} { return c.heard }

// Send delivers one message. Over Streamable HTTP it is one POST whose
// answer (JSON, or an SSE stream) is read in the background; over legacy
// SSE it is a POST to the endpoint the stream named.
func (c *HTTP) Send(raw []byte) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("connection closed")
	}
	mode := c.mode
	c.mu.Unlock()
	msg := gjson.ParseBytes(raw)
	method := msg.Get("method").String()
	if mode == "sse" {
		return c.sendLegacy(raw)
	}
	err := c.post(raw, msg)
	var he *HTTPError
	if mode == "" && method == "initialize" && errors.As(err, &he) && (he.Status == 400 || he.Status == 404 || he.Status == 405) {
		// The spec's detection of a 2024-11-05 server: initialize POSTed
		// to the URL fails with 400, 404 or 405; GET it and wait for the
		// endpoint event.
		if lerr := c.openLegacy(); lerr != nil {
			he.Fallback = lerr.Error()
			return he
		}
		return c.sendLegacy(raw)
	}
	if err == nil && mode == "" {
		c.mu.Lock()
		c.mode = "streamable"
		c.mu.Unlock()
	}
	if err == nil && method == "notifications/initialized" {
		c.openGetStream()
	}
	return err
}

func (c *HTTP) newRequest(method string, u *url.URL, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	for k, v := range c.headers {
		req.Header[k] = v
	}
	return req, nil
}

// post sends one message to the Streamable HTTP endpoint.
func (c *HTTP) post(raw []byte, msg gjson.Result) error {
	req, err := c.newRequest(http.MethodPost, c.base, raw)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	session, version := c.sessionID, c.version
	c.mu.Unlock()
	// A modern request names its version in _meta; the header must match.
	if v := msg.Get("params._meta").Get(gjson.Escape("io.modelcontextprotocol/protocolVersion")); v.Exists() {
		version = v.String()
		method := msg.Get("method").String()
		req.Header.Set("Mcp-Method", method)
		switch method {
		case "tools/call", "prompts/get":
			req.Header.Set("Mcp-Name", headerValue(msg.Get("params.name").String()))
			if method == "tools/call" {
				c.setParamHeaders(req.Header, msg)
			}
		case "resources/read":
			req.Header.Set("Mcp-Name", headerValue(msg.Get("params.uri").String()))
		}
	} else if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	sent := c.trace.AddFrame(Frame{Dir: DirSend, Raw: raw, HTTP: &HTTPInfo{Method: "POST", URL: c.base.String(), SessionID: ShortID(req.Header.Get("Mcp-Session-Id"))}})
	resp, err := c.client.Do(req)
	if err != nil {
		return c.connError(err)
	}
	c.markFirstByte()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.mu.Lock()
		if c.sessionID == "" {
			c.sessionID = sid
		}
		c.mu.Unlock()
	}
	info := &HTTPInfo{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), SessionID: ShortID(resp.Header.Get("Mcp-Session-Id"))}
	isRequest := msg.Get("method").Exists() && msg.Get("id").Exists()
	if !isRequest && (msg.IsObject() || msg.IsArray()) {
		resp.Body = c.noteAnswer(resp, sent.Seq, msg.Get("method").String())
	}
	if resp.StatusCode >= 300 {
		return c.statusError(resp, info, msg, session)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		resp.Body.Close()
		c.trace.AddFrame(Frame{Dir: DirHTTP, HTTP: info})
		return &HTTPError{Method: "POST", URL: c.base.String(), Status: resp.StatusCode, ContentType: info.ContentType,
			Why: "the body is compressed (Content-Encoding: " + ce + ") though mcpprobe did not ask for it (no Accept-Encoding); mcpprobe reports bytes as sent and does not decode it"}
	}
	mt, _, _ := mime.ParseMediaType(info.ContentType)
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent || (!isRequest && resp.ContentLength == 0):
		resp.Body.Close()
		c.trace.AddFrame(Frame{Dir: DirHTTP, HTTP: info})
		if isRequest {
			c.note("a request was answered %d with no body", resp.StatusCode)
		}
		return nil
	case mt == "text/event-stream":
		c.readers.Add(1)
		go func() {
			defer c.readers.Done()
			c.readEvents(resp.Body, info, false)
		}()
		return nil
	case mt == "application/json":
		c.readers.Add(1)
		go func() {
			defer c.readers.Done()
			c.readJSONBody(resp.Body, info)
		}()
		return nil
	default:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		c.trace.AddFrame(Frame{Dir: DirNoise, Raw: body, HTTP: info})
		return &HTTPError{Method: "POST", URL: c.base.String(), Status: resp.StatusCode, ContentType: info.ContentType, Body: body,
			Why: "the content type is neither application/json nor text/event-stream"}
	}
}

// noteAnswer records how a notification or response was answered, and
// returns the body to read on: its first bytes, kept for the record, put
// back in front of the rest.
func (c *HTTP) noteAnswer(resp *http.Response, seq int, method string) io.ReadCloser {
	a := NotificationAnswer{Seq: seq, Method: method, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), BodyLen: resp.ContentLength}
	defer func() { c.answered(a) }()
	body := resp.Body
	mt, _, _ := mime.ParseMediaType(a.ContentType)
	if resp.ContentLength == 0 || mt == "text/event-stream" {
		return body // a stream may stay open: its first bytes are not waited for
	}
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(body, 512))
		done <- b
	}()
	select {
	case head := <-done:
		a.Body = head
		if a.BodyLen < 0 && len(head) == 0 {
			a.BodyLen = 0 // chunked, and empty after all
		}
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), body), body}
	case <-time.After(c.opts.Timeout):
		// Closing the body ends the read under way; nothing reads it after.
		body.Close()
		return io.NopCloser(bytes.NewReader(nil))
	}
}

// statusError reads an error answer. A JSON-RPC response to this very
// request in the body is delivered as the answer (modern servers send
// errors such as -32022 so); anything else becomes an HTTPError.
func (c *HTTP) statusError(resp *http.Response, info *HTTPInfo, msg gjson.Result, session string) error {
	body := readBounded(resp.Body, 64<<10, c.opts.Timeout)
	resp.Body.Close()
	he := &HTTPError{Method: "POST", URL: c.base.String(), Status: resp.StatusCode, ContentType: info.ContentType, Body: body,
		WWWAuthenticate: resp.Header.Get("WWW-Authenticate"), Auth: c.sendsAuth()}
	if IsJSONRPC(body) {
		f := c.trace.AddFrame(Frame{Dir: DirRecv, Raw: body, HTTP: info})
		b := gjson.ParseBytes(body)
		if id := msg.Get("id"); id.Exists() && b.Get("id").Raw == id.Raw {
			c.deliverAsync(Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped})
			return nil
		}
		he.RPC = fmt.Sprintf("error %d: %s (id %s)", b.Get("error.code").Int(), b.Get("error.message").String(), b.Get("id").Raw)
	} else {
		c.trace.AddFrame(Frame{Dir: DirNoise, Raw: body, HTTP: info})
	}
	switch resp.StatusCode {
	case 401, 403:
		he.Why = "the server wants credentials"
		if resp.StatusCode == 401 && c.bearer != nil {
			he.Why = c.authNote()
		}
	case 404:
		if session != "" {
			he.Expired = true
			he.Why = "the session has expired"
			c.mu.Lock()
			c.sessionID = ""
			c.mu.Unlock()
		} else {
			he.Why = "no MCP endpoint here"
		}
	case 405:
		he.Why = "the URL does not take POST"
	case 406:
		he.Why = "the server rejected Accept: application/json, text/event-stream, which the spec requires clients to send"
	case 415:
		he.Why = "the server rejected Content-Type: application/json"
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		he.Why = "a redirect mcpprobe did not follow"
		if loc := resp.Header.Get("Location"); loc != "" {
			he.Why += " (Location: " + loc + ")"
		}
	}
	return he
}

// readBounded reads at most n bytes of r, giving up after d.
func readBounded(r io.Reader, n int64, d time.Duration) []byte {
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, n))
		done <- b
	}()
	select {
	case b := <-done:
		return b
	case <-time.After(d):
		return nil
	}
}

func (c *HTTP) connError(err error) error {
	var ce *ConnError
	if errors.As(err, &ce) {
		return err
	}
	hint := ""
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		hint = "the host name does not resolve; check the URL"
	case errors.As(err, &certErr):
		hint = "the TLS certificate is not trusted; fix the certificate, or pass --insecure to probe anyway"
	case strings.Contains(err.Error(), "redirect to another origin"):
		hint = ""
	case errors.As(err, &opErr) && strings.Contains(err.Error(), "connection refused"):
		hint = "nothing listens there; is the server running, and on that port?"
	case strings.Contains(err.Error(), "timeout awaiting response headers"), errors.Is(err, context.DeadlineExceeded):
		hint = fmt.Sprintf("no response headers within %v", c.opts.Timeout)
	case strings.Contains(err.Error(), "tls:"), strings.Contains(err.Error(), "x509:"):
		hint = "the TLS handshake failed; is it an https server? (--insecure skips verification)"
	}
	return &ConnError{URL: c.base.String(), Err: err, Hint: hint}
}

// readJSONBody delivers a JSON response body as one message.
func (c *HTTP) readJSONBody(body io.ReadCloser, info *HTTPInfo) {
	defer body.Close()
	// Each complete value is delivered as soon as it is there: a body a
	// server holds open after its message must not hold the message.
	rest, over, err := jsonValues(body, c.opts.MaxMessage, func(v []byte, n int) {
		if !IsJSONRPC(v) {
			f := c.trace.AddFrame(Frame{Dir: DirNoise, Raw: v, HTTP: info})
			c.problem(fmt.Errorf("the response body (frame %d, %s) is not a JSON-RPC message: %s", f.Seq, info.ContentType, excerptBytes(v, 200)))
			return
		}
		f := c.trace.AddFrame(Frame{Dir: DirRecv, Raw: v, HTTP: info})
		if n == 2 {
			c.problem(fmt.Errorf("the %s response body holds more than one JSON value (frame %d is the second): an application/json answer is one message; more belong in text/event-stream", info.ContentType, f.Seq))
		}
		c.deliver(Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped})
	})
	switch {
	case over:
		f := c.trace.AddFrame(Frame{Dir: DirNoise, Raw: rest[:min(len(rest), c.opts.MaxMessage)], Len: len(rest), Cut: true, HTTP: info})
		c.problem(fmt.Errorf("%w: a response body over %d bytes (frame %d); raise it with --max-line", ErrLineTooLong, c.opts.MaxMessage, f.Seq))
	case err != nil && !errors.Is(err, context.Canceled):
		c.trace.AddFrame(Frame{Dir: DirNoise, Raw: rest, HTTP: info})
		c.problem(fmt.Errorf("reading the response body: %v", err))
	case rest != nil && IsJSONRPC(rest):
		// Not an object or array at the start, yet JSON-RPC as a whole
		// (the scan and the classifier disagree): kept as received.
		f := c.trace.AddFrame(Frame{Dir: DirRecv, Raw: rest, HTTP: info})
		c.deliver(Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped})
	case rest != nil:
		f := c.trace.AddFrame(Frame{Dir: DirNoise, Raw: rest, HTTP: info})
		c.problem(fmt.Errorf("the response body (frame %d, %s) is not a JSON-RPC message: %s", f.Seq, info.ContentType, excerptBytes(rest, 200)))
	}
}

// readEvents delivers the messages of an SSE stream. For the legacy
// transport the first event names the endpoint.
func (c *HTTP) readEvents(body io.ReadCloser, info *HTTPInfo, legacy bool) {
	defer body.Close()
	sr := NewSSEReader(body, c.opts.MaxMessage)
	for {
		ev, err := sr.Next()
		if err != nil {
			if c.ctx.Err() != nil {
				return // we closed it
			}
			if !errors.Is(err, io.EOF) {
				c.problem(fmt.Errorf("the SSE stream from %s failed: %w", c.base, err))
			}
			if legacy {
				c.end(fmt.Errorf("the legacy SSE stream ended: %v", err))
			}
			return
		}
		fi := *info
		fi.EventID, fi.Event = ev.ID, ev.Event
		if legacy && ev.Event == "endpoint" {
			// The endpoint names the session (…?sessionId=…), a bearer
			// credential: the trace keeps a prefix, as of Mcp-Session-Id.
			shown := ShortSessionURL(string(ev.Data))
			c.trace.AddFrame(Frame{Dir: DirHTTP, Raw: []byte(shown), HTTP: &fi, Redacted: shown != string(ev.Data)})
			c.setEndpoint(string(ev.Data))
			continue
		}
		if IsJSONRPC(ev.Data) {
			f := c.trace.AddFrame(Frame{Dir: DirRecv, Raw: ev.Data, HTTP: &fi})
			c.deliver(Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped})
			continue
		}
		if len(ev.Data) == 0 {
			// Priming events (an id, empty data) let a client resume.
			c.trace.AddFrame(Frame{Dir: DirHTTP, HTTP: &fi})
			continue
		}
		c.trace.AddFrame(Frame{Dir: DirNoise, Raw: ev.Data, HTTP: &fi})
	}
}

func (c *HTTP) deliver(m Message) {
	defer func() { _ = recover() }() // the stream may have closed under a late message
	select {
	case c.msgs <- m:
	case <-c.ctx.Done():
	}
}

// deliverAsync hands over a message found while sending. Send runs on the
// session's reader goroutine when it answers a server request, so a
// synchronous delivery could wait on itself.
func (c *HTTP) deliverAsync(m Message) {
	c.readers.Add(1)
	go func() {
		defer c.readers.Done()
		c.deliver(m)
	}()
}

func (c *HTTP) problem(err error) {
	select {
	case c.problems <- err:
	default:
	}
}

// end closes the message stream for good: the legacy transport's
// connection is its session.
func (c *HTTP) end(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.closeMsg.Do(func() { close(c.msgs) })
}

// openGetStream opens the optional GET stream on which a Streamable HTTP
// server sends notifications and requests outside any POST.
func (c *HTTP) openGetStream() {
	c.mu.Lock()
	if c.getOpened || c.mode != "streamable" || c.sessionID == "" {
		c.mu.Unlock()
		return
	}
	c.getOpened = true
	answered := make(chan struct{})
	c.getAnswered = answered
	session, version := c.sessionID, c.version
	c.mu.Unlock()
	req, err := c.newRequest(http.MethodGet, c.base, nil)
	if err != nil {
		close(answered)
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	c.readers.Add(1)
	go func() {
		defer c.readers.Done()
		resp, err := c.client.Do(req)
		if err != nil {
			if c.ctx.Err() == nil {
				c.note("the GET stream could not be opened: %v", err)
			}
			close(answered)
			return
		}
		info := &HTTPInfo{Method: "GET", Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
		mt, _, _ := mime.ParseMediaType(info.ContentType)
		c.trace.AddFrame(Frame{Dir: DirHTTP, HTTP: info})
		if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				c.note("GET for the server's stream answered %d %s (405 is the spec's way to say there is none)", resp.StatusCode, info.ContentType)
			}
			close(answered)
			return
		}
		close(answered)
		c.readEvents(resp.Body, &HTTPInfo{Method: "GET"}, false)
	}()
}

// openLegacy opens the 2024-11-05 SSE stream and waits for its endpoint.
func (c *HTTP) openLegacy() error {
	req, err := c.newRequest(http.MethodGet, c.base, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.client.Do(req)
	if err != nil {
		return c.connError(err)
	}
	c.markFirstByte()
	info := &HTTPInfo{Method: "GET", URL: c.base.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	mt, _, _ := mime.ParseMediaType(info.ContentType)
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		body := readBounded(resp.Body, 4<<10, c.opts.Timeout)
		resp.Body.Close()
		c.trace.AddFrame(Frame{Dir: DirHTTP, Raw: body, HTTP: info})
		return &HTTPError{Method: "GET", URL: c.base.String(), Status: resp.StatusCode, ContentType: info.ContentType, Body: body,
			Why: "not an SSE stream, so not a legacy HTTP+SSE server either"}
	}
	c.trace.AddFrame(Frame{Dir: DirHTTP, HTTP: info})
	c.mu.Lock()
	c.mode = "sse"
	c.mu.Unlock()
	c.readers.Add(1)
	go func() {
		defer c.readers.Done()
		c.readEvents(resp.Body, &HTTPInfo{Method: "GET"}, true)
	}()
	deadline := time.Now().Add(c.opts.Timeout)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		ep, ended, refused := c.endpoint, c.err, c.endpointErr
		c.mu.Unlock()
		if ep != nil {
			return nil
		}
		if refused != nil {
			return refused
		}
		if err := c.ctx.Err(); err != nil {
			return fmt.Errorf("the session was dropped while waiting for the endpoint event: %w", err)
		}
		if ended != nil {
			return ended
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("the SSE stream at %s sent no endpoint event within %v", c.base, c.opts.Timeout)
}

func (c *HTTP) setEndpoint(data string) {
	u, err := c.base.Parse(strings.TrimSpace(data))
	if err != nil {
		c.refuseEndpoint(fmt.Errorf("the endpoint event %q is not a URL: %v", ShortSessionURL(data), err))
		return
	}
	if origin(u) != origin(c.base) {
		c.refuseEndpoint(fmt.Errorf("the endpoint event names another origin (%s); mcpprobe will not send messages or credentials there", origin(u)))
		return
	}
	c.mu.Lock()
	c.endpoint = u
	c.mu.Unlock()
}

// refuseEndpoint records why the endpoint event was not taken, so that
// the wait for it ends with that reason, not with "no endpoint event".
func (c *HTTP) refuseEndpoint(err error) {
	c.mu.Lock()
	if c.endpointErr == nil {
		c.endpointErr = err
	}
	c.mu.Unlock()
	c.problem(err)
}

// sendLegacy POSTs a message to the legacy endpoint; the answer comes on
// the SSE stream.
func (c *HTTP) sendLegacy(raw []byte) error {
	c.mu.Lock()
	ep := c.endpoint
	c.mu.Unlock()
	if ep == nil {
		if err := c.openLegacy(); err != nil {
			return err
		}
		c.mu.Lock()
		ep = c.endpoint
		c.mu.Unlock()
	}
	req, err := c.newRequest(http.MethodPost, ep, raw)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c.trace.AddFrame(Frame{Dir: DirSend, Raw: raw, HTTP: &HTTPInfo{Method: "POST", URL: ShortSessionURL(ep.String())}})
	resp, err := c.client.Do(req)
	if err != nil {
		return c.connError(err)
	}
	body := readBounded(resp.Body, 64<<10, c.opts.Timeout)
	resp.Body.Close()
	info := &HTTPInfo{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if resp.StatusCode >= 300 {
		c.trace.AddFrame(Frame{Dir: DirNoise, Raw: body, HTTP: info})
		return &HTTPError{Method: "POST", URL: ShortSessionURL(ep.String()), Status: resp.StatusCode, ContentType: info.ContentType, Body: body,
			Why: "the legacy endpoint refused the message"}
	}
	if IsJSONRPC(body) {
		f := c.trace.AddFrame(Frame{Dir: DirRecv, Raw: body, HTTP: info})
		c.deliverAsync(Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped})
		return nil
	}
	c.trace.AddFrame(Frame{Dir: DirHTTP, Raw: body, HTTP: info})
	return nil
}

// HTTPClose says how the session ended.
type HTTPClose struct {
	DeleteStatus int // 0 if no DELETE was sent
}

// Close ends the session: a DELETE where there is a session (405 is the
// server's right), then every stream is closed.
func (c *HTTP) Close() HTTPClose {
	var r HTTPClose
	c.mu.Lock()
	c.closed = true
	session, mode, version, answered := c.sessionID, c.mode, c.version, c.getAnswered
	c.mu.Unlock()
	if answered != nil && !WaitFor(answered, c.opts.Timeout) {
		c.note("GET for the server's stream was not answered within %v", c.opts.Timeout)
	}
	if session != "" && mode == "streamable" {
		req, err := c.newRequest(http.MethodDelete, c.base, nil)
		if err == nil {
			req.Header.Set("Mcp-Session-Id", session)
			if version != "" {
				req.Header.Set("MCP-Protocol-Version", version)
			}
			ctx, cancel := context.WithTimeout(c.ctx, c.opts.Timeout)
			resp, err := c.client.Do(req.WithContext(ctx))
			cancel()
			if err == nil {
				resp.Body.Close()
				r.DeleteStatus = resp.StatusCode
				c.trace.AddFrame(Frame{Dir: DirHTTP, HTTP: &HTTPInfo{Method: "DELETE", Status: resp.StatusCode, SessionID: ShortID(session)}})
			}
		}
	}
	c.cancel()
	done := make(chan struct{})
	go func() { c.readers.Wait(); close(done) }()
	WaitFor(done, 2*time.Second)
	c.end(nil)
	c.client.CloseIdleConnections()
	return r
}

// headerValue carries a value in an HTTP header as 2026-07-28 says: as is
// when it is safe, else base64 in =?base64?…?=.
func headerValue(v string) string {
	// A value that looks encoded is encoded, so that it cannot be read as
	// the encoding of another (streamable-http#value-encoding, MUST).
	safe := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; safe && i < len(v); i++ {
		if v[i] < 0x20 || v[i] >= 0x7f {
			safe = false
		}
	}
	if safe {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
