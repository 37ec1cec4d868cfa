//go:build e2e

package main

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// received is what the server says each tool was called with: rawserver
// answers a tools/call with "TOOL ARGUMENTS" as it decoded them, and the
// trace keeps its answers byte for byte. By tool, the distinct arguments.
func received(t *testing.T, trace string) map[string][]string {
	t.Helper()
	seen := map[string]map[string]bool{}
	for _, f := range readTrace(t, trace) {
		if f.Dir != "recv" {
			continue
		}
		text := gjson.Get(f.Raw, "result.content.0.text").String()
		tool, args, ok := strings.Cut(text, " ")
		if !ok || (tool != "echo" && tool != "sleep") {
			continue
		}
		if seen[tool] == nil {
			seen[tool] = map[string]bool{}
		}
		seen[tool][args] = true
	}
	out := map[string][]string{}
	for tool, set := range seen {
		for a := range set {
			out[tool] = append(out[tool], a)
		}
		sort.Strings(out[tool])
	}
	return out
}

// Two --call, each with its own --args: each tool receives its own, in
// bench and in faults, and bench's JSON says which arguments each series
// was timed with.
func TestCallArgsPairs(t *testing.T) {
	t.Parallel()
	pairs := []string{"--call", "echo", "--args", `{"text":"one","n":4}`, "--call", "sleep", "--args", `{"mode":"slow"}`}
	want := map[string]string{"echo": `{"text":"one","n":4}`, "sleep": `{"mode":"slow"}`}
	check := func(t *testing.T, got map[string][]string) {
		t.Helper()
		for tool, args := range want {
			if len(got[tool]) != 1 || got[tool][0] != args {
				t.Errorf("%s received %q, want only %s", tool, got[tool], args)
			}
		}
	}
	t.Run("bench", func(t *testing.T) {
		t.Parallel()
		trace := filepath.Join(t.TempDir(), "t.jsonl")
		v := benchJSONRun(t, append([]string{"-n", "3", "--warmup", "1", "--startup", "0", "--trace", trace}, append(pairs, "--", bin.raw, "-bench-tools")...)...)
		var series []string
		for _, c := range v.Get("bench.calls").Array() {
			series = append(series, c.Get("tool").String()+" "+c.Get("args").Raw)
		}
		if strings.Join(series, " | ") != `echo {"text":"one","n":4} | sleep {"mode":"slow"}` {
			t.Errorf("series = %q", series)
		}
		check(t, received(t, trace))
	})
	t.Run("faults", func(t *testing.T) {
		t.Parallel()
		trace := filepath.Join(t.TempDir(), "t.jsonl")
		v := faultsRun(t, append([]string{"--calls", "4", "--trace", trace}, append(pairs, "--", bin.raw, "-bench-tools")...)...)
		if got := v.Get("calls.#.tool").Raw; got != `["echo","sleep","echo","sleep"]` {
			t.Errorf("calls = %s", got)
		}
		check(t, received(t, trace))
	})
	t.Run("an --args goes to the --call before it", func(t *testing.T) {
		t.Parallel()
		trace := filepath.Join(t.TempDir(), "t.jsonl")
		benchJSONRun(t, "-n", "2", "--warmup", "0", "--startup", "0", "--trace", trace,
			"--call", "echo", "--call", "sleep", "--args", `{"mode":"slow"}`, "--", bin.raw, "-bench-tools")
		got := received(t, trace)
		if strings.Join(got["echo"], " ") != `{"text":"a","n":3}` || strings.Join(got["sleep"], " ") != `{"mode":"slow"}` {
			t.Errorf("received %q: echo wants its minimal arguments, sleep the --args after it", got)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		t.Parallel()
		cases := casesOf(malformedRun(t, "--timeout", secs(500*time.Millisecond), "--call", "echo", "--args", `{"text":"hi","n":9}`,
			"--call", "sleep", "--args", `{"mode":"slow"}`, "--", bin.raw, "-bench-tools"))
		for tool, args := range map[string]string{"echo": `{"text":"hi","n":9}`, "sleep": `{"mode":"slow"}`} {
			if a := cases[tool+"|baseline (valid call)"].Get("args").Raw; a != args {
				t.Errorf("%s baseline args = %s, want %s", tool, a, args)
			}
		}
	})
}

// An --args that belongs to no --call is refused with exit 2, naming it.
func TestCallArgsMismatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"before any --call", []string{"--args", `{"x":1}`, "--call", "echo"}, `--args "{\"x\":1}" comes before any --call`},
		{"alone", []string{"--args", `{}`}, `--args "{}" comes before any --call`},
		{"two for one --call", []string{"--call", "echo", "--args", `{"x":1}`, "--args", `{"x":2}`},
			`--args "{\"x\":2}" (--args number 2, for 1 --call): --call echo already has --args "{\"x\":1}"`},
		{"more --args than --call", []string{"--call", "echo", "--args", `{}`, "--call", "sleep", "--args", `{}`, "--args", `{"z":3}`},
			`--args "{\"z\":3}" (--args number 3, for 2 --call): --call sleep already has`},
		{"not an object", []string{"--call", "echo", "--args", `[1]`}, `--args "[1]" is not a JSON object (for --call echo)`},
	}
	for _, command := range []string{"bench", "faults", "malformed"} {
		for _, tc := range tests {
			t.Run(command+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				r := mcpprobe(t, append(append([]string{command, "--quiet"}, tc.args...), "--", bin.raw, "-bench-tools")...)
				if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
					t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tc.want)
				}
			})
		}
	}
}

// A 2026-07-28 server with no read-only tool: no ping in that era and no
// call to time, so bench times tools/list as its baseline, says so once,
// and gives the --call hint once, not once per tool.
func TestBenchToolsListBaseline(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	v := benchJSONRun(t, "-n", "6", "--warmup", "2", "--startup", "0", "--trace", trace, "--", bin.raw, "-modern")
	if v.Get("protocol_version").String() != "2026-07-28" {
		t.Fatalf("protocol = %s; the fixture should speak 2026-07-28", v.Get("protocol_version").Raw)
	}
	if got := v.Get("bench.baseline.method").String(); got != "tools/list" {
		t.Errorf("baseline = %s", v.Get("bench.baseline").Raw)
	}
	if got := v.Get("bench.baseline.why").String(); got != "the 2026-07-28 era has no ping, and no tool is annotated read-only" {
		t.Errorf("baseline why = %q", got)
	}
	if v.Get("bench.ping").Type != gjson.Null || v.Get("bench.calls.#").Int() != 0 {
		t.Errorf("ping %s, calls %s", v.Get("bench.ping").Raw, v.Get("bench.calls").Raw)
	}
	if l := v.Get("bench.tools_list"); l.Get("name").String() != "tools/list" || l.Get("n").Int() != 6 || l.Get("errors").Int() != 0 {
		t.Errorf("tools_list = %.300s", l.Raw)
	}
	// One listing at the handshake, then first + warmup + n timed.
	lists := 0
	for _, f := range readTrace(t, trace) {
		if f.Dir == "send" && gjson.Get(f.Raw, "method").String() == "tools/list" {
			lists++
		}
	}
	if lists != 1+1+2+6 {
		t.Errorf("%d tools/list sent, want 10", lists)
	}

	r := mcpprobe(t, "bench", "-n", "3", "--warmup", "0", "--startup", "0", "--", bin.raw, "-modern")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{"name a tool with --call", "not annotated readOnlyHint", "baseline: tools/list is timed in place of ping"} {
		if n := strings.Count(r.stdout, s); n != 1 {
			t.Errorf("%q appears %d times, want once:\n%s", s, n, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "│ tools/list ") {
		t.Errorf("no tools/list row in the table:\n%s", r.stdout)
	}
}

// With --vs, where one side speaks 2026-07-28 and nothing is read-only,
// both sides time tools/list in each round, and it is compared.
func TestBenchVsToolsListBaseline(t *testing.T) {
	t.Parallel()
	v := benchJSONRun(t, "-n", "3", "--warmup", "0", "--rounds", "2", "--vs", bin.raw+" -modern", "--", bin.raw)
	if got := v.Get("bench.baseline.why").String(); got != "one side speaks 2026-07-28, which has no ping, and no tool is annotated read-only" {
		t.Errorf("baseline = %s", v.Get("bench.baseline").Raw)
	}
	if v.Get("bench.tools_list.n").Int() != 6 || v.Get("bench.tools_list.rounds").Int() != 2 {
		t.Errorf("A's tools_list = %.200s", v.Get("bench.tools_list").Raw)
	}
	if got := v.Get(`bench.vs.series.#(name=="tools/list").n`).Int(); got != 6 {
		t.Errorf("B's tools/list n = %d", got)
	}
	if !v.Get(`bench.vs.comparisons.#(name=="tools/list")`).Exists() {
		t.Errorf("tools/list not compared: %s", v.Get("bench.vs.comparisons.#.name").Raw)
	}
}
