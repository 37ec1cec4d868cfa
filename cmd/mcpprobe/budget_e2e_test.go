//go:build e2e

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func budgetJSON(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	// Every tool under every host: these tests read the figures of tools
	// delivered whole too (TestBudgetJSONListsWhatChanges has the default).
	r := mcpprobe(t, append([]string{"budget", "--json", "--per-host-tools"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	return envelope(t, "budget", r.stdout)
}

// TestBudgetJSONListsWhatChanges: by default each host lists only the
// tools it does not deliver as sent, and counts the rest, so the section
// grows with what it reports; --per-host-tools lists them all, and is
// refused without --json.
func TestBudgetJSONListsWhatChanges(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "budget", "--json", "--", bin.raw, "-budget")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	compact := envelope(t, "budget", r.stdout)
	full := budgetJSON(t, "--", bin.raw, "-budget")
	for _, h := range full.Get("budget.hosts").Array() {
		id := h.Get("host").String()
		c := compact.Get(fmt.Sprintf(`budget.hosts.#(host==%q)`, id))
		var want []string
		for _, tool := range h.Get("tools").Array() {
			asSent := tool.Get("delivered").String() == "whole" && !tool.Get("input_schema.dropped").Bool() &&
				!(tool.Get("input_schema.threshold_unknown").Bool() && tool.Get("input_schema.property_descriptions").Int() > 0) &&
				(tool.Get("output_schema").Type == gjson.Null || tool.Get("output_schema").String() == "delivered")
			if !asSent {
				want = append(want, tool.Get("name").String())
			}
		}
		var got []string
		for _, tool := range c.Get("tools").Array() {
			got = append(got, tool.Get("name").String())
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s lists %v, want the tools it changes %v", id, got, want)
		}
		if n := c.Get("tools_as_sent").Int(); int(n) != len(h.Get("tools").Array())-len(want) || c.Get("tools_listed").String() != "changed" {
			t.Errorf("%s: tools_as_sent %d, tools_listed %s; want %d, changed", id, n, c.Get("tools_listed"), len(h.Get("tools").Array())-len(want))
		}
		if h.Get("tools_listed").String() != "all" || h.Get("tools_as_sent").Int() != c.Get("tools_as_sent").Int() {
			t.Errorf("%s with --per-host-tools: tools_listed %s, tools_as_sent %d", id, h.Get("tools_listed"), h.Get("tools_as_sent").Int())
		}
	}
	if len(compact.Get("budget.hosts.#(host==\"claude-code\").tools").Array()) == 0 {
		t.Error("claude-code lists no tool; the fixture cuts some")
	}
	if r := mcpprobe(t, "budget", "--per-host-tools", bin.good); r.code != 2 || !strings.Contains(r.stderr, "--per-host-tools is for --json") {
		t.Errorf("--per-host-tools without --json: exit %d, stderr %s", r.code, r.stderr)
	}
}

func hostTool(v gjson.Result, host, tool string) gjson.Result {
	return v.Get(fmt.Sprintf(`budget.hosts.#(host==%q).tools.#(name==%q)`, host, tool))
}

// The fixture sits exactly at, one under and one over every budget.
func TestBudgetAtTheEdges(t *testing.T) {
	t.Parallel()
	// Every default host, and Claude Code as it was up to 2.1.295 (a
	// 2,048 cut; 4,096 since 2.1.296).
	v := budgetJSON(t, "--host", "claude-code@2.1.295,claude-code,cowork,claude-ai,chatgpt-chat,chatgpt-work,codex,all", "--", bin.raw, "-budget", "-instructions-len", "513")
	tests := []struct {
		host, tool, delivered string
		len, lost             int
		splitsChar            bool
	}{
		{"claude-code@2.1.295", "desc_2047", "whole", 2047, 0, false},
		{"claude-code@2.1.295", "desc_2048", "whole", 2048, 0, false},
		{"claude-code@2.1.295", "desc_2049", "cut", 2049, 1, false},
		// Claude Code keeps surrogate pairs whole (read in its code,
		// 2.1.197 to 2.1.332): 2,047 units before the emoji, 2 lost.
		{"claude-code@2.1.295", "emoji_split", "cut", 2049, 2, false},
		{"claude-code@2.1.295", "accents_2048", "whole", 2048, 0, false},
		{"claude-code", "desc_2049", "whole", 2049, 0, false},
		{"claude-code", "emoji_split", "whole", 2049, 0, false},
		{"claude-code", "desc_4095", "whole", 4095, 0, false},
		{"claude-code", "desc_4096", "whole", 4096, 0, false},
		{"claude-code", "desc_4097", "cut", 4097, 1, false},
		{"cowork", "desc_4095", "whole", 4095, 0, false},
		{"cowork", "desc_4096", "whole", 4096, 0, false},
		{"cowork", "desc_4097", "cut", 4097, 1, false},
		{"claude-code", "no_desc", "missing", 0, 0, false},
		{"claude-code", "empty_desc", "whole", 0, 0, false},
		{"all", "desc_2049", "cut", 2049, 1, false},
	}
	for _, tc := range tests {
		got := hostTool(v, tc.host, tc.tool)
		if got.Get("delivered").String() != tc.delivered || int(got.Get("description_len").Int()) != tc.len || int(got.Get("lost_len").Int()) != tc.lost {
			t.Errorf("%s on %s: %s", tc.tool, tc.host, got.Raw)
		}
		if got.Get("cut.splits_character").Bool() != tc.splitsChar {
			t.Errorf("%s on %s: splits_character = %v", tc.tool, tc.host, got.Get("cut.splits_character"))
		}
	}
	if got := hostTool(v, "claude-code", "accents_2048").Get("description_bytes").Int(); got != 4096 {
		t.Errorf("accents: %d bytes, want 4096", got)
	}
	if got := hostTool(v, "claude-code@2.1.295", "emoji_split").Get("delivered_len").Int(); got != 2047 {
		t.Errorf("emoji_split: %d units delivered, want 2047", got)
	}
	if got := hostTool(v, "claude-code", "emoji_split").Get("description_codepoints").Int(); got != 1025 {
		t.Errorf("emoji_split: %d code points, want 1025", got)
	}
	for _, tc := range []struct {
		tool    string
		size    int
		dropped bool
	}{{"schema_4999", 4999, false}, {"schema_5000", 5000, false}, {"schema_5001", 5001, true}} {
		s := hostTool(v, "codex", tc.tool).Get("input_schema")
		if int(s.Get("serialized_len").Int()) != tc.size || s.Get("dropped").Bool() != tc.dropped || s.Get("property_descriptions").Int() != 2 {
			t.Errorf("%s on codex: %s", tc.tool, s.Raw)
		}
	}
	in := v.Get(`budget.hosts.#(host=="chatgpt-chat").instructions`)
	if in.Get("delivered").String() != "cut" || in.Get("len").Int() != 513 || in.Get("lost_len").Int() != 1 {
		t.Errorf("instructions on chatgpt-chat: %s", in.Raw)
	}
	if got := v.Get(`budget.hosts.#(host=="claude-ai").instructions.delivered`).String(); got != "not_delivered" {
		t.Errorf("instructions on claude-ai: %s", got)
	}
	codes := map[string][]string{}
	for _, f := range v.Get("findings").Array() {
		codes[f.Get("code").String()] = append(codes[f.Get("code").String()], f.Get("tool").String())
	}
	if got := strings.Join(codes["block-past-cut"], ","); got != "blocks" {
		t.Errorf("block-past-cut for %q, want blocks", got)
	}
	if got := strings.Join(codes["schema-drop"], ","); got != "schema_5001" {
		t.Errorf("schema-drop for %q, want schema_5001", got)
	}
	if got := strings.Join(codes["empty-description"], ","); got != "empty_desc,no_desc" {
		t.Errorf("empty-description for %q", got)
	}
	if v.Get("budget.tokens.encoding").String() != "o200k_base" || v.Get("budget.tokens.total").Int() <= v.Get("budget.tokens.tools.0.tokens").Int() {
		t.Errorf("tokens = %s", v.Get("budget.tokens").Raw)
	}
	for _, n := range []int{511, 512} {
		w := budgetJSON(t, "--host", "chatgpt-chat", "--", bin.raw, "-instructions-len", fmt.Sprint(n))
		if got := w.Get("budget.hosts.0.instructions.delivered").String(); got != "whole" {
			t.Errorf("%d chars of instructions on chatgpt-chat: %s", n, got)
		}
	}
}

func TestBudgetOptions(t *testing.T) {
	t.Parallel()
	t.Run("override a cut", func(t *testing.T) {
		v := budgetJSON(t, "--host", "claude-code=3000", bin.good)
		if got := hostTool(v, "claude-code", "find_orders").Get("delivered").String(); got != "whole" {
			t.Errorf("find_orders (2,172 units) under a 3,000 cut: %s", got)
		}
		if n := len(v.Get("budget.hosts").Array()); n != 1 {
			t.Errorf("%d hosts, want 1", n)
		}
	})
	t.Run("fail-on gates", func(t *testing.T) {
		for _, tc := range []struct {
			gate string
			code int
		}{{"cut", 1}, {"schema-drop", 0}, {"lint-error", 0}, {"lint-warning", 0}} {
			r := mcpprobe(t, "budget", "--quiet", "--fail-on", tc.gate, bin.good)
			if r.code != tc.code {
				t.Errorf("--fail-on %s: exit %d, want %d: %s", tc.gate, r.code, tc.code, r.stderr)
			}
		}
		r := mcpprobe(t, "budget", "--fail-on", "schema-drop,cut", "--", bin.raw, "-budget")
		if r.code != 1 || !strings.Contains(r.stderr, "schema-drop (1), cut (") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})
	t.Run("show-cut", func(t *testing.T) {
		r := mcpprobe(t, "budget", "--host", "claude-code@2.1.280", "--show-cut", bin.good)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, want := range []string{"── find_orders on Claude Code 2.1.280: 2,048 of 2,172 UTF-16 units delivered (6% lost)", "✂─ cut at 2,048, line 15, column 47; the host appends \"… [truncated]\"", "   ✗ "} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("--show-cut lacks %q:\n%s", want, r.stdout)
			}
		}
	})
	t.Run("view", func(t *testing.T) {
		r := mcpprobe(t, "budget", "--view", "claude-code@2.1.280", bin.good)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, want := range []string{"# What Claude Code 2.1.280 receives from orders-server 1.4.2", "## `find_orders`", "… [truncated]\n```", "Output schema: not delivered."} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("--view lacks %q", want)
			}
		}
		if strings.Contains(r.stdout, "ALERTS: never show") {
			t.Errorf("--view shows text past the cut")
		}
		// --view prints markdown: with --json it is refused, not ignored.
		if r := mcpprobe(t, "budget", "--view", "claude-code", "--json", bin.good); r.code != 2 || !strings.Contains(r.stderr, "--view and --json conflict") {
			t.Errorf("--view --json: exit %d: %s", r.code, r.stderr)
		}
		codex := mcpprobe(t, "budget", "--view", "codex", bin.good)
		if !strings.Contains(codex.stdout, "This server manages the ACME order book.") || !strings.Contains(codex.stdout, "Output schema (delivered)") {
			t.Errorf("codex view lacks the prepended instructions or the output schema")
		}
	})
	t.Run("a thousand tools and a 100,000-char description", func(t *testing.T) {
		v := budgetJSON(t, "--host", "claude-code", "--", bin.raw, "-many", "1000")
		if n := len(v.Get("budget.hosts.0.tools").Array()); n != 1000 {
			t.Errorf("%d tools", n)
		}
		v = budgetJSON(t, "--host", "claude-code", "--", bin.raw, "-long-desc", "100000")
		if got := v.Get("budget.hosts.0.tools.0"); got.Get("description_len").Int() != 100000 || got.Get("lost_len").Int() != 100000-4096 {
			t.Errorf("long description: %s", got.Raw)
		}
	})
	t.Run("unknown host", func(t *testing.T) {
		r := mcpprobe(t, "budget", "--host", "netscape", bin.good)
		if r.code != 2 || !strings.Contains(r.stderr, "unknown host") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})
}
