package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func TestOptionsCheck(t *testing.T) {
	ok := Options{N: 10, Concurrency: 1}
	tests := []struct {
		name string
		edit func(*Options)
		want string // in the error; "" for none
	}{
		{"defaults", func(*Options) {}, ""},
		{"negative n", func(o *Options) { o.N = -1 }, "-n, --warmup and --startup"},
		{"negative startup", func(o *Options) { o.Startup = -1 }, "-n, --warmup and --startup"},
		{"no concurrency", func(o *Options) { o.Concurrency = 0 }, "--concurrency"},
		{"rate too high", func(o *Options) { o.Rate = 2e6 }, "--rate"},
		{"rate with concurrency", func(o *Options) { o.Rate, o.Concurrency = 10, 4 }, "--rate and --concurrency 4 conflict"},
		{"rate alone", func(o *Options) { o.Rate = 10 }, ""},
		{"vs with rate", func(o *Options) { o.Vs, o.Rate = &dial.Spec{}, 10 }, "--vs"},
		{"vs with concurrency", func(o *Options) { o.Vs, o.Concurrency = &dial.Spec{}, 2 }, "--vs"},
		{"negative duration", func(o *Options) { o.Duration = -time.Second }, "--duration"},
	}
	for _, tc := range tests {
		o := ok
		tc.edit(&o)
		err := o.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		case err != nil:
			if _, isOption := err.(*probe.OptionError); !isOption {
				t.Errorf("%s: %T, want *probe.OptionError (exit 2)", tc.name, err)
			}
		}
	}
}

func TestResultFindings(t *testing.T) {
	slow := Series{Name: "call echo", Tool: "echo", Stats: Stats{N: 10, P50: 1e6, First: 5e6, FirstSlow: true}}
	timedOut := Series{Name: "ping", Stats: Stats{N: 8, P50: 1e6, Timeouts: 2}}
	fine := Series{Name: "call sleep", Tool: "sleep", Stats: Stats{N: 10, P50: 1e6, First: 1e6}}
	failing := Series{Name: "call fail", Tool: "fail", Stats: Stats{N: 10, P50: 1e6, Errors: 3, FirstError: "JSON-RPC error -32603: down"}}
	allFail := Series{Name: "call fail", Tool: "fail", Stats: Stats{N: 8, P50: 1e6, Errors: 8, Timeouts: 2, FirstError: "an isError result: no"}}
	badStarts := Series{Name: "startup: spawn → handshake", Rounds: 4, Stats: Stats{N: 4, Errors: 1, FirstError: "the server exited"}}
	tests := []struct {
		name string
		r    Result
		want []string // code|tool|message fragment
	}{
		{"nothing to say", Result{A: Side{Calls: []Series{fine}}}, nil},
		{"a cold first call, about its tool", Result{A: Side{Calls: []Series{slow, fine}}},
			[]string{"cold-start|echo|the first call echo took 5ms, over 3× its p50 (1ms)"}},
		{"timeouts counted out of all calls", Result{A: Side{Ping: &timedOut}},
			[]string{"call-timeout||ping: 2 of 10 call(s) timed out"}},
		{"some calls failed: how many, and the first error", Result{A: Side{Calls: []Series{failing}}},
			[]string{"call-errors|fail|call fail: 3 of 10 calls failed; the first error: JSON-RPC error -32603: down"}},
		{"every call failed: the error path was timed", Result{A: Side{Calls: []Series{allFail}}},
			[]string{"call-timeout|fail|", "call-errors|fail|call fail: every call failed (8 of 10): the figures time the error path, not the work; the first error: an isError result: no"}},
		{"a start that failed", Result{A: Side{Startup: []Series{badStarts}}},
			[]string{"call-errors||startup: spawn → handshake: 1 of 5 starts failed; the first error: the server exited"}},
		{"B's findings name it", Result{A: Side{}, B: &Side{Target: "./b", Calls: []Series{slow}}},
			[]string{"cold-start|echo|--vs ./b: the first call echo"}},
		{"a host deadline exceeded, not one met", Result{Deadlines: []Deadline{
			{Host: "Codex CLI", Deadline: 10 * time.Second, Series: "startup: spawn → handshake", Max: 12e9, Exceeded: true},
			{Host: "Other", Deadline: 20 * time.Second, Series: "startup: spawn → handshake", Max: 12e9},
		}}, []string{"startup-over-deadline||Codex CLI gives up on initialize after 10s; the slowest start (startup: spawn → handshake) took 12s"}},
	}
	for _, tc := range tests {
		fs := tc.r.Findings()
		if len(fs) != len(tc.want) {
			t.Errorf("%s: %d findings %v, want %d", tc.name, len(fs), fs, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			parts := strings.SplitN(w, "|", 3)
			f := fs[i]
			if f.Code.String() != parts[0] || f.Tool != parts[1] || !strings.Contains(f.Message, parts[2]) || f.Severity != findings.Warning {
				t.Errorf("%s: finding %+v, want %s", tc.name, f, w)
			}
		}
	}
}

func TestDeadlines(t *testing.T) {
	hosts := []hosts.Host{{Name: "none"}, {Name: "slow host", InitializeDeadlineMs: 10000}, {Name: "fast host", InitializeDeadlineMs: 1}}
	startup := []Series{
		{Name: "startup: spawn → first byte", Stats: Stats{Max: 5e6}},
		{Name: "startup: spawn → handshake", Stats: Stats{Max: 2e6}},
	}
	got := deadlines(hosts, startup)
	if len(got) != 2 {
		t.Fatalf("%d deadlines, want one per host that has one: %+v", len(got), got)
	}
	if got[0].Host != "slow host" || got[0].Exceeded || got[0].Max != 2e6 || got[0].Series != "startup: spawn → handshake" {
		t.Errorf("slow host: %+v", got[0])
	}
	if got[1].Host != "fast host" || !got[1].Exceeded || got[1].Deadline != time.Millisecond {
		t.Errorf("fast host: %+v", got[1])
	}
	if d := deadlines(hosts, nil); d != nil {
		t.Errorf("no startup series, yet deadlines %+v", d)
	}
}

// Progress reports running totals that only grow, and ends with every
// step done.
func TestProgressCounter(t *testing.T) {
	var calls [][2]int
	c := &counter{report: func(done, total int) { calls = append(calls, [2]int{done, total}) }}
	c.add(2)
	c.step()
	c.step()
	c.add(1)
	c.step()
	want := [][2]int{{1, 2}, {2, 2}, {3, 3}}
	if len(calls) != len(want) {
		t.Fatalf("calls %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Fatalf("calls %v, want %v", calls, want)
		}
	}
	(&counter{}).step() // no callback: nothing to call
}
