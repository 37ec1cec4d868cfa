package main

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/reports"
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
	if err := reports.ValidateResult([]byte(r.stdout)); err != nil {
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
		v := benchJSONRun(t, "-n", "20", "--startup", "2", "--call", "echo", "--vs", bin.raw+" -bench-tools -call-sleep 1ms", "--", bin.raw, "-bench-tools")
		cs := v.Get("bench.vs.comparisons").Array()
		if len(cs) != 5 {
			t.Fatalf("%d comparisons, want 4 startup phases and 1 call", len(cs))
		}
		echo := cs[4]
		if echo.Get("name").String() != "call echo" || echo.Get("ratio").Float() <= 0 || echo.Get("ci_low").Float() > echo.Get("ratio").Float() {
			t.Errorf("echo comparison = %s", echo.Raw)
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
			{[]string{"--duration", "1s", bin.raw}, []string{"--duration", "--rate"}},
			{[]string{"--duration", "-1s", "--rate", "10/s", bin.raw}, []string{"--duration"}},
			{[]string{"--args", "{}", bin.raw}, []string{"--args", "--call"}},
			{[]string{"--fail-on", "cut", bin.raw}, []string{"--fail-on cut"}},
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
