package budget

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

var claude = hosts.Rule{Rule: "cut", Limit: 2048, Unit: "utf16", Marker: "… [truncated]"}

func TestDeliver(t *testing.T) {
	emoji := "😀" // 1 code point, 2 UTF-16 units, 4 bytes
	tests := []struct {
		name                  string
		text                  string
		rule                  hosts.Rule
		mode                  string
		len, delivered, lost  int
		line, col             int
		splitsWord, splitChar bool
	}{
		{"one under", strings.Repeat("a", 2047), claude, "whole", 2047, 2047, 0, 0, 0, false, false},
		{"exactly at", strings.Repeat("a", 2048), claude, "whole", 2048, 2048, 0, 0, 0, false, false},
		{"one over splits a word", strings.Repeat("a", 2049), claude, "cut", 2049, 2048, 1, 1, 2049, true, false},
		{"cut between words", strings.Repeat("a", 2047) + " b", claude, "cut", 2049, 2048, 1, 1, 2049, false, false},
		{"emoji counts two", strings.Repeat(emoji, 1024), claude, "whole", 2048, 2048, 0, 0, 0, false, false},
		{"emoji over by one unit", strings.Repeat(emoji, 1024) + "x", claude, "cut", 2049, 2048, 1, 1, 1025, false, false},
		{"cut inside a surrogate pair", "a" + strings.Repeat(emoji, 1024), claude, "cut", 2049, 2048, 1, 1, 1025, true, true},
		{"accents are one unit, two bytes", strings.Repeat("é", 2048), claude, "whole", 2048, 2048, 0, 0, 0, false, false},
		{"line and column of the cut", strings.Repeat("x", 2000) + "\nline two is here and goes on past the cut" + strings.Repeat(".", 100), claude, "cut", 2142, 2048, 94, 2, 48, false, false},
		{"empty", "", claude, "whole", 0, 0, 0, 0, 0, false, false},
		{"codepoint unit", strings.Repeat(emoji, 513), hosts.Rule{Rule: "cut", Limit: 512, Unit: "codepoint"}, "cut", 513, 512, 1, 1, 513, false, false},
		{"byte unit splits a character", "a" + strings.Repeat("é", 10), hosts.Rule{Rule: "cut", Limit: 4, Unit: "byte"}, "cut", 21, 4, 17, 1, 3, true, true},
		{"whole rule", strings.Repeat("a", 100000), hosts.Rule{Rule: "whole"}, "whole", 100000, 100000, 0, 0, 0, false, false},
		{"100,000 chars cut", strings.Repeat("a", 100000), claude, "cut", 100000, 2048, 97952, 1, 2049, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Deliver(tc.text, tc.rule)
			if got.Mode != tc.mode || got.Len != tc.len || got.Delivered != tc.delivered || got.Lost != tc.lost {
				t.Fatalf("mode %s len %d delivered %d lost %d, want %s %d %d %d", got.Mode, got.Len, got.Delivered, got.Lost, tc.mode, tc.len, tc.delivered, tc.lost)
			}
			if tc.mode != "cut" {
				if got.Cut != nil || got.Head != tc.text {
					t.Errorf("a whole text has a cut or a different head")
				}
				return
			}
			c := got.Cut
			if c.Line != tc.line || c.Column != tc.col || c.SplitsWord != tc.splitsWord || c.SplitsChar != tc.splitChar {
				t.Errorf("cut %+v, want line %d col %d word %v char %v", *c, tc.line, tc.col, tc.splitsWord, tc.splitChar)
			}
			// What is delivered and what is lost add up to the text.
			head := strings.TrimSuffix(got.Head, "\uFFFD")
			if head+got.Tail != tc.text {
				t.Errorf("head+tail != text")
			}
			if tc.splitChar != strings.HasSuffix(got.Head, "\uFFFD") {
				t.Errorf("a split character must show as U+FFFD at the end of the head")
			}
			if want := 100 * float64(tc.lost) / float64(tc.len); got.LostPct != want {
				t.Errorf("lost %.2f%%, want %.2f%%", got.LostPct, want)
			}
		})
	}
}

func capture(tools []string, instructions *string) *probe.Capture {
	c := &probe.Capture{Instructions: instructions}
	for _, tl := range tools {
		c.Tools.Items = append(c.Tools.Items, []byte(tl))
	}
	return c
}

func hostByID(t *testing.T, id string) hosts.Host {
	t.Helper()
	hs, err := hosts.Select(hosts.Known(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	return hs[0]
}

func TestInstructions(t *testing.T) {
	in := strings.Repeat("i", 513)
	tests := []struct {
		host string
		in   *string
		mode string
		lost int
	}{
		{"chatgpt-chat", &in, "cut", 1},
		{"claude-code", &in, "whole", 0},
		{"claude-ai", &in, "not_delivered", 513},
		{"codex", &in, "prepended", 0},
		{"claude-code", nil, "missing", 0},
	}
	for _, tc := range tests {
		r := Compute(capture(nil, tc.in), []hosts.Host{hostByID(t, tc.host)})
		got := r.Hosts[0].Instructions
		if got.Mode != tc.mode || got.Lost != tc.lost {
			t.Errorf("%s: mode %s lost %d, want %s %d", tc.host, got.Mode, got.Lost, tc.mode, tc.lost)
		}
	}
	for _, n := range []int{511, 512} {
		s := strings.Repeat("i", n)
		if got := Compute(capture(nil, &s), []hosts.Host{hostByID(t, "chatgpt-chat")}).Hosts[0].Instructions; got.Mode != "whole" {
			t.Errorf("%d chars of instructions on ChatGPT: %s, want whole", n, got.Mode)
		}
	}
}

// schemaOfSize builds an input schema whose compact JSON is exactly n bytes,
// with two property descriptions.
func schemaOfSize(t *testing.T, n int) string {
	t.Helper()
	base := `{"type":"object","properties":{"q":{"type":"string","description":"%s"},"limit":{"type":"integer","description":"how many"}}}`
	pad := n - (len(base) - 2)
	if pad < 0 {
		t.Fatalf("schema cannot be %d bytes", n)
	}
	s := fmt.Sprintf(base, strings.Repeat("d", pad))
	if len(Serialize([]byte(s))) != n {
		t.Fatalf("built %d bytes, want %d", len(Serialize([]byte(s))), n)
	}
	return s
}

func TestCodexSchemaRule(t *testing.T) {
	codex := hostByID(t, "codex")
	for _, tc := range []struct {
		size    int
		dropped bool
	}{{4999, false}, {5000, false}, {5001, true}} {
		s := schemaOfSize(t, tc.size)
		tool := `{"name":"t","description":"x","inputSchema":` + s + `}`
		got := Compute(capture([]string{tool}, nil), []hosts.Host{codex}).Hosts[0].Tools[0].Schema
		if got.Serialized != tc.size || got.Dropped != tc.dropped || got.Descriptions != 2 {
			t.Errorf("size %d: %+v", tc.size, got)
		}
		// Both descriptions go: the padding one (all the 'd's) and "how many".
		if want := strings.Count(s, "d") - strings.Count(`"description""description"`, "d") + len("how many"); tc.dropped && got.DroppedChars != want {
			t.Errorf("dropped chars = %d, want %d", got.DroppedChars, want)
		}
		if tc.dropped && strings.Contains(string(got.DroppedSchema), `"description"`) {
			t.Errorf("the dropped view still has descriptions: %s", got.DroppedSchema)
		}
	}
	// A spaced-out schema is measured as sent, compact.
	spaced := `{ "type" : "object" , "properties" : { } }`
	got := Compute(capture([]string{`{"name":"t","inputSchema":` + spaced + `}`}, nil), []hosts.Host{codex}).Hosts[0].Tools[0].Schema
	if got.Serialized != len(`{"properties":{},"type":"object"}`) {
		t.Errorf("serialized = %d", got.Serialized)
	}
	// ChatGPT Work drops at a threshold nobody measured.
	got = Compute(capture([]string{`{"name":"t","inputSchema":{"type":"object"}}`}, nil), []hosts.Host{hostByID(t, "chatgpt-work")}).Hosts[0].Tools[0].Schema
	if !got.Unknown {
		t.Errorf("chatgpt-work schema rule should be unknown: %+v", got)
	}
}

func TestMissingDescriptionAndOutputLoss(t *testing.T) {
	tools := []string{
		`{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":{"type":"string","description":"the x"}}}}`,
		`{"name":"b","description":"","inputSchema":{"type":"object"}}`,
	}
	r := Compute(capture(tools, nil), []hosts.Host{hostByID(t, "claude-code")})
	if got := r.Hosts[0].Tools[0].Description.Mode; got != "missing" {
		t.Errorf("missing description mode = %s", got)
	}
	if got := r.Hosts[0].Tools[1].Description; got.Mode != "whole" || got.Len != 0 {
		t.Errorf("empty description = %+v", got)
	}
	if len(r.OutputLost) != 1 || r.OutputLost[0].Tool != "a" || r.OutputLost[0].Descriptions != 1 || r.OutputLost[0].Chars != 5 {
		t.Errorf("output lost = %+v", r.OutputLost)
	}
	if r := Compute(capture(tools, nil), hosts.Known()); len(r.OutputLost) != 0 {
		t.Errorf("codex delivers output schemas, yet %+v", r.OutputLost)
	}
}

func TestThousandToolsIsFast(t *testing.T) {
	var tools []string
	for i := 0; i < 1000; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"t%04d","description":"%s","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"query"}}}}`, i, strings.Repeat("w ", 2500)))
	}
	start := time.Now()
	hs, _ := hosts.Select(hosts.Known(), nil)
	r := Compute(capture(tools, nil), hs)
	if len(r.Hosts) != len(hosts.Known())+1 || len(r.Hosts[0].Tools) != 1000 {
		t.Fatalf("%d hosts, %d tools", len(r.Hosts), len(r.Hosts[0].Tools))
	}
	if r.Hosts[0].Tools[999].Description.Mode != "cut" {
		t.Errorf("5,000-unit descriptions must be cut on Claude Code")
	}
	// Not a timing assertion on a noisy machine: a guard against a
	// quadratic blow-up only.
	if d := time.Since(start); d > loadfactor.Scale(20*time.Second) {
		t.Errorf("1,000 tools took %v", d)
	}
}

// TestToolCountFindings: 155 tools go past VS Code's 128 per request (a
// warning: it groups them), Cursor's 40 (an error: the rest are not
// offered) and every other host's limit under 155; the message names the
// limit, what happens past it and how it is known.
func TestToolCountFindings(t *testing.T) {
	fs := ToolCountFindings(hosts.Known(), []int{155}, nil)
	var vscode string
	over := map[string]bool{}
	for _, f := range fs {
		for _, h := range hosts.Known() {
			if strings.Contains(f.Message, "mcpprobe hosts "+h.ID+")") {
				over[h.ID] = true
			}
		}
		if strings.Contains(f.Message, "VS Code") {
			vscode = string(f.Severity) + " " + f.Message
		}
	}
	if want := "warning the server's 155 tools: over VS Code (Copilot Chat)'s limit of 128 tools per request (its own tools count too): tools are grouped behind activate_* virtual tools the model must call first (read in its code, 2026-03; mcpprobe hosts vscode)"; vscode != want {
		t.Errorf("VS Code:\n got %s\nwant %s", vscode, want)
	}
	for _, id := range []string{"vscode", "cursor", "windsurf", "zed", "antigravity", "trae"} {
		if !over[id] {
			t.Errorf("155 tools: no finding for %s", id)
		}
	}
	if over["gemini-cli"] {
		t.Errorf("155 tools are under Gemini CLI's 512")
	}
	if fs := ToolCountFindings(hosts.Known(), []int{40}, nil); len(fs) != 0 {
		t.Errorf("40 tools: %v", fs)
	}
}
