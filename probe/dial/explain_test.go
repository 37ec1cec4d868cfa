package dial

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
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
			srv, err := Start(ctx, Spec{Target: helperTarget(t, tc.mode), Launch: launch.Options{Grace: time.Second}, Probe: tc.po})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			err = srv.Connect(ctx)
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			if tc.err != nil {
				err = tc.err(err)
			}
			if tc.stopFirst {
				srv.Close()
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
	srv, err := Start(context.Background(), Spec{Target: helperTarget(t, "silent")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if got := srv.Explain(nil); got != nil {
		t.Errorf("Explain(nil) = %v", got)
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
		{"401 to the OAuth token", &transport.HTTPError{Method: "POST", URL: "/mcp", Status: 401, Why: "the server refused the OAuth token, and the fresh one it was refreshed to once"}, "refreshed to once", "--oauth-scope"},
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
			explainHTTP(transport.NewTrace(time.Now()), fe, tc.err)
			if strings.Contains(fe.Try, "stdio") {
				t.Errorf("an HTTP failure got the stdio Try: %q", fe.Try)
			}
			if !strings.Contains(fe.Received, tc.wantReceived) || !strings.Contains(fe.Try, tc.wantTry) {
				t.Errorf("Received %q, Try %q; want %q and %q", fe.Received, fe.Try, tc.wantReceived, tc.wantTry)
			}
		})
	}
}

// TestProbeExplains: Probe returns the capture with an explained error.
func TestProbeExplains(t *testing.T) {
	c, err := Probe(context.Background(), Spec{Target: helperTarget(t, "exit-stderr")})
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

func TestEnvNote(t *testing.T) {
	if envNote(launch.Target{Command: "node"}, nil, nil) != "" {
		t.Errorf("a note with nothing dropped")
	}
	got := envNote(launch.Target{Command: "node"}, []string{"NODE_OPTIONS", "SSH_AUTH_SOCK"}, nil)
	for _, want := range []string{"mcpprobe passed only " + strings.Join(launch.HostInherited(), ", ") + " and --env, as the TypeScript SDK's stdio client does",
		"rerun with --inherit-env", "(not passed: NODE_OPTIONS)"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "SSH_AUTH_SOCK") {
		t.Errorf("%q names a variable unrelated to the server", got)
	}
	if got := envNote(launch.Target{Command: "x", Name: "orders"}, []string{"A"}, nil); !strings.Contains(got, "the config's env and --env") {
		t.Errorf("config target: %q", got)
	}
}
