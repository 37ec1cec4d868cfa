package launch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fe := &probe.FatalError{What: "initialize failed", Err: tc.err}
			explainHTTP(fe, tc.err)
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
	if took := time.Since(t0); took > 3*time.Second {
		t.Errorf("Kill then Stop took %v: the grace period was waited out", took)
	}
	if r.Status != "signal: killed" {
		t.Errorf("Status = %q, want signal: killed", r.Status)
	}
	if again := srv.Stop(); again != r {
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
