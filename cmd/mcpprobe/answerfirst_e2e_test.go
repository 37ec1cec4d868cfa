//go:build e2e

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// TestAnswerFirstFitsTheTerminal walks the commands on the fixtures: at
// COLUMNS=80 and 100 on a terminal no line is wider than the terminal,
// and the first line is the answer, not a table.
func TestAnswerFirstFitsTheTerminal(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"good":{"command":"`+bin.good+`"},"whole":{"command":"`+bin.raw+`","args":["-bench-tools"]},"off":{"command":"false"}}}`)
	tests := []struct {
		name  string
		args  []string
		first string // the first line starts so
	}{
		{"wire good", []string{"wire", bin.good}, "orders-server 1.4.2: 3 tools"},
		{"wire raw", []string{"wire", "--", bin.raw, "-banner"}, "rawserver"},
		{"budget good", []string{"budget", bin.good}, "3 tools, delivered whole on every known host"},
		{"budget raw", []string{"budget", "--", bin.raw, "-budget"}, ""},
		{"call", []string{"call", "--arg", "text=hi", "--arg", "n=3", "echo", "--", bin.raw, "-bench-tools"}, "echo: result"},
		{"read", []string{"read", bin.good, "orders://recent"}, "orders://recent: result"},
		{"prompt", []string{"prompt", "--arg", "id=A-1001", bin.good, "summarize_order"}, "summarize_order: result"},
		{"diff", []string{"diff", bin.good, "--", bin.raw}, "differences in"},
		{"faults", []string{"faults", "--crash-at", "2", "--calls", "3", bin.good}, "client policy: spec · "},
		{"malformed", []string{"malformed", "--timeout", "1s", "--call", "find_orders", bin.good}, "13 cases: "},
		{"check", []string{"check", "--skip-malformed", bin.good}, " pass, 0 fail, 0 warn"}, // the count grows with the registry
		{"faults, every client", []string{"faults", "--crash-at", "2", "--calls", "3", "--client", "all", bin.good}, "what each client would see: "},
		{"servers", []string{"servers", "--config", cfg}, "3 servers in 1 host config file"},
		{"budget --all", []string{"budget", "--config", cfg, "--all"}, "3 servers, 2 probed, 1 failed"},
		{"wire --all", []string{"wire", "--config", cfg, "--all"}, "3 servers, 2 probed, 1 failed"},
	}
	// -q keeps the progress line off the terminal; servers has none.
	args := func(a []string) []string {
		if a[0] == "servers" {
			return a
		}
		return append([]string{a[0], "-q"}, a[1:]...)
	}
	for _, tc := range tests {
		for _, cols := range []int{80, 100} {
			t.Run(tc.name+" "+strings.Repeat("|", cols/20), func(t *testing.T) {
				t.Parallel()
				shown, stderr, code := onTerminal(t, 200, false, []string{"COLUMNS=" + strconv.Itoa(cols)}, args(tc.args)...)
				if code != 0 && code != 1 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				lines := strings.Split(strings.TrimRight(shown, "\n"), "\n")
				for _, l := range lines {
					if terminal.Width(l) > cols {
						t.Errorf("a line of %d columns at COLUMNS=%d:\n%s", terminal.Width(l), cols, l)
					}
				}
				if !strings.Contains(lines[0], tc.first) || strings.ContainsAny(lines[0], "┌│") {
					t.Errorf("first line %q, want the answer (%q)", lines[0], tc.first)
				}
			})
		}
	}
}

// TestAnswerFirstOneScreen: a call of echo on the everything server and
// the budget of a server whose tools are all whole fit in one screen
// (25 lines at 100 columns) without --verbose, answer first; --verbose
// has the full tables again.
func TestAnswerFirstOneScreen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, first, verboseHas string
		args                    func(t *testing.T) []string
	}{
		{"call echo on server-everything", "echo: result, 1 block; whole on every known host; survives every timeout policy", "Would a client give up on it?",
			func(t *testing.T) []string {
				return []string{"call", "echo", "--arg", "message=hello", "--", "node", peer(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"}
			}},
		{"budget, every tool whole", "4 tools, delivered whole on every known host", "tokens (o200k_base)",
			func(t *testing.T) []string { return []string{"budget", "--", bin.raw, "-bench-tools"} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := tc.args(t)
			shown, stderr, code := onTerminal(t, 200, false, []string{"COLUMNS=100"}, append([]string{args[0], "-q"}, args[1:]...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := strings.Split(strings.TrimRight(shown, "\n"), "\n")
			if len(lines) > 25 {
				t.Errorf("%d lines at 100 columns, want 25 or fewer:\n%s", len(lines), shown)
			}
			if !strings.HasPrefix(lines[0], tc.first) {
				t.Errorf("first line %q, want %q", lines[0], tc.first)
			}
			if strings.Contains(shown, tc.verboseHas) {
				t.Errorf("the full table (%q) without --verbose:\n%s", tc.verboseHas, shown)
			}
			full, _, _ := onTerminal(t, 200, false, []string{"COLUMNS=100"}, append([]string{args[0], "-q", "--verbose"}, args[1:]...)...)
			if !strings.Contains(full, tc.verboseHas) || strings.Count(full, "\n") <= len(lines) {
				t.Errorf("--verbose lacks the full table %q:\n%s", tc.verboseHas, full)
			}
		})
	}
}
