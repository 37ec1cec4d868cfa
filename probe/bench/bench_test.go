package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/tidwall/gjson"
)

// TestMain doubles as a trivial stdio echo server (MCPPROBE_ECHO=1), so
// the stdio benchmark needs no build step.
func TestMain(m *testing.M) {
	if os.Getenv("MCPPROBE_ECHO") == "1" {
		echoServer()
		return
	}
	os.Exit(m.Run())
}

func echoServer() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		v := gjson.ParseBytes(in.Bytes())
		if !v.Get("id").Exists() {
			continue
		}
		body := `{}`
		switch v.Get("method").String() {
		case "initialize":
			body = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"0"}}`
		case "server/discover":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", v.Get("id").Raw)
			out.Flush()
			continue
		case "tools/call":
			body = `{"content":[{"type":"text","text":"ok"}]}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", v.Get("id").Raw, body)
		out.Flush()
	}
}

func TestOverheadIsMeasured(t *testing.T) {
	s, err := Overhead(context.Background(), 200)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 200 || s.Errors != 0 || s.P50 <= 0 {
		t.Errorf("overhead stats: n %d errors %d p50 %v", s.N, s.Errors, s.P50)
	}
}

// BenchmarkRoundTrip is the probe's own cost per call: client encode,
// id matching and dispatch, against an in-process peer.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	cl, err := probe.Connect(ctx, newEcho(), probe.Options{Protocol: "2025-11-25", Timeout: time.Second, StartupTimeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cl.CallTool(ctx, "echo", []byte(`{"text":"a"}`), time.Second); err != nil {
			b.Fatal(err)
		}
	}
}

// stdioEcho is a client of a trivial stdio server (this test binary),
// stopped when b ends.
func stdioEcho(b *testing.B) *probe.Client {
	ctx := context.Background()
	exe, _ := os.Executable()
	srv, err := launch.Start(ctx, launch.Target{Kind: "stdio", Command: exe, Env: []string{"MCPPROBE_ECHO=1"}}, launch.Options{Grace: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Stop() })
	cl, err := probe.Connect(ctx, srv.Conn(), probe.Options{Protocol: "2025-11-25", Timeout: 5 * time.Second, StartupTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return cl
}

// BenchmarkStdioRoundTrip is a whole tools/call over stdio: pipes, line
// framing, tracing, and a trivial server (this test binary). Its p50 is
// the round trip; the server's share is a read, a parse and a write.
func BenchmarkStdioRoundTrip(b *testing.B) {
	ctx := context.Background()
	cl := stdioEcho(b)
	samples := make([]int64, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := cl.CallTool(ctx, "echo", []byte(`{"text":"a"}`), 5*time.Second); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, int64(time.Since(t0)))
	}
	b.StopTimer()
	s := Summarize(samples)
	b.ReportMetric(s.P50/1e3, "p50-µs")
	b.ReportMetric(s.P99/1e3, "p99-µs")
}

// BenchmarkStdioChain is BenchmarkStdioRoundTrip as bench's closed loop
// makes it (Op.Chain: each call sent from the stdout reader).
func BenchmarkStdioChain(b *testing.B) {
	ctx := context.Background()
	cl := stdioEcho(b)
	op := CallFunc(ctx, cl, args.Call{Tool: "echo", Args: []byte(`{"text":"a"}`)}, 5*time.Second)
	if op.Chain == nil {
		b.Fatal("a stdio client cannot chain")
	}
	samples := make([]int64, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	_ = op.Chain(b.N, nil, func(d time.Duration, failed bool, err error) bool {
		if failed {
			b.Error(err)
			return false
		}
		samples = append(samples, int64(d))
		return true
	})
	b.StopTimer()
	s := Summarize(samples)
	b.ReportMetric(s.P50/1e3, "p50-µs")
	b.ReportMetric(s.P99/1e3, "p99-µs")
}

// Overhead's in-process peer must not outlive the run: a bubble fails when
// a goroutine it started is still blocked at its end.
func TestOverheadLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if _, err := Overhead(context.Background(), 5); err != nil {
			t.Fatal(err)
		}
	})
}
