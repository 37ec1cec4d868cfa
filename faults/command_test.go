package faults

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/tidwall/gjson"
)

// mcpServer is the test binary as a small MCP server (MCPPROBE_MCP=1), so
// that Run is tested in process, without the CLI. Its environment makes
// it misbehave:
//   - MCPPROBE_LOCK=FILE: refuse to start while FILE exists, as a server
//     with a stale lock does; a clean exit removes it, a kill leaves it;
//   - MCPPROBE_IGNORE_TERM=1: ignore SIGTERM;
//   - MCPPROBE_NO_READONLY=1: annotate no tool read-only;
//   - MCPPROBE_EXIT=1: say why on stderr and exit at once;
//   - MCPPROBE_CALL_ERROR=1: answer every tools/call with a JSON-RPC error;
//   - MCPPROBE_LOG=1: write a log line on stdout after each tools/call reply.
func mcpServer() {
	if os.Getenv("MCPPROBE_EXIT") == "1" {
		fmt.Fprintln(os.Stderr, "fatal: API_KEY is not set")
		os.Exit(3)
	}
	if lock := os.Getenv("MCPPROBE_LOCK"); lock != "" {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lock held: "+lock)
			os.Exit(1)
		}
		f.Close()
		defer os.Remove(lock)
	}
	if os.Getenv("MCPPROBE_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	readOnly := `,"annotations":{"readOnlyHint":true}`
	if os.Getenv("MCPPROBE_NO_READONLY") == "1" {
		readOnly = ""
	}
	reply := func(id, result string) { fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result) }
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		v := gjson.ParseBytes(in.Bytes())
		id := v.Get("id").Raw
		switch v.Get("method").String() {
		case "initialize":
			reply(id, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}`)
		case "tools/list":
			reply(id, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}`+readOnly+`},{"name":"write","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			if os.Getenv("MCPPROBE_CALL_ERROR") == "1" {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"backend unavailable"}}`+"\n", id)
			} else {
				reply(id, `{"content":[{"type":"text","text":"ok"}]}`)
			}
			if os.Getenv("MCPPROBE_LOG") == "1" {
				fmt.Println("[log] handled a call")
			}
		default:
			if id != "" {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`+"\n", id)
			}
		}
	}
}

// mcpSpec runs this test binary as the server. GORACE: built with -race,
// a binary sleeps a second as it exits (atexit_sleep_ms), past the 300 ms
// grace, and every run would find it ignoring the close of its stdin.
func mcpSpec(env ...string) dial.Spec {
	exe, _ := os.Executable()
	return dial.Spec{
		Target: launch.Target{Kind: "stdio", Command: exe, Env: append([]string{"MCPPROBE_MCP=1", "GORACE=atexit_sleep_ms=0"}, env...)},
		Launch: launch.Options{Grace: 300 * time.Millisecond},
		Probe:  probe.Options{Protocol: "2025-06-18", Timeout: 2 * time.Second, StartupTimeout: 5 * time.Second, DiscoverTimeout: time.Second},
	}
}

func outcomesOf(r ClientRun) string {
	var out []string
	for _, c := range r.Calls {
		o := c.Outcome
		if c.Retried {
			o += "(r)"
		}
		out = append(out, o)
	}
	return strings.Join(out, " ")
}

func codesOf(fs []findings.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code.String())
	}
	return strings.Join(out, " ")
}

// runCase is one Run and what it must give.
type runCase struct {
	name     string
	o        Options
	runs     []string // outcomes per run, in policy order
	shutdown bool
	findings string
	check    func(t *testing.T, r *Result)
}

// Run, in process: the calls it picks, one run per policy, the shutdown,
// and the findings, on a server that behaves and on ones that do not.
func TestRun(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "lock")
	tests := []runCase{
		{name: "crash with a restart recovers",
			o:    Options{Spec: mcpSpec(), Plan: mustPlan(t, Values{"crash-at": "2"}), N: 3, Restart: true},
			runs: []string{"ok ok(r) ok"}, shutdown: true,
			check: func(t *testing.T, r *Result) {
				if r.Runs[0].Restarts != 1 || !r.Runs[0].Failures[0].Recovered || r.ProtocolVersion != "2025-06-18" || r.Plan != "crash at call 2" {
					t.Errorf("result %+v", r)
				}
				// The retried call's time is the whole wait: the first
				// attempt, the restart it waited for, the retry.
				first, retried := r.Runs[0].Calls[0], r.Runs[0].Calls[1]
				f := r.Runs[0].Failures[0]
				if !retried.Retried || retried.RestartMs <= 0 || retried.Ms < retried.RestartMs+f.DetectedMs || first.RestartMs != 0 {
					t.Errorf("retried call %+v (failure detected after %.1f ms), first call %+v", retried, f.DetectedMs, first)
				}
			}},
		{name: "every client policy, in order",
			o: Options{Spec: withTimeout(mcpSpec(), "300ms"), Plan: mustPlan(t, Values{"pollute": "partial", "pollute-at": "2"}), N: 3, Policies: Policies,
				Calls: []Call{{Tool: "write"}}},
			runs: []string{"ok timeout ok", "ok closed not_connected", "ok timeout ok", "ok timeout ok"}, shutdown: true,
			check: func(t *testing.T, r *Result) {
				for i, p := range Policies {
					if r.Runs[i].Policy != p || r.Runs[i].Calls[0].Tool != "write" {
						t.Errorf("run %d: policy %s, tool %s", i, r.Runs[i].Policy, r.Runs[i].Calls[0].Tool)
					}
				}
			}},
		{name: "SIGTERM ignored is a finding",
			o:    Options{Spec: mcpSpec("MCPPROBE_IGNORE_TERM=1"), N: 1},
			runs: []string{"ok"}, shutdown: true, findings: "ignores-sigterm"},
		{name: "a restart that does not bring the server back is a finding",
			o:    Options{Spec: mcpSpec("MCPPROBE_LOCK=" + lock), Plan: mustPlan(t, Values{"crash-at": "2"}), N: 3, Restart: true},
			runs: []string{"ok closed not_connected"}, findings: "restart-failed",
			check: func(t *testing.T, r *Result) {
				if f := r.Runs[0].Failures[0]; !strings.Contains(f.RestartError, "lock held") {
					t.Errorf("restart error %q says nothing of what the server wrote", f.RestartError)
				}
			}},
	}
	tests = append(tests, recoveryCases(t)...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), loadfactor.Scale(60*time.Second))
			defer cancel()
			r, err := Run(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Runs) != len(tc.runs) {
				t.Fatalf("%d runs, want %d", len(r.Runs), len(tc.runs))
			}
			for i, want := range tc.runs {
				if got := outcomesOf(r.Runs[i]); got != want {
					t.Errorf("run %d (%s): %q, want %q", i, r.Runs[i].Policy, got, want)
				}
			}
			if (r.Shutdown != nil) != tc.shutdown {
				t.Errorf("shutdown %+v, want measured: %v", r.Shutdown, tc.shutdown)
			}
			if got := codesOf(r.Findings()); got != tc.findings {
				t.Errorf("findings %q, want %q", got, tc.findings)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// What cannot be run is said as the CLI needs it: an option error (exit
// 2) for what the user asked, a fatal error with what was received (exit
// 3) for a server that cannot be probed.
func TestRunRefuses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), loadfactor.Scale(30*time.Second))
	defer cancel()
	var oe *probe.OptionError
	if _, err := Run(ctx, Options{Spec: mcpSpec("MCPPROBE_NO_READONLY=1"), N: 1}); !errors.Is(err, ErrNoCall) || !errors.As(err, &oe) {
		t.Errorf("no read-only tool: %v", err)
	}
	if _, err := Scenarios(ctx, ScenarioOptions{Spec: mcpSpec("MCPPROBE_NO_READONLY=1")}); !errors.Is(err, ErrNoCall) {
		t.Errorf("scenarios, no read-only tool: %v", err)
	}
	if _, err := Run(ctx, Options{Spec: mcpSpec(), N: 1, Calls: []Call{{Tool: "nope"}}}); !errors.As(err, &oe) || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := Run(ctx, Options{Spec: mcpSpec(), N: 1, Plan: mustPlan(t, Values{"split": "true"})}); !errors.As(err, &oe) || !strings.Contains(err.Error(), "acts only in mcpprobe proxy") {
		t.Errorf("a proxy-only fault: %v", err)
	}
	var fe *probe.FatalError
	if _, err := Run(ctx, Options{Spec: mcpSpec("MCPPROBE_EXIT=1"), N: 1}); !errors.As(err, &fe) || !strings.Contains(fe.Received, "API_KEY is not set") {
		t.Errorf("a server that exits at startup: %v", err)
	}
}

func TestShutdownFindings(t *testing.T) {
	for _, tc := range []struct {
		sd   Shutdown
		want string
	}{
		{Shutdown{SigtermExited: true}, ""},
		{Shutdown{StdinCloseSignal: "SIGTERM", SigtermExited: true}, "ignores-stdin-close"},
		{Shutdown{StdinCloseSignal: "SIGKILL"}, "needs-sigkill"}, // SIGTERM ignored too: said once
		{Shutdown{}, "ignores-sigterm"},
		{Shutdown{StdinCloseSignal: "SIGTERM"}, "ignores-stdin-close ignores-sigterm"},
	} {
		if got := codesOf(tc.sd.Findings(time.Second)); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.sd, got, tc.want)
		}
	}
}

func TestRestartFindings(t *testing.T) {
	runs := []ClientRun{
		{Failures: []Failure{{Call: 2, RestartError: "lock held"}, {Call: 3, RestartError: "lock held"}}},
		{Failures: []Failure{{Call: 1, Recovered: true}, {Call: 0, RestartError: "exited (exit status 1)"}}},
	}
	fs := restartFindings(runs)
	if len(fs) != 2 || !strings.Contains(fs[0].Message, "after call 2") || !strings.Contains(fs[1].Message, "after its handshake failed") {
		t.Errorf("findings %v: want one per distinct cause", fs)
	}
}

// The report's scenarios are fixed: each parses, and the proxy-only
// faults are not among them.
func TestScenariosParse(t *testing.T) {
	for _, sc := range scenarios() {
		p, err := ParsePlan(sc.faults.Get, 1)
		if err == nil {
			err = p.Check(InShim)
		}
		if err != nil || p.Empty() {
			t.Errorf("%s: %v", sc.name, err)
		}
	}
}
