package terminal

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestUnitWords: a line breaks at spaces, never between a number and
// its unit.
func TestUnitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"54.34 ms", []string{"54.34 ms"}},
		{"timed out at 10.00 s", []string{"timed", "out", "at", "10.00 s"}},
		{"peak RSS 12.2 MiB per process", []string{"peak", "RSS", "12.2 MiB", "per", "process"}},
		{"3 tools", []string{"3", "tools"}},
		{"ms 5", []string{"ms", "5"}},
		{"v1.2 ms", []string{"v1.2", "ms"}},
		{"~1,234 bytes", []string{"~1,234 bytes"}},
	}
	for _, tc := range tests {
		if got := unitWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("unitWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, w := range []int{5, 8, 12} {
		for _, l := range WrapText("p50 54.34 ms p99 148.3 µs", w) {
			if f := strings.Fields(l); len(f) > 0 && units[f[0]] {
				t.Errorf("width %d: a line starts with a unit: %q", w, l)
			}
		}
	}
}

// TestFitTableHeadersWrapFirst: when a table fits with its headers
// wrapped and its cells whole, the cells stay on one line.
func TestFitTableHeadersWrapFirst(t *testing.T) {
	header := []string{"tool", "input schema (bytes)", "output schema (bytes)", "annotations"}
	rows := [][]string{{"delete_order", "144", "no", "!readOnly, destructive, !idempotent"}}
	// Whole: 12 + 20 + 21 + 35 + 13 = 101; the cells with the headers
	// down to their longest words, 12 + 7 + 7 + 35 + 13 = 74.
	h, out, _ := fitTable(header, rows, 80)
	for i, c := range out[0] {
		if strings.Contains(c, "\n") {
			t.Errorf("cell %d wrapped: %q", i, c)
		}
	}
	if !strings.Contains(h[1], "\n") {
		t.Errorf("header %q not wrapped", h[1])
	}
}

// TestStackedTable: a table too wide for one line a row stacks at its
// break, each part with the first column; one that fits, or any table
// off a terminal, is one table.
func TestStackedTable(t *testing.T) {
	header := []string{"series", "p50", "p95", "p99", "max", "errors", "timeouts", "first", "outliers"}
	rows := [][]string{{"startup: spawn → first tools/list", "69.69 ms", "79.03 ms", "81.22 ms", "81.77 ms", "0", "0", "81.77 ms", "0"}}
	count := func(w int) (tables int, out string) {
		var b bytes.Buffer
		var s = &Screen{W: &b, Width: w}
		StackedTable(s, Terminal, header, rows, []int{5})
		return strings.Count(b.String(), "┌"), b.String()
	}
	if n, out := count(100); n != 2 || strings.Count(out, "startup: spawn → first tools/list") != 2 {
		t.Errorf("at 100 columns: %d tables, want 2, each with the series:\n%s", n, out)
	}
	if n, out := count(200); n != 1 {
		t.Errorf("at 200 columns: %d tables, want 1:\n%s", n, out)
	}
	if n, out := count(0); n != 1 {
		t.Errorf("full width: %d tables, want 1:\n%s", n, out)
	}
	var md bytes.Buffer
	StackedTable(&md, Markdown, header, rows, []int{5})
	if strings.Count(md.String(), "| series |") != 1 {
		t.Errorf("markdown stacked:\n%s", md.String())
	}
}
