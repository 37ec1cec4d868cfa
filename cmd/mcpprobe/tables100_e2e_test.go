//go:build e2e

package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTablesAt100Columns runs wire, bench, load and servers on the
// fixtures on a terminal of 100 columns: every table's cells wrap only at
// spaces (each piece is made of words the full-width output has, or of
// numbers) and a number never parts from its unit (no piece starts with
// one). The full-width run (--wide) gives the words.
func TestTablesAt100Columns(t *testing.T) {
	t.Parallel()
	// A long folder, as a test's or a user's is: the servers' file path.
	dir := filepath.Join(t.TempDir(), "a-rather-long-folder-name-for-the-host-config", "of-this-project")
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"good":{"command":"`+bin.good+`"},"whole":{"command":"`+bin.raw+`","args":["-bench-tools"]},"off":{"command":"false"}}}`)
	tests := []struct {
		name string
		args []string
		rows int // lines of the first table's body, when asserted: one a row
	}{
		// The annotations took 3 or 4 lines a tool.
		{"wire good", []string{"wire", "-q", bin.good}, 3},
		{"wire raw", []string{"wire", "-q", "--", bin.raw, "-banner"}, 0},
		// -n 3: a first call is never marked (slow) with fewer than 5, so
		// the two runs have the same words.
		{"bench good", []string{"bench", "-q", "-n", "3", "--warmup", "0", "--startup", "2", bin.good}, 0},
		{"bench raw", []string{"bench", "-q", "-n", "3", "--warmup", "0", "--startup", "0", "--call", "echo", "--", bin.raw, "-bench-tools"}, 0},
		{"load good", []string{"load", "-q", "--rate", "20/s", "--requests", "10", "--sessions", "2", bin.good}, 0},
		{"servers", []string{"servers", "--config", cfg}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			shown, stderr, code := onTerminal(t, 200, false, []string{"COLUMNS=100", "NO_COLOR=1"}, tc.args...)
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			wide, stderr, code := onTerminal(t, 200, false, []string{"COLUMNS=100", "NO_COLOR=1"}, append(tc.args[:1:1], append([]string{"--wide"}, tc.args[1:]...)...)...)
			if code != 0 && code != 1 {
				t.Fatalf("--wide: exit %d: %s", code, stderr)
			}
			words := map[string]bool{}
			for _, piece := range cellPieces(wide) {
				for _, w := range strings.Fields(piece) {
					words[w] = true
				}
			}
			pieces := 0
			for _, piece := range cellPieces(shown) {
				pieces++
				f := strings.Fields(piece)
				if len(f) > 0 && tableUnits[f[0]] {
					t.Errorf("a number parted from its unit: a cell's line starts with %q:\n%s", piece, shown)
				}
				for _, w := range f {
					if !words[w] && !tableNumber.MatchString(w) && !tableUnits[w] {
						t.Errorf("a word broken: %q (in %q) is no word of the full-width table:\n%s", w, piece, shown)
					}
				}
			}
			if got := firstTableRows(shown); tc.rows > 0 && got != tc.rows {
				t.Errorf("the first table has %d lines, want %d, one a row:\n%s", got, tc.rows, shown)
			}
			if pieces == 0 {
				t.Fatalf("no table:\n%s", shown)
			}
			for _, l := range strings.Split(shown, "\n") {
				if w := len([]rune(l)); w > 100 {
					t.Errorf("a line of %d columns:\n%s", w, l)
				}
			}
		})
	}
}

// tableUnits are the units a number is shown with in the tables.
var tableUnits = map[string]bool{"ns": true, "µs": true, "ms": true, "s": true, "B": true, "KiB": true, "MiB": true, "GiB": true, "%": true}

// tableNumber is a number as the tables print it: 1,234, 54.34, 98%, ~12.
var tableNumber = regexp.MustCompile(`^[~<>]?\d{1,3}(,\d{3})*(\.\d+)?%?$`)

// cellPieces is the text of every cell of every boxed table in out, one
// piece per line of each cell, trimmed.
func cellPieces(out string) []string {
	var pieces []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "│") {
			continue
		}
		parts := strings.Split(l, "│")
		for _, p := range parts[1 : len(parts)-1] {
			if p = strings.TrimSpace(p); p != "" {
				pieces = append(pieces, p)
			}
		}
	}
	return pieces
}

// firstTableRows counts the lines of the first boxed table's body, below
// its header.
func firstTableRows(out string) int {
	n, in := 0, false
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "├"):
			in = true
		case strings.HasPrefix(l, "└") && in:
			return n
		case in && strings.HasPrefix(l, "│"):
			n++
		}
	}
	return n
}
