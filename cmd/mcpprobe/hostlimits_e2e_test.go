//go:build e2e

package main

// Issue 37: every host's tool-count ceiling and result rule reaches the
// commands: budget on one server, budget --config FILE --all on a whole
// file, call on a large result, and the hosts command.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// limitFindings are the tool-count-over-limit findings' messages.
func limitFindings(v gjson.Result) []string {
	var out []string
	for _, f := range v.Get("findings").Array() {
		if f.Get("code").String() != "tool-count-over-limit" {
			continue
		}
		// Info findings of one code come grouped: the first as the
		// message, every one in examples.
		msgs := []string{f.Get("message").String()}
		if ex := f.Get("examples").Array(); len(ex) > 0 {
			msgs = nil
			for _, e := range ex {
				msgs = append(msgs, e.String())
			}
		}
		for _, m := range msgs {
			out = append(out, f.Get("severity").String()+" "+m)
		}
	}
	return out
}

// TestBudgetToolCountCeilings: a server of 155 tools gets a finding naming
// VS Code's 128-tool ceiling, and one for every other host whose ceiling
// it passes (Cursor's 40 and 80, Windsurf's 50, Zed's 128, Antigravity's
// 100 per server, Trae's 40), none for Gemini CLI's 512.
func TestBudgetToolCountCeilings(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "budget", "--", bin.good, "-extra-tools", "152")
	fs := limitFindings(v)
	want := map[string]string{
		"VS Code (Copilot Chat)'s limit of 128 tools per request (its own tools count too): tools are grouped behind activate_* virtual tools": "warning",
		"Cursor's limit of 40 MCP tools across its servers: the tools past it are not offered":                                                 "error",
		"Cursor's limit of 80 MCP tools across its servers: the host warns":                                                                    "info",
		"Windsurf's limit of 50 MCP tools":                   "info",
		"Zed's limit of 128 tools per request":               "info",
		"Google Antigravity's limit of 100 tools per server": "info",
		"Trae's limit of 40 MCP tools":                       "info",
	}
	for w, sev := range want {
		found := false
		for _, f := range fs {
			found = found || strings.HasPrefix(f, sev+" the server's 155 tools: over "+w)
		}
		if !found {
			t.Errorf("no %s finding %q in %q", sev, w, fs)
		}
	}
	if len(fs) != len(want) {
		t.Errorf("%d tool-count findings, want %d: %q", len(fs), len(want), fs)
	}
	// 3 tools: under every ceiling.
	if fs := limitFindings(callJSON(t, 0, "budget", bin.good)); len(fs) != 0 {
		t.Errorf("3 tools: %q", fs)
	}
}

// TestConfigAllToolCount: budget --config FILE --all counts the whole
// file against each host's ceiling: 2 servers of 70 and 103 tools are
// over VS Code's 128 together, one of them over Antigravity's 100 per
// server, and neither alone over VS Code's.
func TestConfigAllToolCount(t *testing.T) {
	t.Parallel()
	servers := map[string]any{
		"small": map[string]any{"command": bin.good, "args": []string{"-extra-tools", "67"}},
		"large": map[string]any{"command": bin.good, "args": []string{"-extra-tools", "100"}},
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mcpprobe(t, "budget", "--json", "--config", cfg, "--all")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	all := strings.Join(limitFindings(gjson.Parse(r.stdout)), "\n")
	for _, w := range []string{
		"warning the file's 173 tools: over VS Code (Copilot Chat)'s limit of 128 tools per request",
		"info server `large`: the server's 103 tools: over Google Antigravity's limit of 100 tools per server",
		"info the file's 173 tools: over Windsurf's limit of 50 MCP tools across its servers",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("no %q in:\n%s", w, all)
		}
	}
	if strings.Contains(all, "`small`: the server's 70 tools: over Google Antigravity") {
		t.Errorf("70 tools are under Antigravity's 100:\n%s", all)
	}
}

// TestCallLargeResultGeminiCopilot: a 100,000-character text result, as
// Gemini CLI and Copilot CLI hand it to the model: which parts, how many
// units, not "unknown".
func TestCallLargeResultGeminiCopilot(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", "--host", "gemini-cli,copilot-cli", "call", "--", bin.raw, "-result-text", "100000")
	got := map[string]gjson.Result{}
	for _, d := range v.Get("call.deliveries").Array() {
		got[d.Get("host").String()] = d
	}
	if len(got) != 2 {
		t.Fatalf("deliveries %s", v.Get("call.deliveries").Raw)
	}
	g := got["gemini-cli"]
	if g.Get("outcome").String() != "truncated" || g.Get("size").Int() != 100_041 || g.Get("delivered").Int() != 40_000 || g.Get("lost").Int() != 60_041 ||
		!strings.Contains(g.Get("note").String(), "the first 8,000 and the last 32,000") {
		t.Errorf("Gemini CLI: %s", g.Raw)
	}
	c := got["copilot-cli"]
	if c.Get("outcome").String() != "persisted" || c.Get("size").Int() != 100_000 || c.Get("delivered").Int() != 500 || c.Get("lost").Int() != 99_500 ||
		!strings.Contains(c.Get("note").String(), "the first 500 characters") {
		t.Errorf("Copilot CLI: %s", c.Raw)
	}
	r := wantCode(t, 0, "call", "--host", "gemini-cli,copilot-cli", "call", "--", bin.raw, "-result-text", "100000")
	for _, w := range []string{"truncated on Gemini CLI", "persisted on Copilot CLI"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the text output lacks %q:\n%.600s", w, r.stdout)
		}
	}
}

// TestHostsCommand: the list names every host; one host shows each rule
// with how it is known and its source; an unknown id is a usage error.
func TestHostsCommand(t *testing.T) {
	t.Parallel()
	r := wantCode(t, 0, "hosts")
	for _, id := range []string{"claude-code", "cursor", "vscode", "copilot-cli", "gemini-cli", "windsurf", "zed", "claude-desktop"} {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("hosts lacks %s", id)
		}
	}
	r = wantCode(t, 0, "hosts", "gemini-cli")
	for _, w := range []string{"result: past 40000 UTF-16 units saved to a file", "code, 2026-12: @google/gemini-cli-core 0.61.0", "tool count: 512 tools per request"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("hosts gemini-cli lacks %q:\n%s", w, r.stdout)
		}
	}
	if r := mcpprobe(t, "hosts", "nosuch"); r.code != 2 || !strings.Contains(r.stderr, `unknown host "nosuch"`) {
		t.Errorf("hosts nosuch: exit %d, %s", r.code, r.stderr)
	}
	custom := customHosts(t) // an old-shape file still loads
	if r := wantCode(t, 0, "hosts", "--hosts", custom, "tiny-host"); !strings.Contains(r.stdout, "Tiny Host (tiny-host)") {
		t.Errorf("hosts --hosts FILE tiny-host:\n%s", r.stdout)
	}
}
