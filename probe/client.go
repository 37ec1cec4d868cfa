package probe

import (
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// Client is a session after its handshake, for commands that go on to
// call tools (bench, faults, malformed). Requests carry what the
// negotiated era needs (_meta in the modern era).
type Client struct {
	Session *Session
	Capture *Capture
	p       *prober
}

// Connect shakes hands with the server over conn. The capture holds what
// the handshake learned; Lists fills in the rest.
func Connect(ctx context.Context, conn transport.Conn, o Options) (*Client, error) {
	o.defaults()
	c := &Capture{Trace: conn.Trace()}
	s := NewSession(conn)
	if o.Answer != nil {
		s.SetAnswerer(o.Answer)
	}
	cl := &Client{Session: s, Capture: c, p: &prober{s: s, c: c, o: o}}
	return cl, cl.p.handshake(ctx)
}

// Lists asks for every list the server advertises.
func (cl *Client) Lists(ctx context.Context) { cl.p.lists(ctx) }

// ListTools asks for the tools only.
func (cl *Client) ListTools(ctx context.Context) {
	l := &cl.Capture.Tools
	*l = List{Method: "tools/list", Key: "tools", Asked: true}
	cl.p.list(ctx, l, "name", "tool")
}

// ListPrompts asks for the prompts only.
func (cl *Client) ListPrompts(ctx context.Context) {
	l := &cl.Capture.Prompts
	*l = List{Method: "prompts/list", Key: "prompts", Asked: true}
	cl.p.list(ctx, l, "name", "prompt")
}

// Request sends method with the given params members (raw JSON members
// without braces, "" for none) and waits at most timeout.
func (cl *Client) Request(ctx context.Context, method, members string, timeout time.Duration) (Response, error) {
	r, err := cl.Session.Call(ctx, method, cl.p.params(members), timeout)
	if cl.p.retryVersion(method, err) {
		r, err = cl.Session.Call(ctx, method, cl.p.params(members), timeout)
	}
	return r, err
}

// Params is the params Request sends for members: built once, they can
// be sent again and again (Session.Chain).
func (cl *Client) Params(members string) []byte { return cl.p.params(members) }

// CallTool calls a tool with raw JSON arguments (nil for none).
func (cl *Client) CallTool(ctx context.Context, name string, args []byte, timeout time.Duration) (Response, error) {
	r, err := cl.Session.Call(ctx, "tools/call", cl.CallParams(name, args), timeout)
	if cl.p.retryVersion("tools/call", err) {
		r, err = cl.Session.Call(ctx, "tools/call", cl.CallParams(name, args), timeout)
	}
	return r, err
}

// CallParams is a tools/call's params for the negotiated era, as
// CallTool sends them: built once, they can be sent again and again
// (Session.Call copies them into each request).
func (cl *Client) CallParams(name string, args []byte) []byte {
	b := make([]byte, 0, 32+len(name)+len(args))
	b = append(b, `{"name":`...)
	b = appendQuote(b, name)
	if args != nil {
		b = append(append(b, `,"arguments":`...), args...)
	}
	if cl.p.c.Era == "modern" {
		b = append(append(b, `,"_meta":`...), cl.p.meta(cl.p.c.ProtocolVersion)...)
	}
	return append(b, '}')
}

// Ping sends a ping; the modern era has none, and says so with an error.
func (cl *Client) Ping(ctx context.Context, timeout time.Duration) (Response, error) {
	return cl.Request(ctx, "ping", "", timeout)
}

// Modern reports whether the session speaks the stateless era.
func (cl *Client) Modern() bool { return cl.Capture.Era == "modern" }

// answerFlush bounds how long Finish waits for the answers to the
// server's requests to be written: microseconds, unless the server has
// stopped reading its input.
const answerFlush = 500 * time.Millisecond

// Finish records what the server sent unasked as findings.
func (cl *Client) Finish() {
	cl.Session.FlushAnswers(answerFlush)
	cl.Capture.Events = cl.Session.Events()
	cl.p.eventFindings()
	cl.p.codeFindings()
	cl.p.nestingFindings()
}

// Meta is the _meta every request carries in the modern era, "" before.
func (cl *Client) Meta() string {
	if !cl.Modern() {
		return ""
	}
	return cl.p.meta(cl.Capture.ProtocolVersion)
}

// MetaWith is Meta with the client capabilities caps (raw JSON) in place
// of the session's: a request may declare more than the handshake did
// (call answers every input request of a 2026-07-28 multi round-trip
// request, and says so on the request that may get one).
func (cl *Client) MetaWith(caps string) string {
	if !cl.Modern() {
		return ""
	}
	return `{"` + MetaProtocolVersion + `":` + jsonQuote(cl.Capture.ProtocolVersion) +
		`,"` + MetaClientCapabilities + `":` + caps + `,"` + MetaClientInfo + `":` + cl.p.clientInfo() + `}`
}
