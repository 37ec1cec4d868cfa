package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/transport"
)

// TestExplain: a failure after start says what happened, what was received
// (the exit status, stray stdout, the last stderr lines) and what to try,
// whether it is explained before the server is stopped or after.
func TestExplain(t *testing.T) {
	quick := probe.Options{StartupTimeout: 400 * time.Millisecond, DiscoverTimeout: 100 * time.Millisecond}
	tests := []struct {
		name      string
		mode      string
		po        probe.Options
		stopFirst bool
		err       func(connect error) error // the error to explain; nil: Connect's
		want      []string                  // in the message
		wantNot   []string
	}{
		{"exits at startup, explained while it runs", "exit-stderr", probe.Options{}, false, nil,
			[]string{"the server exited before it answered server/discover (exit status 3)",
				"\nReceived: stdout: listening on stdio\n  stderr: fatal: ORDERS_API_KEY is not set",
				"\nTry: run the command by hand to see why it exits"},
			[]string{"closed its output"}},
		{"exits at startup, explained after Stop", "exit-stderr", probe.Options{}, true, nil,
			[]string{"the server exited before it answered server/discover (exit status 3)",
				"stderr: fatal: ORDERS_API_KEY is not set", "\nTry: run the command by hand"},
			nil},
		{"never answers", "silent", quick, true, nil,
			[]string{"did not answer initialize", "\nReceived: nothing on stdout or stderr", "\nTry: check that it speaks MCP"},
			[]string{"exit status", "exited"}},
		// It did answer, with ids of its own: "nothing" would be a lie.
		{"answers with string ids", "string-id", quick, true, nil,
			[]string{"did not answer initialize", "\nReceived: stdout: {\"jsonrpc\":\"2.0\",\"id\":\"1\"", `a response with id "1", a string`, "\nTry: "},
			[]string{"nothing on stdout"}},
		// Stopped by mcpprobe while a request waited: no exit of its own.
		{"stopped by mcpprobe", "ignore-term", quick, true,
			func(error) error { return &probe.ClosedError{Method: "tools/call"} },
			[]string{"the server was stopped: SIGKILL sent by mcpprobe", "\nTry: "},
			[]string{"exited", "(signal: killed)"}},
		{"any later failure gets the three parts", "exit-stderr", probe.Options{}, true,
			func(error) error { return errors.New("tools/call failed") },
			[]string{"tools/call failed (exit status 3)", "stderr: fatal: ORDERS_API_KEY is not set", "\nTry: run the command by hand"},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			srv, err := Start(ctx, helperTarget(t, tc.mode), Options{Grace: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop()
			_, err = probe.Connect(ctx, srv.Conn(), tc.po)
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			if tc.err != nil {
				err = tc.err(err)
			}
			if tc.stopFirst {
				srv.Stop()
			}
			got := srv.Explain(err)
			var fe *probe.FatalError
			if !errors.As(got, &fe) {
				t.Fatalf("Explain gave %T, want a *probe.FatalError", got)
			}
			msg := got.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(msg, w) {
					t.Errorf("message has %q:\n%s", w, msg)
				}
			}
			if again := srv.Explain(got); again.Error() != msg {
				t.Errorf("explaining twice changed the message:\n%s\nthen\n%s", msg, again)
			}
			cause := err
			var fe0 *probe.FatalError
			if errors.As(err, &fe0) {
				cause = fe0.Err
			}
			if cause != nil && !errors.Is(got, cause) {
				t.Errorf("the explanation lost its cause %v", cause)
			}
		})
	}
}

func TestExplainNil(t *testing.T) {
	srv, err := Start(context.Background(), helperTarget(t, "silent"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if got := srv.Explain(nil); got != nil {
		t.Errorf("Explain(nil) = %v", got)
	}
}

func TestStartFailures(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		target  Target
		want    []string
		asStart bool
	}{
		{"not on PATH", context.Background(), Target{Kind: "stdio", Command: "no-such-mcp-server-xyz"},
			[]string{`could not start "no-such-mcp-server-xyz"`, "\nReceived: nothing: the process never ran", "\nTry: it is not on PATH"}, true},
		{"not a URL", context.Background(), Target{Kind: "http", URL: "ftp://x/mcp"},
			[]string{"is not an http(s) URL", "\nTry: give a URL such as https://host/mcp"}, false},
		{"cancelled", cancelled, Target{Kind: "stdio", Command: "sh"}, []string{"context canceled"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Start(tc.ctx, tc.target, Options{})
			if err == nil {
				srv.Stop()
				t.Fatal("started")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			var se *StartError
			if errors.As(err, &se) != tc.asStart {
				t.Errorf("errors.As(*StartError) = %v, want %v", !tc.asStart, tc.asStart)
			}
		})
	}
}

func TestExplainHTTP(t *testing.T) {
	tests := []struct {
		name         string
		err          error
		wantReceived string
		wantTry      string
	}{
		{"unreachable", &transport.ConnError{URL: "http://127.0.0.1:1/mcp", Err: errors.New("connection refused")},
			"no HTTP response", "check the URL, that the server is running"},
		{"401", &transport.HTTPError{Method: "POST", URL: "/mcp", Status: 401}, "HTTP 401", "give credentials"},
		{"404", &transport.HTTPError{Method: "POST", URL: "/mcp", Status: 404}, "HTTP 404", "check the path"},
		{"406", &transport.HTTPError{Method: "POST", URL: "/mcp", Status: 406}, "HTTP 406", "this is a server bug"},
		{"compressed", &transport.HTTPError{Method: "POST", URL: "/mcp", Status: 200, Why: "the body is compressed"}, "compressed", "not to compress"},
		{"500", &transport.HTTPError{Method: "POST", URL: "/mcp", Status: 500}, "HTTP 500", "the server's logs"},
		// A failure with nothing HTTP about it still gets an HTTP Try,
		// never the stdio one the probe wrote for a command.
		{"timeout", &probe.TimeoutError{Method: "initialize", After: time.Second}, "no HTTP answer", "the server's MCP endpoint"},
		{"stream ended", &probe.ClosedError{Method: "initialize"}, "no HTTP answer", "ended the response"},
		{"too much", fmt.Errorf("%w: x", transport.ErrTooMuch), "no HTTP answer", "raise --max-bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fe := &probe.FatalError{What: "initialize failed", Err: tc.err,
				Try: "check that it speaks MCP over stdio on stdout (not HTTP, not stderr)"}
			srv := &Server{trace: transport.NewTrace(time.Now())}
			srv.explainHTTP(fe, tc.err)
			if strings.Contains(fe.Try, "stdio") {
				t.Errorf("an HTTP failure got the stdio Try: %q", fe.Try)
			}
			if !strings.Contains(fe.Received, tc.wantReceived) || !strings.Contains(fe.Try, tc.wantTry) {
				t.Errorf("Received %q, Try %q; want %q and %q", fe.Received, fe.Try, tc.wantReceived, tc.wantTry)
			}
		})
	}
}

// TestServerKillAndStop: Kill is a crash (SIGKILL, no grace), Stop after
// it reaps and reports, and Stop is idempotent.
func TestServerKillAndStop(t *testing.T) {
	srv, err := Start(context.Background(), helperTarget(t, "ignore-term"), Options{Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	srv.Kill()
	r := srv.Stop()
	if took := time.Since(t0); took > loadfactor.Scale(3*time.Second) {
		t.Errorf("Kill then Stop took %v: the grace period was waited out", took)
	}
	if r.Status != "signal: killed" {
		t.Errorf("Status = %q, want signal: killed", r.Status)
	}
	if r.StoppedBy != "SIGKILL sent by mcpprobe to crash it" {
		t.Errorf("StoppedBy = %q: the kill was ours", r.StoppedBy)
	}
	if again := srv.Stop(); !reflect.DeepEqual(again, r) {
		t.Errorf("a second Stop gave %+v, want %+v", again, r)
	}
	if err := srv.Conn().Send([]byte(`{}`)); err == nil {
		t.Error("Send after Stop succeeded")
	}
}

// TestProbeExplains: Probe returns the capture with an explained error.
func TestProbeExplains(t *testing.T) {
	c, err := Probe(context.Background(), helperTarget(t, "exit-stderr"), Options{}, probe.Options{})
	if err == nil || c == nil {
		t.Fatalf("capture %v, err %v: want both", c, err)
	}
	if !strings.Contains(err.Error(), "stderr: fatal: ORDERS_API_KEY is not set") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("err = %v", err)
	}
	if c.Transport != "stdio" || c.Target == "" || c.Timings.ExitKnown {
		t.Errorf("capture: transport %q target %q exit known %v", c.Transport, c.Target, c.Timings.ExitKnown)
	}
}

// Servers started with a Recorder each get a trace of their own, numbered
// in start order, all streamed to the one writer.
func TestStartRecords(t *testing.T) {
	var buf strings.Builder
	rec := transport.NewRecorder(&lockedWriter{w: &buf}, nil)
	ctx := context.Background()
	var srvs []*Server
	for range 2 {
		srv, err := Start(ctx, helperTarget(t, "clean"), Options{Grace: time.Second, Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		srvs = append(srvs, srv)
	}
	for i, srv := range srvs {
		if err := srv.Conn().Send([]byte(fmt.Sprintf(`{"n":%d}`, i+1))); err != nil {
			t.Fatal(err)
		}
		srv.Stop()
	}
	if srvs[0].Trace() == srvs[1].Trace() {
		t.Fatal("two servers share a trace")
	}
	for i, srv := range srvs {
		var sends []string
		for _, f := range srv.Trace().Frames() {
			if f.Conn != i+1 {
				t.Errorf("server %d: a frame of connection %d", i+1, f.Conn)
			}
			if f.Dir == transport.DirSend {
				sends = append(sends, string(f.Raw))
			}
		}
		if want := fmt.Sprintf(`{"n":%d}`, i+1); len(sends) != 1 || sends[0] != want {
			t.Errorf("server %d's trace sends %q, want only %s", i+1, sends, want)
		}
	}
	frames, err := transport.ReadTrace(strings.NewReader(buf.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := transport.SplitConns(frames)
	if len(conns) != 2 || conns[0][0].Conn != 1 || conns[1][0].Conn != 2 {
		t.Fatalf("the file holds %d connections:\n%s", len(conns), buf.String())
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A replay of several connections plays one per Start, in order, shared
// by copies of the target, and says so when it runs out.
func TestReplayTargetConnections(t *testing.T) {
	ask := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	var frames []transport.Frame
	for c := 1; c <= 2; c++ {
		frames = append(frames,
			transport.Frame{Conn: c, Dir: transport.DirSend, Raw: []byte(ask)},
			transport.Frame{Conn: c, Dir: transport.DirRecv, Raw: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"conn":%d}}`, c))})
	}
	a := ReplayTarget("rec", frames)
	b := a // a copy, as bench --vs makes for its second target
	ctx := context.Background()
	for i, tgt := range []Target{a, b} {
		srv, err := Start(ctx, tgt, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Conn().Send([]byte(ask)); err != nil {
			t.Fatal(err)
		}
		got := string((<-srv.Conn().Messages()).Raw)
		if want := fmt.Sprintf(`"result":{"conn":%d}`, i+1); !strings.Contains(got, want) {
			t.Errorf("start %d played %s, want connection %d", i+1, got, i+1)
		}
		srv.Stop()
	}
	_, err := Start(ctx, a, Options{})
	var fe *probe.FatalError
	if !errors.As(err, &fe) || !strings.Contains(fe.What, "holds 2 connection(s), and connection 3 was started") {
		t.Errorf("a third start: %v", err)
	}
}
