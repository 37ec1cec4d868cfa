package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

func benchResult() *bench.Result {
	s := func(name, tool string, samples ...int64) bench.Series {
		return bench.Series{Name: name, Tool: tool, Stats: bench.Summarize(samples), Rounds: 1}
	}
	slow := s("call echo", "echo", 1e6, 1e6, 1e6, 1e6, 1e6, 1e6)
	slow.First, slow.FirstSlow = 90e6, true
	fail := s("call fail", "fail", 1000, 1000)
	fail.Args = []byte(`{}`)
	fail.Errors, fail.FirstError = 2, "JSON-RPC error -32603: no \x1b[31mbackend\x1b[0m"
	ping := s("ping", "", 500, 600)
	ping.Timeouts = 3
	call := slow
	call.Args = []byte(`{"text":"a"}`)
	return &bench.Result{
		A: bench.Side{Target: "./a", Protocol: "2025-11-25", Mode: "closed loop, one call in flight",
			Startup: []bench.Series{s("startup: spawn → handshake", "", 2e6, 3e6)},
			Ping:    &ping, Calls: []bench.Series{call, fail}, Skipped: []string{"write (not annotated readOnlyHint)"}},
		B: &bench.Side{Target: "./b", Protocol: "2025-06-18", Mode: "closed, interleaved with A",
			Startup: []bench.Series{s("startup: spawn → handshake", "", 2e6)}},
		Compared: []bench.Comparison{{Name: "call echo", Ratio: 1.5, Low: 1.2, High: 1.8, P: 0.001, Significant: true, Rounds: 10},
			{Name: "ping", Ratio: 1, Low: 0.9, High: 1.1, P: 0.4, Rounds: 10}},
		Overhead: bench.Summarize([]int64{100, 200}),
		Deadlines: []bench.Deadline{
			{Host: "Codex CLI", Deadline: 10 * time.Second, Series: "startup: spawn → handshake", Max: 3e6},
			{Host: "Quick", Deadline: time.Millisecond, Series: "startup: spawn → handshake", Max: 3e6, Exceeded: true},
		},
	}
}

func TestBenchText(t *testing.T) {
	r := benchResult()
	for _, st := range []terminal.Style{terminal.Terminal, terminal.Markdown} {
		var b bytes.Buffer
		Bench(&b, st, r)
		out := b.String()
		// The report names the target at its top: its latency section
		// lists the protocol and the overhead, each its own item.
		head := "./a · protocol 2025-11-25 · closed loop, one call in flight\n"
		if st == terminal.Markdown {
			head = "- protocol 2025-11-25 · closed loop, one call in flight\n- client cost: "
		}
		want := []string{
			head,
			"client cost: 150 ns p50 per call",
			"Codex CLI gives up on initialize after 10.00 s: startup max 3.00 ms is within it.",
			"Quick gives up on initialize after 1.00 ms: startup max 3.00 ms is over it: that host gives up on the slowest start.",
			"warning: the first call echo took 90.00 ms, over 3× its p50 (1.00 ms) and over 50 ms: a cold start a host will feel.",
			"warning: ping: 3 call(s) timed out (not in the figures above).",
			`warning: call fail: every call failed (2 of 2): the figures time the error path, not the work; the first error: JSON-RPC error -32603: no \x1b[31mbackend\x1b[0m.`,
			"not called: write (not annotated readOnlyHint)",
			"B/A: B = ./b, A = ./a",
			"1.50× [1.20, 1.80], p=0.001",
			"~ (no significant difference: 1.00× [0.90, 1.10], p=0.40)",
			"90.00 ms (slow)",
			"B: ./b · protocol 2025-06-18 · the same rounds",
		}
		if st == terminal.Markdown {
			want = append(want, "- Codex CLI gives up", "call echo (n=6):\n\n```text\n")
		}
		for _, w := range want {
			if st == terminal.Markdown {
				// Markdown shows the same text, an ANSI sequence's "["
				// escaped so that it makes no link.
				w = strings.ReplaceAll(w, `\x1b[`, `\x1b\[`)
			}
			if !strings.Contains(out, w) {
				t.Errorf("style %v lacks %q in:\n%s", st, w, out)
			}
		}
		if st == terminal.Terminal && strings.Contains(out, "```") {
			t.Errorf("terminal text has markdown histograms")
		}
	}
}

// The section validates against the schema, and the schema is tight
// enough to reject a section that lost or retyped a key (malformed's:
// malformed_test.go).
func TestBenchSectionValidates(t *testing.T) {
	r := benchResult()
	alone := *r
	alone.B, alone.Compared = nil, nil
	tests := []struct {
		name    string
		command string
		section []byte
		ok      bool
	}{
		{"bench with --vs", "bench", BenchJSON(r), true},
		{"bench alone", "bench", BenchJSON(&alone), true},
		{"bench, nothing measured", "bench", BenchJSON(&bench.Result{}), true},
		{"bench without calls", "bench", bytes.Replace(BenchJSON(&alone), []byte(`"calls":`), []byte(`"callz":`), 1), false},
		{"bench with a string count", "bench", bytes.Replace(BenchJSON(&alone), []byte(`"n":2,`), []byte(`"n":"2",`), 1), false},
	}
	for _, tc := range tests {
		out := jsonout.Envelope{Version: "test", Command: tc.command, Target: "./a"}.JSON(tc.section)
		if err := jsonout.ValidateResult(out); (err == nil) != tc.ok {
			t.Errorf("%s: ValidateResult = %v, want ok=%v\n%s", tc.name, err, tc.ok, out)
		}
	}
}

// TestBenchFirstTimedOut: a first call that timed out is not shown as a
// measured figure, and a stopped series shows the timeouts it had.
func TestBenchFirstTimedOut(t *testing.T) {
	s := bench.Series{Name: "call sleep", Tool: "sleep", Rounds: 1}
	s.First, s.FirstTimedOut, s.Stopped, s.Timeouts = 10e9, true, 2, 2
	var b bytes.Buffer
	BenchTable(&b, terminal.Markdown, []bench.Series{s})
	row := strings.Split(strings.TrimSpace(b.String()), "\n")[2]
	if !strings.Contains(row, "| timed out at 10.00 s |") || !strings.Contains(row, "| 2 | timed out") {
		t.Errorf("row %s\nwant timeouts 2 and first \"timed out at 10.00 s\"", row)
	}
}
