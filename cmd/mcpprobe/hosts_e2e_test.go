//go:build e2e

package main

// The host-flag group (--hosts FILE, --host ID) reaches every figure that
// depends on a host, in every command that takes it: bench's and the
// report's initialize deadlines, call's delivery rows and --view, budget
// on one server of a host config. bench and call once took the built-in
// profiles whatever --hosts said.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// customHosts is a --hosts file: a new host with a 1,234 ms initialize
// deadline and a 20-byte head_tail result cut, and the built-in codex
// replaced by a row with a 4,321 ms deadline (10 s built in) that
// delivers results whole.
func customHosts(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "custom-hosts.json")
	writeFile(t, path, `{"hosts":[
 {"id":"tiny-host","name":"Tiny Host","measured_on":"2026-12","source":"test",
  "description":{"rule":"cut","limit":8,"unit":"utf16","marker":"…"},"instructions":{"rule":"whole"},
  "input_schema":{"rule":"whole"},"output_schema":"delivered","initialize_deadline_ms":1234,
  "result":{"rule":"head_tail","max_bytes":20,"head_bytes":10,"source":"test","measured_on":"2026-12"}},
 {"id":"codex","name":"Codex (custom)","measured_on":"2026-12","source":"test",
  "description":{"rule":"whole"},"instructions":{"rule":"whole"},"input_schema":{"rule":"whole"},
  "output_schema":"delivered","initialize_deadline_ms":4321,"result":{"rule":"whole"}}]}`)
	return path
}

// deadlines are a bench section's initialize deadlines, host name to ms.
func deadlines(t *testing.T, bench gjson.Result) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, d := range bench.Get("deadlines").Array() {
		out[d.Get("host").String()] = d.Get("deadline_ns").Int() / 1e6
	}
	return out
}

func TestBenchHonoursHosts(t *testing.T) {
	t.Parallel()
	custom := customHosts(t)
	run := func(flags ...string) map[string]int64 {
		t.Helper()
		args := append(append([]string{"bench", "--json", "--startup", "1", "-n", "0"}, flags...), bin.good)
		return deadlines(t, gjson.Get(wantCode(t, 0, args...).stdout, "bench"))
	}
	if got := run(); len(got) != 1 || got["Codex CLI"] != 10000 {
		t.Fatalf("built-in deadlines %v, want Codex CLI's 10000 ms alone", got)
	}
	got := run("--hosts", custom)
	if len(got) != 2 || got["Codex (custom)"] != 4321 || got["Tiny Host"] != 1234 {
		t.Errorf("with --hosts: deadlines %v, want Codex (custom) 4321 ms and Tiny Host 1234 ms", got)
	}
	if got := run("--hosts", custom, "--host", "tiny-host"); len(got) != 1 || got["Tiny Host"] != 1234 {
		t.Errorf("with --host tiny-host: deadlines %v, want Tiny Host's 1234 ms alone", got)
	}
	r := wantCode(t, 0, "bench", "--startup", "1", "-n", "0", "--hosts", custom, "--host", "tiny-host", bin.good)
	if !strings.Contains(r.stdout, "Tiny Host gives up on initialize after 1.23 s") {
		t.Errorf("the text output does not show Tiny Host's deadline:\n%s", r.stdout)
	}
	for _, bad := range [][]string{{"--host", "nosuch"}, {"--hosts", filepath.Join(t.TempDir(), "missing.json")}} {
		r := mcpprobe(t, append(append([]string{"bench", "--startup", "1", "-n", "0"}, bad...), bin.good)...)
		if r.code != 2 || !strings.Contains(r.stderr, bad[0]+":") {
			t.Errorf("%v: exit %d, want 2 naming %s: %s", bad, r.code, bad[0], r.stderr)
		}
	}
}

func TestReportBenchSectionHonoursHosts(t *testing.T) {
	t.Parallel()
	custom := customHosts(t)
	r := wantCode(t, 0, "report", "--json", "--bench", "--hosts", custom, bin.good)
	got := deadlines(t, gjson.Get(r.stdout, "report.bench"))
	if len(got) != 2 || got["Codex (custom)"] != 4321 || got["Tiny Host"] != 1234 {
		t.Errorf("report --bench --hosts: deadlines %v, want Codex (custom) 4321 ms and Tiny Host 1234 ms", got)
	}
	// The delivery section takes the same file.
	if n := gjson.Get(r.stdout, `report.budget.hosts.#(host=="tiny-host").host`).String(); n != "tiny-host" {
		t.Errorf("no tiny-host in the budget section: %.400s", gjson.Get(r.stdout, "report.budget.hosts.#.host").Raw)
	}
	r = wantCode(t, 0, "report", "--bench", "--hosts", custom, "--host", "tiny-host", bin.good)
	if !strings.Contains(r.stdout, "Tiny Host gives up on initialize after 1.23 s") || strings.Contains(r.stdout, "Codex") {
		t.Errorf("report --bench --host tiny-host: want Tiny Host's deadline and no Codex:\n%s", r.stdout)
	}
}

func TestCallHonoursHosts(t *testing.T) {
	t.Parallel()
	custom := customHosts(t)
	call := func(flags ...string) gjson.Result {
		t.Helper()
		args := append(append([]string{"call", "--json"}, flags...), "find_orders", "--", bin.good, "-calls")
		return gjson.Get(wantCode(t, 0, args...).stdout, "call.deliveries")
	}
	builtin := call()
	if builtin.Get(`#(host=="tiny-host")`).Exists() {
		t.Fatal("tiny-host delivered without --hosts")
	}
	if name := builtin.Get(`#(host=="codex").host_name`).String(); name != "Codex CLI" {
		t.Fatalf("built-in codex row named %q", name)
	}
	ds := call("--hosts", custom)
	tiny := ds.Get(`#(host=="tiny-host")`)
	if tiny.Get("outcome").String() != "truncated" || tiny.Get("limit").Int() != 20 || tiny.Get("delivered").Int() != 20 ||
		tiny.Get("lost").Int() != tiny.Get("size").Int()-20 {
		t.Errorf("tiny-host row %s, want truncated at 20 bytes", tiny.Raw)
	}
	if c := ds.Get(`#(host=="codex")`); c.Get("host_name").String() != "Codex (custom)" || c.Get("outcome").String() != "whole" {
		t.Errorf("codex row %s, want the file's Codex (custom), whole", c.Raw)
	}
	if hs := call("--hosts", custom, "--host", "tiny-host,claude-code").Get("#.host").Array(); len(hs) != 2 || hs[0].String() != "tiny-host" || hs[1].String() != "claude-code" {
		t.Errorf("--host tiny-host,claude-code: rows %v", hs)
	}
	// --view reads the loaded profiles too.
	r := wantCode(t, 0, "call", "--hosts", custom, "--view", "tiny-host", "find_orders", "--", bin.good, "-calls")
	if !strings.HasPrefix(r.stdout, "# What Tiny Host receives") || !strings.Contains(r.stdout, "Outcome: truncated") {
		t.Errorf("--view tiny-host:\n%.300s", r.stdout)
	}
	if r := mcpprobe(t, "call", "--view", "tiny-host", "find_orders", "--", bin.good, "-calls"); r.code != 2 || !strings.Contains(r.stderr, `--view: unknown host "tiny-host"`) {
		t.Errorf("--view tiny-host without --hosts: exit %d: %s", r.code, r.stderr)
	}
	// One server of a host config: the same flags.
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"g":{"command":"`+bin.good+`","args":["-calls"]}}}`)
	r = wantCode(t, 0, "call", "--json", "--hosts", custom, "--host", "tiny-host", "--config", cfg, "g", "find_orders")
	if hs := gjson.Get(r.stdout, "call.deliveries.#.host").Array(); len(hs) != 1 || hs[0].String() != "tiny-host" {
		t.Errorf("call --config FILE g: rows %v, want tiny-host alone", hs)
	}
}

func TestBudgetConfigServerHonoursHosts(t *testing.T) {
	t.Parallel()
	custom := customHosts(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"g":{"command":"`+bin.good+`"}}}`)
	r := wantCode(t, 0, "budget", "--json", "--hosts", custom, "--host", "tiny-host", "--config", cfg, "g")
	hs := gjson.Get(r.stdout, "budget.hosts")
	if ids := hs.Get("#.host").Array(); len(ids) != 1 || ids[0].String() != "tiny-host" {
		t.Fatalf("hosts %v, want tiny-host alone", ids)
	}
	// tiny-host cuts every description at 8 UTF-16 units.
	tool := hs.Get("0.tools.0")
	if tool.Get("delivered").String() != "cut" || tool.Get("delivered_len").Int() != 8 || tool.Get("lost_len").Int() != tool.Get("description_len").Int()-8 {
		t.Errorf("tiny-host's first tool: %s, want its description cut at 8", tool.Raw)
	}
}

// TestHostVersionE2E: --host claude-code@VERSION picks the rules an older
// Claude Code had (2,048 up to 2.1.295; 4,096 since 2.1.296, the default
// profile), in budget, report, call, --view and --config FILE --all,
// with the version in the host's id and name; the default list never
// shows a versioned row, and a version no rule covers is a usage error.
func TestHostVersionE2E(t *testing.T) {
	t.Parallel()
	cut := func(out, path string) string {
		t.Helper()
		h := gjson.Get(out, path)
		return h.Get("host").String() + " " + h.Get(`tools.#(name=="find_orders").delivered`).String() + " " +
			h.Get(`tools.#(name=="find_orders").delivered_len`).String()
	}
	b := wantCode(t, 0, "budget", "--json", "--per-host-tools", "--host", "claude-code@2.1.280,claude-code", bin.good).stdout
	if got := cut(b, "budget.hosts.0") + "; " + cut(b, "budget.hosts.1"); got != "claude-code@2.1.280 cut 2048; claude-code whole 2172" {
		t.Errorf("budget: %s", got)
	}
	if n := gjson.Get(b, `findings.#(code=="cut")#.message`).String(); !strings.Contains(n, "on Claude Code 2.1.280: cut at 2,048") || strings.Contains(n, "on Claude Code:") {
		t.Errorf("budget cut findings: %s", n)
	}
	def := wantCode(t, 0, "budget", "--json", bin.good).stdout
	if ids := gjson.Get(def, "budget.hosts.#.host").String(); strings.Contains(ids, "@") {
		t.Errorf("the default hosts list a version: %s", ids)
	}
	rep := wantCode(t, 0, "report", "--json", "--host", "claude-code@2.1.295", bin.good).stdout
	if got := cut(rep, "report.budget.hosts.0"); got != "claude-code@2.1.295 cut 2048" {
		t.Errorf("report: %s", got)
	}
	if r := wantCode(t, 0, "report", "--host", "claude-code@2.1.295", bin.good).stdout; !strings.Contains(r, "on Claude Code 2.1.295: cut at 2,048") {
		t.Errorf("report markdown lacks the versioned cut:\n%.600s", r)
	}
	ds := gjson.Get(wantCode(t, 0, "call", "--json", "--host", "claude-code@2.1.280", "find_orders", "--", bin.good, "-calls").stdout, "call.deliveries")
	if hs := ds.Get("#.host").String(); hs != `["claude-code@2.1.280"]` || ds.Get("0.host_name").String() != "Claude Code 2.1.280" {
		t.Errorf("call: deliveries %s", ds.Raw)
	}
	if v := wantCode(t, 0, "budget", "--view", "claude-code@2.1.280", bin.good).stdout; !strings.HasPrefix(v, "# What Claude Code 2.1.280 receives") || !strings.Contains(v, "… [truncated]") {
		t.Errorf("--view claude-code@2.1.280:\n%.300s", v)
	}
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"good":{"command":"`+bin.good+`"}}}`)
	all := wantCode(t, 0, "budget", "--config", cfg, "--all", "--json", "--host", "claude-code@2.1.280,claude-code").stdout
	if hs := gjson.Get(all, "budget.totals.hosts.#.host").String(); hs != `["claude-code@2.1.280","claude-code"]` {
		t.Errorf("--config --all: totals.hosts %s\n%.500s", hs, all)
	}
	for _, tc := range []struct{ spec, want string }{
		{"claude-code@2.1.100", "no rules known for that version; known: 2.1.197 to 2.1.294, 2.1.295, 2.1.296 and later"},
		{"claude-code@latest", `version "latest": want numbers and dots`},
		{"codex@0.171.0", "the codex profile has no per-version rules"},
	} {
		if r := mcpprobe(t, "budget", "--host", tc.spec, bin.good); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--host %s: exit %d: %s", tc.spec, r.code, r.stderr)
		}
	}
}
