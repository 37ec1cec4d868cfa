package bench

import (
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// echoConn is an in-process peer that answers every request at once: the
// floor under every figure mcpprobe reports, its own cost per call.
type echoConn struct {
	trace *transport.Trace
	msgs  chan transport.Message
	probs chan error
}

func newEcho() *echoConn {
	return &echoConn{trace: transport.NewTrace(time.Now()), msgs: make(chan transport.Message, 16), probs: make(chan error)}
}

func (e *echoConn) Send(raw []byte) error {
	v := gjson.ParseBytes(raw)
	id := v.Get("id")
	if !id.Exists() || !v.Get("method").Exists() {
		return nil
	}
	var body string
	switch v.Get("method").String() {
	case "initialize":
		body = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"0"}}`
	case "tools/call":
		body = `{"content":[{"type":"text","text":"ok"}]}`
	case "server/discover":
		e.msgs <- transport.Message{Raw: []byte(`{"jsonrpc":"2.0","id":` + id.Raw + `,"error":{"code":-32601,"message":"no"}}`)}
		return nil
	default:
		body = `{}`
	}
	e.msgs <- transport.Message{Raw: []byte(`{"jsonrpc":"2.0","id":` + id.Raw + `,"result":` + body + `}`)}
	return nil
}

func (e *echoConn) Messages() <-chan transport.Message { return e.msgs }
func (e *echoConn) Err() error                         { return nil }
func (e *echoConn) Problems() <-chan error             { return e.probs }
func (e *echoConn) Trace() *transport.Trace            { return e.trace }

// Overhead measures the probe's own cost per tools/call: the round trip
// through its client against a peer that costs nothing.
func Overhead(ctx context.Context, n int) (Stats, error) {
	e := newEcho()
	// Closing the peer's stream ends the session's reader: without it each
	// run left a goroutine behind for the rest of the process.
	defer close(e.msgs)
	cl, err := probe.Connect(ctx, e, probe.Options{Protocol: "2025-11-25", Timeout: time.Second, StartupTimeout: time.Second})
	if err != nil {
		return Stats{}, err
	}
	call := CallFunc(ctx, cl, args.Call{Tool: "echo", Args: []byte(`{"text":"a"}`)}, time.Second)
	return Measure(ctx, Options{N: n, Warmup: n / 10}, call, nil), nil
}
