package terminal

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestTableFitsScreen: a table far wider than the screen is wrapped so
// that no line is wider than it, short columns stay whole, and every
// word of every cell is still there.
func TestTableFitsScreen(t *testing.T) {
	header := []string{"severity", "code", "what"}
	rows := [][]string{
		{"error", "stdout-noise", strings.Repeat("a long message about what the server wrote on stdout ", 6)},
		{"warning", "cut", "`find_orders` loses 124 of 2,172 UTF-16 units (6%) on Claude Code: cut at 2,048 (line 15, column 47)"},
		{"info", "x", "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio-a-very-long-unbroken-word"},
	}
	for _, width := range []int{40, 60, 100} {
		var b bytes.Buffer
		Table(&Screen{W: &b, Width: width}, Terminal, header, rows)
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if Width(l) > width {
				t.Errorf("width %d: line of %d columns: %q", width, Width(l), l)
			}
		}
		if !regexp.MustCompile(`│ ?warning +│`).MatchString(b.String()) {
			t.Errorf("width %d: the severity column was cut:\n%s", width, b.String())
		}
		// The "what" column, read top to bottom.
		var what strings.Builder
		for _, l := range strings.Split(b.String(), "\n") {
			if f := strings.Split(l, "│"); len(f) == 5 {
				what.WriteString(strings.Join(strings.Fields(f[3]), ""))
			}
		}
		flat := what.String()
		for _, r := range rows {
			if want := strings.Join(strings.Fields(r[2]), ""); !strings.Contains(flat, want) {
				t.Errorf("width %d: lost text of %q", width, r[2][:20])
			}
		}
	}
	// Not a screen, or width 0: the table as it always was.
	var plain, wide bytes.Buffer
	Table(&plain, Terminal, header, rows)
	Table(&Screen{W: &wide}, Terminal, header, rows)
	if plain.String() != wide.String() || Width(strings.Split(plain.String(), "\n")[0]) < 300 {
		t.Errorf("full width changed:\n%s", wide.String())
	}
}

func TestFit(t *testing.T) {
	in := "protocol      2025-11-25 (server/discover: not supported (error -32601: Method not found); fell back to initialize)\n" +
		"short line\n" +
		"  " + strings.Repeat("word ", 40) + "\n" +
		strings.Repeat("x", 130) + "\n"
	out := string(Fit([]byte(in), 50))
	for _, l := range strings.Split(out, "\n") {
		if Width(l) > 50 {
			t.Errorf("line of %d columns: %q", Width(l), l)
		}
	}
	if !strings.Contains(out, "\n              not supported") && !strings.Contains(out, "\n              (error") {
		t.Errorf("continuation not hung under the value:\n%s", out)
	}
	if !strings.Contains(out, "short line\n") {
		t.Errorf("a short line changed:\n%s", out)
	}
	if string(Fit([]byte(in), 0)) != in {
		t.Error("Fit(0) changed the text")
	}
}

func TestColour(t *testing.T) {
	var b bytes.Buffer
	on := &Screen{W: &b, Color: true}
	if got := Severity(on, "error"); got != red+"error"+reset {
		t.Errorf("Severity = %q", got)
	}
	if got := Verdict(on, "✗ fail · MUST"); !strings.HasPrefix(got, red) {
		t.Errorf("Verdict = %q", got)
	}
	if got := Severity(&Screen{W: &b}, "error"); got != "error" {
		t.Errorf("no colour: Severity = %q", got)
	}
	if got := Severity(&b, "warning"); got != "warning" {
		t.Errorf("plain writer: Severity = %q", got)
	}
	// A coloured cell wrapped over lines is coloured on each line.
	cell := wrapCell(green+"✓ pass · a verdict long enough to wrap"+reset, 12)
	for _, l := range strings.Split(cell, "\n") {
		if !strings.HasPrefix(l, green) || !strings.HasSuffix(l, reset) {
			t.Errorf("line %q lost its colour", l)
		}
	}
}
