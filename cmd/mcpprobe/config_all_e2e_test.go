//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// longServer is a server name that puts every full tool name of its
// server over Codex's 64 characters and Claude Code's 128.
var longServer = "raw-" + strings.Repeat("x", 112)

// fiveServers writes a .mcp.json of five servers built from the
// fixtures: two that share tool names (goodserver, tsserver), a plain
// rawserver, one whose name is too long for hosts' full tool names, and
// one that crashes at start.
func fiveServers(t *testing.T) string {
	t.Helper()
	ts := tsServer(t, "raw")
	servers := map[string]any{
		"good":     map[string]any{"command": bin.good},
		"ts":       map[string]any{"command": ts[0], "args": ts[1:]},
		"raw":      map[string]any{"command": bin.raw},
		longServer: map[string]any{"command": bin.raw, "args": []string{"-many", "2"}},
		"crash":    map[string]any{"command": bin.raw, "args": []string{"-exit-before-init", "7"}},
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	p := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigAllBudget(t *testing.T) {
	t.Parallel()
	cfg := fiveServers(t)

	// By default: the answer, a line per server, every finding once.
	r := mcpprobe(t, "budget", "--config", cfg, "--all", "--wide")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "5 servers, 4 probed, 1 failed, 0 disabled; ") || strings.Contains(r.stdout, "=== server") {
		t.Errorf("not the answer first, a line per server:\n%s", r.stdout)
	}
	for _, want := range []string{"server good: 3 tools, delivered whole on every known host; cut only on the strictest combination (all): find_orders", "server crash: Could not be probed", "Findings (each once, with the servers it applies to"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// --verbose: each server's own budget text, then the whole config.
	r = mcpprobe(t, "budget", "--config", cfg, "--all", "--wide", "--verbose")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"=== server good ===", "=== server ts ===", "=== server raw ===", "=== server " + longServer + " ===", "=== server crash ===",
		"=== whole config ===", "4 of 5 probed",
		// the crash is a row with its explanation, and the others ran
		"Could not be probed: the server exited before it answered", "exit status 7", "Received:", "Try:",
		"tool-name-collision", "find_orders", "tool-name-over-limit", "mcp__" + longServer + "__tool_0000",
		"config-server-failed", "Host rules and their sources:",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}

	// --fail-on counts findings across every server and the sum: the
	// crash and the long names are errors, the cut is in good.
	for _, tc := range []struct {
		gate string
		code int
	}{{"error", 1}, {"cut", 1}, {"lint-error", 0}} {
		if r := mcpprobe(t, "budget", "--config", cfg, "--all", "--fail-on", tc.gate); r.code != tc.code {
			t.Errorf("--fail-on %s: exit %d, want %d: %s", tc.gate, r.code, tc.code, r.stderr)
		}
	}

	// The JSON: every server's own section or its error, and totals that
	// equal the sum of single runs.
	r = mcpprobe(t, "budget", "--config", cfg, "--all", "--json", "--jobs", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	all := section(t, "budget", r.stdout)
	if all.Get("jobs").Int() != 2 || all.Get("servers.#").Int() != 5 {
		t.Fatalf("section: %.400s", all.Raw)
	}
	var names []string
	for _, s := range all.Get("servers").Array() {
		names = append(names, s.Get("name").String())
	}
	if got := strings.Join(names, " "); got != "crash good raw "+longServer+" ts" {
		t.Errorf("order %q, want name order", got)
	}
	crash := all.Get("servers.0")
	if crash.Get("status").String() != "failed" || !strings.Contains(crash.Get("error.what").String(), "exited") ||
		!strings.Contains(crash.Get("error.received").String(), "ORDERS_API_KEY") || crash.Get("error.try").String() == "" {
		t.Errorf("crash row: %s", crash.Raw)
	}
	var tokens, tools int64
	perHost := map[string]int64{}
	for _, name := range []string{"good", "raw", longServer, "ts"} {
		one := mcpprobe(t, "budget", "--config", cfg, name, "--json")
		if one.code != 0 {
			t.Fatalf("budget %s: exit %d: %s", name, one.code, one.stderr)
		}
		b := section(t, "budget", one.stdout)
		tokens += b.Get("tokens.total").Int()
		tools += b.Get("tokens.tools.#").Int()
		for _, h := range b.Get("tokens.by_host").Array() {
			perHost[h.Get("host").String()] += h.Get("tokens").Int()
		}
		row := all.Get(`servers.#(name==` + name + `).result`)
		if row.Get("tokens.total").Int() != b.Get("tokens.total").Int() {
			t.Errorf("%s: --all has %d tokens, a single run %d", name, row.Get("tokens.total").Int(), b.Get("tokens.total").Int())
		}
	}
	tt := all.Get("totals")
	if tokens == 0 || tt.Get("tokens").Int() != tokens || tt.Get("tools").Int() != tools || tt.Get("probed").Int() != 4 || tt.Get("failed").Int() != 1 {
		t.Errorf("totals %s; single runs: %d tokens, %d tools", tt.Raw, tokens, tools)
	}
	// Each host's figure is what it pays, the sum of what single runs
	// say it pays, and no two hosts pay alike here: Codex prepends the instructions to every description, so it pays
	// more; claude.ai drops the instructions and pays the arrays without
	// output schemas.
	hosts := map[string]gjson.Result{}
	distinct := map[int64]bool{}
	for _, h := range tt.Get("hosts").Array() {
		id := h.Get("host").String()
		hosts[id] = h
		distinct[h.Get("tokens").Int()] = true
		if h.Get("tokens").Int() != perHost[id] || perHost[id] == 0 {
			t.Errorf("%s: %d tokens every request, single runs add up to %d", id, h.Get("tokens").Int(), perHost[id])
		}
	}
	if len(distinct) < 4 {
		t.Errorf("hosts pay %d distinct figures, want one per host: %s", len(distinct), tt.Get("hosts.#.tokens").Raw)
	}
	if cx, cc := hosts["codex"].Get("tokens").Int(), hosts["claude-ai"].Get("tokens").Int(); cx <= tokens || cc >= tokens {
		t.Errorf("codex pays %d (prepended instructions: want > %d as sent), claude.ai %d (no output schemas, no instructions: want < %d)", cx, tokens, cc, tokens)
	}
	if hosts["codex"].Get("if_loaded").Bool() != true || hosts["claude-code"].Get("if_loaded").Bool() != false {
		t.Errorf("if_loaded: codex %s, claude-code %s", hosts["codex"].Get("if_loaded").Raw, hosts["claude-code"].Get("if_loaded").Raw)
	}
	if !strings.Contains(tt.Raw, `"instructions_tokens"`) {
		t.Errorf("hosts lack instructions_tokens: %s", tt.Raw)
	}
	if cc := hosts["claude-code"]; cc.Get("tool_search").String() != "loads" || cc.Get("threshold_tokens").Int() != 20000 || cc.Get("names_over_limit.#").Int() != 2 {
		t.Errorf("claude-code: %s", cc.Raw)
	}
	if cx := hosts["codex"]; cx.Get("tool_search").String() != "defers" || cx.Get("names_over_limit.#").Int() != 2 {
		t.Errorf("codex: %s", cx.Raw)
	}
	if c := tt.Get("collisions"); c.Get("#").Int() < 1 || !strings.Contains(c.Raw, "find_orders") {
		t.Errorf("collisions: %s", c.Raw)
	}

	// Claude Code's threshold follows ENABLE_TOOL_SEARCH=auto:N: at 0%
	// any definitions defer.
	r = mcpprobeEnv(t, []string{"ENABLE_TOOL_SEARCH=auto:0"}, "budget", "--config", cfg, "--all", "--json", "--host", "claude-code")
	if got := gjson.Get(r.stdout, "budget.totals.hosts.0.tool_search").String(); got != "defers" {
		t.Errorf("ENABLE_TOOL_SEARCH=auto:0: tool_search %q: %s", got, r.stderr)
	}
}

func TestConfigAllReportWireTrace(t *testing.T) {
	t.Parallel()
	cfg := fiveServers(t)
	dir := t.TempDir()
	md := filepath.Join(dir, "MCPPROBE.md")
	r := mcpprobe(t, "report", "--config", cfg, "--all", "--date", "2026-12-01", "-o", md)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(md)
	for _, want := range []string{"## Whole config", "### By host", "## crash — could not be probed", "## good: ", "### Findings (ts)", "- What happened:"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	r = mcpprobe(t, "report", "--config", cfg, "--all", "--json")
	if v := section(t, "report", r.stdout); v.Get("servers.1.result.budget.tokens.total").Int() == 0 {
		t.Errorf("report --all --json: %.300s", v.Raw)
	}

	trace := filepath.Join(dir, "trace.jsonl")
	r = mcpprobe(t, "wire", "--config", cfg, "--all", "--trace", trace)
	if r.code != 0 || !strings.Contains(r.stdout, "total") || strings.Contains(r.stdout, "=== server") || !strings.Contains(r.stdout, "Received:") {
		t.Fatalf("wire --all: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	tb, _ := os.ReadFile(trace)
	conns := map[int64]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(tb)), "\n") {
		conns[gjson.Get(l, "conn").Int()] = true
	}
	for n := int64(1); n <= 5; n++ {
		if !conns[n] {
			t.Errorf("no line of connection %d in the trace (%v)", n, conns)
		}
	}
	r = mcpprobe(t, "wire", "--config", cfg, "--all", "--json")
	if v := section(t, "wire", r.stdout); v.Get("totals.tools").Int() == 0 || v.Get("totals.tokens").Type != gjson.Null {
		t.Errorf("wire --all --json totals: %s", v.Get("totals").Raw)
	}
}

// A Codex config.toml: a server turned off is a row, not run.
func TestConfigAllCodex(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "config.toml")
	body := "[mcp_servers.good]\ncommand = \"" + bin.good + "\"\nstartup_timeout_sec = 20\n" +
		"[mcp_servers.good.env]\nORDERS_API_KEY = \"sk-codex-secret-4242\"\n\n" +
		"[mcp_servers.off]\ncommand = \"" + bin.raw + "\"\nenabled = false\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mcpprobe(t, "budget", "--config", p, "--all", "--json")
	v := section(t, "budget", r.stdout)
	if r.code != 0 || v.Get("format").String() != "codex" || v.Get("servers.1.status").String() != "disabled" || v.Get("totals.probed").Int() != 1 {
		t.Errorf("exit %d: %.400s %s", r.code, v.Raw, r.stderr)
	}
	for _, args := range [][]string{{"budget", "--config", p, "--all"}, {"report", "--config", p, "--all"}} {
		if r := mcpprobe(t, args...); strings.Contains(r.stdout+r.stderr, "sk-codex-secret-4242") {
			t.Errorf("%q shows the env secret", args)
		}
	}
	if strings.Contains(r.stdout, "sk-codex-secret-4242") {
		t.Error("--json shows the env secret")
	}
	r = mcpprobe(t, "servers", "--config", p)
	if r.code != 0 || !strings.Contains(r.stdout, "off") {
		t.Errorf("servers: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}

func TestConfigAllUsage(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(p, []byte(`{"mcpServers": {"a": {"command": "./no-such-server"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"budget", "--all"},
		{"budget", "--config", p, "--all", "a"},
		{"budget", "--config", p, "--jobs", "2", "a"},
		{"budget", "--config", p, "--all", "--jobs", "0"},
		{"budget", "--config", p, "--all", "--view", "claude-code"},
		{"report", "--config", p, "--all", "--bench"},
		{"report", "--config", p, "--all", "--call", "echo"},
		{"wire", "--config", p, "--all", "--save", t.TempDir()},
		{"diff", "--config", p, "--all"},
		{"snapshot", "--config", p, "--all"},
	} {
		if r := mcpprobe(t, args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d, want 2: %s", args, r.code, r.stderr)
		}
	}
	// A config whose every server fails: exit 3, the rows still printed.
	r := mcpprobe(t, "budget", "--config", p, "--all")
	if r.code != 3 || !strings.Contains(r.stdout, "server a: Could not be probed") {
		t.Errorf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}

// mcpprobeEnv runs the built binary with extra environment variables.
func mcpprobeEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpprobe: %v", err)
	}
	return r
}

// Gemini CLI's settings.json: httpUrl is Streamable HTTP, url is legacy
// SSE, $VAR is expanded and a header's value stays hidden.
func TestConfigAllGemini(t *testing.T) {
	t.Parallel()
	http := strings.TrimSpace(strings.TrimPrefix(startHTTPServer(t, nil, "listening on", bin.good, "-http", "127.0.0.1:0"), "listening on"))
	sse := strings.TrimSpace(strings.TrimPrefix(startHTTPServer(t, nil, "listening on", bin.good, "-sse", "127.0.0.1:0"), "listening on"))
	dir := filepath.Join(t.TempDir(), ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{
  // comments, as Gemini CLI allows
  "mcpServers": {
    "streamable": {"httpUrl": "` + http + `", "headers": {"Authorization": "Bearer $GEMINI_E2E_TOKEN"}, "trust": true},
    "legacy": {"url": "` + sse + `", "timeout": 5000}
  }
}`
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mcpprobeEnv(t, []string{"GEMINI_E2E_TOKEN=gm-secret-777"}, "wire", "--config", p, "--all", "--json")
	if r.code != 0 || strings.Contains(r.stdout, "gm-secret-777") {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	v := section(t, "wire", r.stdout)
	if v.Get("format").String() != "gemini" || v.Get("totals.probed").Int() != 2 {
		t.Fatalf("%.400s", v.Raw)
	}
	if got := v.Get(`servers.#(name=="legacy").result.transport`).String(); got != "sse" {
		t.Errorf("url: transport %q, want sse", got)
	}
	if got := v.Get(`servers.#(name=="streamable").result.transport`).String(); got != "streamable-http" {
		t.Errorf("httpUrl: transport %q, want streamable-http", got)
	}
}

// TestConfigAllToolLists checks that a config's include/exclude lists
// (Codex enabled_tools/disabled_tools, Gemini CLI includeTools/
// excludeTools) take their tools out of the sums, the tokens and the name
// checks, say which, and that a single run of one server pays the same.
func TestConfigAllToolLists(t *testing.T) {
	t.Parallel()
	ts := tsServer(t, "raw")
	dir := t.TempDir()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	codex := filepath.Join(dir, "config.toml")
	body := "[mcp_servers.good]\ncommand = " + q(bin.good) + "\ndisabled_tools = [\"find_orders\"]\n\n" +
		"[mcp_servers.raw]\ncommand = " + q(bin.raw) + "\nenabled_tools = [\"alpha\", \"beta\", \"absent\"]\n\n" +
		"[mcp_servers.ts]\ncommand = " + q(ts[0]) + "\nargs = [" + q(ts[1]) + ", " + q(ts[2]) + "]\n"
	if err := os.WriteFile(codex, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	gemini := filepath.Join(dir, "settings.json")
	body = `{"mcpServers": {
  "good": {"command": ` + q(bin.good) + `, "excludeTools": ["find_orders"]},
  "raw": {"command": ` + q(bin.raw) + `, "includeTools": ["alpha", "beta", "absent"]},
  "ts": {"command": ` + q(ts[0]) + `, "args": [` + q(ts[1]) + `, ` + q(ts[2]) + `]}
}}`
	if err := os.WriteFile(gemini, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []string{codex, gemini} {
		t.Run(filepath.Base(cfg), func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, "budget", "--config", cfg, "--all", "--json")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			all := section(t, "budget", r.stdout)
			if got := all.Get(`servers.#(name=="good").filtered_out`).Raw; got != `["find_orders"]` {
				t.Errorf("good filtered_out %s", got)
			}
			if got := all.Get(`servers.#(name=="raw").filtered_out`).Raw; got != `["gamma","delta","epsilon","zeta","eta","theta"]` {
				t.Errorf("raw filtered_out %s", got)
			}
			if got := all.Get(`servers.#(name=="ts").filtered_out`).Raw; got != `[]` {
				t.Errorf("ts filtered_out %s", got)
			}
			tt := all.Get("totals")
			// good's find_orders is left out: ts's alone is no collision.
			if strings.Contains(tt.Get("collisions").Raw, "find_orders") {
				t.Errorf("collisions count a tool the config leaves out: %s", tt.Get("collisions").Raw)
			}
			perHost := map[string]int64{}
			var tools int64
			for _, name := range []string{"good", "raw", "ts"} {
				one := mcpprobe(t, "budget", "--config", cfg, name, "--json")
				if one.code != 0 {
					t.Fatalf("budget %s: exit %d: %s", name, one.code, one.stderr)
				}
				b := section(t, "budget", one.stdout)
				if got, want := b.Get("filtered_out").Raw, all.Get(`servers.#(name=="`+name+`").filtered_out`).Raw; got != want {
					t.Errorf("%s: a single run leaves out %s, --all %s", name, got, want)
				}
				tools += b.Get("tokens.tools.#").Int() - b.Get("filtered_out.#").Int()
				for _, h := range b.Get("tokens.by_host").Array() {
					perHost[h.Get("host").String()] += h.Get("tokens").Int()
				}
			}
			if tt.Get("tools").Int() != tools {
				t.Errorf("totals.tools %d, want %d (the tools the config shows)", tt.Get("tools").Int(), tools)
			}
			for _, h := range tt.Get("hosts").Array() {
				if id := h.Get("host").String(); h.Get("tokens").Int() != perHost[id] {
					t.Errorf("%s: %d tokens, single runs add up to %d", id, h.Get("tokens").Int(), perHost[id])
				}
			}
			// Without the lists, every host pays more.
			plain := mcpprobe(t, "budget", "--json", bin.raw)
			one := mcpprobe(t, "budget", "--config", cfg, "raw", "--json")
			for _, id := range []string{"claude-code", "codex"} {
				p := gjson.Get(plain.stdout, `budget.tokens.by_host.#(host=="`+id+`").tokens`).Int()
				f := gjson.Get(one.stdout, `budget.tokens.by_host.#(host=="`+id+`").tokens`).Int()
				if f <= 0 || f >= p {
					t.Errorf("%s: raw with 2 of 8 tools pays %d, all 8 %d", id, f, p)
				}
			}
			// good's one cut on Claude Code 2.1.295 is find_orders's, which the
			// host never shows: no cut to fail on. Unfiltered, the same
			// server trips.
			// (Claude Code up to 2.1.295: 2,048; find_orders has 2,172 units.)
			if r := mcpprobe(t, "budget", "--config", cfg, "good", "--host", "claude-code@2.1.295", "--fail-on", "cut"); r.code != 0 {
				t.Errorf("--fail-on cut with find_orders left out: exit %d: %s", r.code, r.stderr)
			}
			if r := mcpprobe(t, "budget", "--host", "claude-code@2.1.295", "--fail-on", "cut", bin.good); r.code != 1 {
				t.Errorf("--fail-on cut on good alone: exit %d, want 1", r.code)
			}
			// servers shows the lists, so the sums are no surprise.
			if r := mcpprobe(t, "servers", "--config", cfg, "--wide"); !strings.Contains(r.stdout, "(not tools find_orders)") ||
				!strings.Contains(r.stdout, "(only tools alpha, beta, absent)") {
				t.Errorf("servers does not show the lists: %s", r.stdout)
			}
			text := mcpprobe(t, "budget", "--config", cfg, "--all")
			for _, want := range []string{"Tools the config's include/exclude lists leave out", "probed, 6 left out by the config", "2 of 8", "Left out by the config's tool lists (not paid for): find_orders."} {
				if !strings.Contains(text.stdout, want) {
					t.Errorf("text lacks %q", want)
				}
			}
		})
	}
}
