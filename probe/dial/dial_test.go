package dial

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
)

// closedPort is a 127.0.0.1 URL nothing listens on: the port was just
// free.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/mcp"
}

// TestOpenExplains: every way a target can fail to give a session ends in
// one *probe.FatalError whose three parts name what happened, what came
// back and what to try.
func TestOpenExplains(t *testing.T) {
	quick := probe.Options{StartupTimeout: 600 * time.Millisecond, DiscoverTimeout: 150 * time.Millisecond}
	tests := []struct {
		name     string
		target   func(t *testing.T) launch.Target
		po       probe.Options
		what     string // in What
		received string // in Received
		try      string // in Try
		asStart  bool   // the cause is a *launch.StartError
	}{
		{"missing binary", func(*testing.T) launch.Target { return launch.Target{Kind: "stdio", Command: "no-such-mcp-server-xyz"} }, probe.Options{},
			`could not start "no-such-mcp-server-xyz"`, "nothing: the process never ran", "it is not on PATH", true},
		{"exits at once", func(t *testing.T) launch.Target { return helperTarget(t, "exit-stderr") }, probe.Options{},
			"the server exited before it answered server/discover (exit status 3)", "stderr: fatal: ORDERS_API_KEY is not set", "run the command by hand to see why it exits", false},
		{"refuses connection", func(t *testing.T) launch.Target { return launch.Target{Kind: "http", URL: closedPort(t)} }, quick,
			"127.0.0.1", "no HTTP response", "check the URL, that the server is running", false},
		{"garbage on stdout", func(t *testing.T) launch.Target { return helperTarget(t, "garbage") }, quick,
			"did not answer initialize", "stdout: Server ready! Listening for requests...", "", false},
		{"silence", func(t *testing.T) launch.Target { return helperTarget(t, "silent") }, quick,
			"did not answer initialize", "nothing on stdout or stderr", "check that it speaks MCP", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{Target: tc.target(t), Launch: launch.Options{Grace: time.Second, Timeout: 2 * time.Second}, Probe: tc.po}
			ss, err := Open(context.Background(), spec)
			if err == nil {
				ss.Close()
				t.Fatal("Open succeeded")
			}
			var fe *probe.FatalError
			if !errors.As(err, &fe) {
				t.Fatalf("Open gave %T %v, want a *probe.FatalError", err, err)
			}
			if !strings.Contains(fe.What, tc.what) {
				t.Errorf("What = %q, want it to hold %q", fe.What, tc.what)
			}
			if !strings.Contains(fe.Received, tc.received) {
				t.Errorf("Received = %q, want it to hold %q", fe.Received, tc.received)
			}
			if fe.Try == "" || !strings.Contains(fe.Try, tc.try) {
				t.Errorf("Try = %q, want it to hold %q", fe.Try, tc.try)
			}
			var se *launch.StartError
			if errors.As(err, &se) != tc.asStart {
				t.Errorf("errors.As(*launch.StartError) = %v, want %v", !tc.asStart, tc.asStart)
			}
		})
	}
}

// TestCloseJudgesTheExit: how a server took being let go is judged with
// the grace it was given, the launcher's default when the spec sets none
// (call used to pass the spec's 0 on, and said "(0s each)").
func TestCloseJudgesTheExit(t *testing.T) {
	ss, err := Start(context.Background(), Spec{Target: helperTarget(t, "ignore-term")})
	if err != nil {
		t.Fatal(err)
	}
	c := &probe.Capture{Trace: ss.Trace()}
	exit := ss.Close()
	if exit.Signal != "SIGKILL" {
		t.Fatalf("Signal = %q, want SIGKILL: the helper ignores stdin closing and SIGTERM", exit.Signal)
	}
	ss.Judge(c, exit, nil)
	var msgs []string
	for _, f := range c.Findings {
		msgs = append(msgs, f.Message)
	}
	want := "the server ignored stdin closing and SIGTERM (" + launch.DefaultGrace.String() + " each)"
	if !strings.Contains(strings.Join(msgs, "\n"), want) {
		t.Errorf("findings %q lack %q", msgs, want)
	}
	if c.Transport != "stdio" || c.Target == "" || !c.Timings.ExitKnown {
		t.Errorf("capture: transport %q, target %q, exit known %v", c.Transport, c.Target, c.Timings.ExitKnown)
	}
}
