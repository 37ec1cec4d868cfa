//go:build e2e

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

// These tests check what bench measures and counts, never how fast
// anything is: timings live in benchmarks and scripts/bench-*.sh.
func benchJSONRun(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"bench", "--json", "--quiet"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatalf("bench --json does not validate against the schema: %v\n%.300s", err, r.stdout)
	}
	return gjson.Parse(r.stdout)
}

func TestBenchDefaults(t *testing.T) {
	t.Parallel()
	v := benchJSONRun(t, "-n", "30", "--warmup", "3", "--startup", "3", "--", bin.raw, "-bench-tools")
	if v.Get("bench.overhead_ns").Float() <= 0 || v.Get("bench.overhead.n").Int() != 2000 {
		t.Errorf("overhead = %s", v.Get("bench.overhead").Raw[:100])
	}
	if v.Get("bench.startup.n").Int() != 3 || len(v.Get("bench.startup.samples_ns").Array()) != 3 {
		t.Errorf("startup = n %d", v.Get("bench.startup.n").Int())
	}
	var phases []string
	for _, p := range v.Get("bench.startup_phases").Array() {
		phases = append(phases, p.Get("name").String())
	}
	if strings.Join(phases, "|") != "startup: spawn → first byte|startup: spawn → handshake|startup: spawn → first tools/list|exit: stdin close → exit" {
		t.Errorf("phases = %v", phases)
	}
	if v.Get("bench.ping.n").Int() != 30 {
		t.Errorf("ping = %s", v.Get("bench.ping.n"))
	}
	calls := map[string]gjson.Result{}
	for _, c := range v.Get("bench.calls").Array() {
		calls[c.Get("tool").String()] = c
	}
	if len(calls) != 3 || !calls["echo"].Exists() || !calls["sleep"].Exists() || !calls["fail"].Exists() {
		t.Fatalf("only read-only tools are called by default: %v", v.Get("bench.calls.#.tool").Raw)
	}
	if got := calls["echo"].Get("args").Raw; got != `{"text":"a","n":3}` {
		t.Errorf("minimal args for echo = %s", got)
	}
	if got := calls["sleep"].Get("args").Raw; got != `{"mode":"fast"}` {
		t.Errorf("minimal args for sleep = %s", got)
	}
	if calls["fail"].Get("errors").Int() != 30 || calls["echo"].Get("errors").Int() != 0 {
		t.Errorf("errors: fail %d echo %d", calls["fail"].Get("errors").Int(), calls["echo"].Get("errors").Int())
	}
	for name, c := range calls {
		if c.Get("n").Int() != 30 || len(c.Get("samples_ns").Array()) != 30 || c.Get("first_ns").Int() <= 0 {
			t.Errorf("%s: n %d samples %d first %d", name, c.Get("n").Int(), len(c.Get("samples_ns").Array()), c.Get("first_ns").Int())
		}
		if !(c.Get("min_ns").Int() <= c.Get("p50_ns").Int() && c.Get("p50_ns").Int() <= c.Get("p99_ns").Int() && c.Get("p99_ns").Int() <= c.Get("max_ns").Int()) {
			t.Errorf("%s: order of statistics broken", name)
		}
	}
	if got := v.Get("bench.skipped.0").String(); !strings.HasPrefix(got, "write (not annotated readOnlyHint") {
		t.Errorf("skipped = %s", v.Get("bench.skipped").Raw)
	}
}

func TestBenchModes(t *testing.T) {
	t.Parallel()
	t.Run("a named tool with arguments", func(t *testing.T) {
		v := benchJSONRun(t, "-n", "10", "--startup", "0", "--call", "write", "--args", `{"x":1}`, "--", bin.raw, "-bench-tools")
		if v.Get("bench.calls.#").Int() != 1 || v.Get("bench.calls.0.tool").String() != "write" || v.Get("bench.calls.0.args").Raw != `{"x":1}` {
			t.Errorf("calls = %s", v.Get("bench.calls.#.tool").Raw)
		}
		if v.Get("bench.startup").Type != gjson.Null {
			t.Errorf("--startup 0 still measured startup")
		}
	})
	t.Run("concurrency", func(t *testing.T) {
		v := benchJSONRun(t, "-n", "40", "--startup", "0", "--concurrency", "4", "--call", "echo", "--", bin.raw, "-bench-tools")
		if v.Get("bench.calls.0.n").Int() != 40 || v.Get("bench.mode").String() != "closed loop, 4 in flight" {
			t.Errorf("n %d mode %s", v.Get("bench.calls.0.n").Int(), v.Get("bench.mode"))
		}
	})
	t.Run("open loop", func(t *testing.T) {
		v := benchJSONRun(t, "--rate", "100/s", "--duration", "500ms", "--startup", "0", "--call", "echo", "--", bin.raw, "-bench-tools")
		if v.Get("bench.calls.0.n").Int() != 50 || v.Get("bench.mode").String() != "open loop at 100/s" {
			t.Errorf("n %d mode %s", v.Get("bench.calls.0.n").Int(), v.Get("bench.mode"))
		}
	})
	t.Run("modern era has no ping", func(t *testing.T) {
		v := benchJSONRun(t, "-n", "5", "--startup", "1", "--call", "order_total", bin.good)
		if v.Get("protocol_version").String() != "2026-07-28" || v.Get("bench.ping").Type != gjson.Null {
			t.Errorf("protocol %s ping %s", v.Get("protocol_version"), v.Get("bench.ping").Raw)
		}
		if v.Get("bench.calls.0.args").Raw != `{"id":"a"}` {
			t.Errorf("args = %s", v.Get("bench.calls.0.args").Raw)
		}
	})
	t.Run("vs", func(t *testing.T) {
		v := benchJSONRun(t, "-n", "10", "--warmup", "2", "--rounds", "3", "--call", "sleep", "--vs", bin.raw+" -bench-tools -call-sleep 1ms", "--", bin.raw, "-bench-tools")
		cs := v.Get("bench.vs.comparisons").Array()
		if len(cs) != 6 {
			t.Fatalf("%d comparisons, want 4 startup phases, 1 call and ping", len(cs))
		}
		// One set of numbers: each comparison's ratio is the ratio of the
		// p50s the two sides show, and each series holds the rounds' calls.
		a := map[string]gjson.Result{}
		for _, s := range append(v.Get("bench.startup_phases").Array(), append(v.Get("bench.calls").Array(), v.Get("bench.ping"))...) {
			a[s.Get("name").String()] = s
		}
		b := map[string]gjson.Result{}
		for _, s := range v.Get("bench.vs.series").Array() {
			b[s.Get("name").String()] = s
		}
		for _, c := range cs {
			n := c.Get("name").String()
			sa, sb := a[n], b[n]
			// A round may lack an exit sample (a process that left before
			// it was stopped is not timed); calls, never.
			paired, ok := c.Get("rounds").Int(), sa.Get("rounds").Int() == 3 && sb.Get("rounds").Int() == 3 && c.Get("rounds").Int() == 3
			if strings.HasPrefix(n, "exit") {
				ok = paired >= 1 && paired <= min(sa.Get("rounds").Int(), sb.Get("rounds").Int())
			}
			if !sa.Exists() || !sb.Exists() || !ok {
				t.Errorf("%s: comparison %s, A %s, B %s: want both sides over 3 rounds", n, c.Raw, sa.Get("rounds"), sb.Get("rounds"))
				continue
			}
			ratio := float64(sb.Get("p50_ns").Int()) / float64(sa.Get("p50_ns").Int())
			if d := ratio/c.Get("ratio").Float() - 1; d > 1e-3 || d < -1e-3 {
				t.Errorf("%s: p50 B/A = %.4f, reported ratio %.4f", n, ratio, c.Get("ratio").Float())
			}
			if len(sa.Get("round_p50s_ns").Array()) != 3 {
				t.Errorf("%s: round p50s %s", n, sa.Get("round_p50s_ns").Raw)
			}
		}
		if a["call sleep"].Get("n").Int() != 30 || b["call sleep"].Get("n").Int() != 30 {
			t.Errorf("call sleep: n %d and %d, want 3 rounds × 10", a["call sleep"].Get("n").Int(), b["call sleep"].Get("n").Int())
		}
		if v.Get("bench.vs.alpha").Float() != 0.01 || !strings.Contains(v.Get("bench.mode").String(), "3 rounds") {
			t.Errorf("alpha %s, mode %s", v.Get("bench.vs.alpha").Raw, v.Get("bench.mode").Raw)
		}
	})
	t.Run("over HTTP", func(t *testing.T) {
		line := startHTTPServer(t, nil, "listening on", bin.good, "-http", "127.0.0.1:0")
		url := strings.TrimSpace(strings.TrimPrefix(line, "listening on"))
		v := benchJSONRun(t, "-n", "10", "--startup", "2", "--call", "order_total", url)
		if v.Get("bench.calls.0.n").Int() != 10 || v.Get("bench.calls.0.errors").Int() != 10 {
			// order_total "a" is no order: an error result, still timed.
			t.Errorf("calls = %s", v.Get("bench.calls.0").Raw[:200])
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want []string // in the message
		}{
			{[]string{"--call", "nope", "--startup", "0", "--", bin.raw, "-bench-tools"}, []string{`no tool "nope"`}},
			{[]string{"--rate", "fast", bin.raw}, []string{"--rate"}},
			{[]string{"--args", "[1]", "--call", "echo", bin.raw}, []string{"--args"}},
			{[]string{"-n", "-1", bin.raw}, []string{"-n"}},
			{[]string{"--concurrency", "0", bin.raw}, []string{"--concurrency"}},
			{[]string{"--rate", "10/s", "--concurrency", "2", bin.raw}, []string{"--rate", "--concurrency", "conflict"}},
			{[]string{"--vs", bin.raw, "--rate", "10/s", bin.raw}, []string{"--vs", "--rate"}},
			{[]string{"--vs", bin.raw, "--concurrency", "2", bin.raw}, []string{"--vs", "--concurrency"}},
			{[]string{"--rounds", "5", bin.raw}, []string{"--rounds is for --vs"}},
			{[]string{"--seed", "5", bin.raw}, []string{"--seed is for --vs"}},
			{[]string{"--vs", bin.raw, "--rounds", "1", bin.raw}, []string{"--rounds 1"}},
			{[]string{"--duration", "1s", bin.raw}, []string{"--duration", "--rate"}},
			{[]string{"--duration", "-1s", "--rate", "10/s", bin.raw}, []string{"--duration"}},
			{[]string{"--args", "{}", bin.raw}, []string{"--args", "--call"}},
			{[]string{"--fail-on", "cut", bin.raw}, []string{"--fail-on cut"}},
			{[]string{"--budget", "-1s", bin.raw}, []string{"--budget -1s"}},
			{[]string{"--budget", "soon", bin.raw}, []string{"--budget"}},
			{[]string{"--vs", bin.raw, "--budget", "1m", bin.raw}, []string{"--budget", "--vs", "conflict"}},
		} {
			r := mcpprobe(t, append([]string{"bench"}, tc.args...)...)
			if r.code != 2 {
				t.Errorf("%v: exit %d: %s", tc.args, r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("%v: the message lacks %q: %s", tc.args, w, r.stderr)
				}
			}
		}
	})
}

func TestReportLatencySection(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "report", "--bench", "--", bin.raw, "-bench-tools")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"## Latency\n", "| call echo ", "| startup: spawn → handshake ", "```text\n  ≥ "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report --bench lacks %q", want)
		}
	}
}

// Warnings a host would feel, and only those: a series whose every call
// failed says so, with the first error; a fast first ping is no cold start.
func TestBenchWarnings(t *testing.T) {
	t.Parallel()
	v := benchJSONRun(t, "-n", "10", "--startup", "1", "--call", "echo", "--", bin.raw, "-bench-tools", "-call-fail", "rpc")
	codes := findingCodes(v)
	if has(codes, "cold-start") {
		t.Errorf("findings %v: a cold start on a fixture that answers in microseconds", codes)
	}
	var msg string
	for _, f := range v.Get("findings").Array() {
		if f.Get("code").String() == "call-errors" {
			msg = f.Get("message").String()
		}
	}
	if !strings.Contains(msg, "call echo: every call failed (10 of 10): the figures time the error path") || !strings.Contains(msg, "JSON-RPC error -32603: backend unavailable") {
		t.Errorf("call-errors finding %q", msg)
	}
	if v.Get("bench.calls.0.first_error").String() != "JSON-RPC error -32603: backend unavailable" {
		t.Errorf("first_error = %s", v.Get("bench.calls.0.first_error").Raw)
	}
}

// sentCalls counts the tools/call requests for tool in a trace.
func sentCalls(t *testing.T, trace, tool string) int {
	t.Helper()
	n := 0
	for _, f := range readTrace(t, trace) {
		if f.Dir == "send" && gjson.Get(f.Raw, "method").String() == "tools/call" && gjson.Get(f.Raw, "params.name").String() == tool {
			n++
		}
	}
	return n
}

// A series whose first calls time out is stopped after two of them, not
// waited out for warmup + n + 1 timeouts; it says so, and the next
// series is measured as usual.
func TestBenchStopsATimedOutSeries(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	// slow_progress takes a minute here: past any --timeout on any load.
	// Once: the factor follows the load, and the message quotes the value.
	timeout := secs(300 * time.Millisecond)
	args := []string{"--timeout", timeout, "-n", "5", "--warmup", "3", "--startup", "0", "--trace", trace,
		"--call", "slow_progress", "--args", `{"duration_ms":60000}`, "--call", "find_orders", "--", bin.good, "-calls"}
	v := benchJSONRun(t, args...)
	slow, fast := v.Get(`bench.calls.#(tool=="slow_progress")`), v.Get(`bench.calls.#(tool=="find_orders")`)
	if slow.Get("stopped_after").Int() != 2 || slow.Get("n").Int() != 0 {
		t.Errorf("slow_progress: stopped_after %d, n %d, want 2 and 0: %.300s", slow.Get("stopped_after").Int(), slow.Get("n").Int(), slow.Raw)
	}
	// The timeouts that happened, the first call's and the warm-up's: not
	// 0 for a series stopped by two of them.
	if slow.Get("timeouts").Int() != 2 {
		t.Errorf("slow_progress: timeouts %d, want 2: %.300s", slow.Get("timeouts").Int(), slow.Raw)
	}
	if got := sentCalls(t, trace, "slow_progress"); got != 2 {
		t.Errorf("%d calls of slow_progress sent, want 2 (then stopped); 1 + 3 + 5 without the stop", got)
	}
	if fast.Get("stopped_after").Int() != 0 || fast.Get("n").Int() != 5 {
		t.Errorf("find_orders: %.300s", fast.Raw)
	}
	// first_ns of a first call that timed out is the wait, not the server:
	// the JSON says which.
	if !slow.Get("first_timed_out").Bool() || fast.Get("first_timed_out").Bool() || !fast.Get("first_timed_out").Exists() {
		t.Errorf("first_timed_out: slow %s, fast %s; want true, false", slow.Get("first_timed_out").Raw, fast.Get("first_timed_out").Raw)
	}
	var msg string
	for _, f := range v.Get("findings").Array() {
		if f.Get("code").String() == "call-timeout" {
			msg = f.Get("message").String()
		}
	}
	if !strings.Contains(msg, "call slow_progress: stopped: the first 2 calls timed out after "+timeout+" each") {
		t.Errorf("call-timeout finding %q", msg)
	}
	r := mcpprobe(t, append([]string{"bench"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "warning: call slow_progress: stopped: the first 2 calls timed out") {
		t.Errorf("text: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// The budget is announced, ends the series under way, and names the
// series it left no time for; with -n this large only it can end the run.
func TestBenchBudget(t *testing.T) {
	t.Parallel()
	args := []string{"bench", "--budget", "1s", "-n", "10000000", "--warmup", "0", "--startup", "0",
		"--call", "find_orders", "--call", "tiny_image", "--call", "bad_structured", "--", bin.good, "-calls"}
	r := mcpprobe(t, append(args[:1:1], append([]string{"--json"}, args[1:]...)...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.stderr, "bench: budget 1s (--budget)\n") {
		t.Errorf("the budget is not announced on stderr: %q", r.stderr)
	}
	b := gjson.Get(r.stdout, "bench")
	if b.Get("budget_ns").Int() != int64(time.Second) || !b.Get("budget_spent").Bool() {
		t.Errorf("budget_ns %s, budget_spent %s", b.Get("budget_ns").Raw, b.Get("budget_spent").Raw)
	}
	// On a loaded machine the budget may run out before the first series
	// starts; either way every series is measured-and-cut or not run,
	// and the last two are not run.
	var notRun []string
	for _, n := range b.Get("not_run").Array() {
		notRun = append(notRun, n.String())
	}
	for _, c := range b.Get("calls").Array() {
		if c.Get("tool").String() != "find_orders" || !c.Get("cut").Bool() {
			t.Errorf("a series measured past the budget: %.300s", c.Raw)
		}
	}
	if len(notRun)+len(b.Get("calls").Array()) != 3 || !has(notRun, "call tiny_image") || !has(notRun, "call bad_structured") {
		t.Errorf("not_run %v, calls %d", notRun, len(b.Get("calls").Array()))
	}
	text := mcpprobe(t, args...)
	if text.code != 0 || !strings.Contains(text.stdout, "not run: the budget (--budget 1s) ran out before ") ||
		!strings.Contains(text.stdout, "call tiny_image, call bad_structured.") {
		t.Errorf("text: exit %d:\n%s\n%s", text.code, text.stdout, text.stderr)
	}
	// --budget 0: none, and nothing announced.
	none := mcpprobe(t, "bench", "--json", "--budget", "0", "-n", "2", "--warmup", "0", "--startup", "0", "--call", "find_orders", "--", bin.good, "-calls")
	if none.code != 0 || gjson.Get(none.stdout, "bench.budget_ns").Type != gjson.Null || strings.Contains(none.stderr, "budget") {
		t.Errorf("--budget 0: exit %d, budget_ns %s, stderr %q", none.code, gjson.Get(none.stdout, "bench.budget_ns").Raw, none.stderr)
	}
}
