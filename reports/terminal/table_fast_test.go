package terminal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/olekukonko/tablewriter/tw"
)

// TestFastTableMatchesTheLibrary: for one-line cells, the fast path
// writes exactly what the table library writes for a terminal, compact
// or not, with any alignments; and it refuses what it does not handle.
// (Markdown tables have one writer, MarkdownTable, whatever their size.)
func TestFastTableMatchesTheLibrary(t *testing.T) {
	cells := []string{"", "a", "abc def", "日本語", "é", "e\u0301", "—", "👍", "a\\|b", " lead", "trail ", "1,234",
		"✓ ok", "ｆｕｌｌ", "…", "tool_0001", "`code`", "x  y", "\u00a0nbsp", "Ω≈ç√", "❤️", "🇫🇷", "ﾊﾝｶｸ", "\u200b"}
	aligns := []tw.Align{Left, Right, tw.Empty}
	rng := rand.New(rand.NewPCG(1, 2))
	// 3,000 random tables with the e2e tag, the first 500 of them without:
	// the library's writer is slow, and most of the package's test time.
	tables := 500
	if thorough {
		tables = 3000
	}
	for n := range tables {
		cols := 1 + rng.IntN(6)
		pick := func() []string {
			r := make([]string, cols)
			for i := range r {
				r[i] = cells[rng.IntN(len(cells))]
			}
			return r
		}
		header := pick()
		rows := make([][]string, rng.IntN(8))
		for j := range rows {
			rows[j] = pick()
		}
		var align []tw.Align
		if rng.IntN(3) > 0 {
			align = make([]tw.Align, rng.IntN(cols+1))
			for i := range align {
				align[i] = aligns[rng.IntN(len(aligns))]
			}
		}
		compact := rng.IntN(2) == 0
		var want, got bytes.Buffer
		libTable(&want, header, rows, align, compact)
		if !fastTable(&got, header, rows, align, compact) {
			if !blankColumn(header, rows) {
				t.Fatalf("table %d refused", n)
			}
			continue
		}
		if got.String() != want.String() {
			t.Fatalf("table %d (compact %v, align %v) differs:\nlibrary:\n%s\nfast:\n%s", n, compact, align, want.String(), got.String())
		}
	}
	for _, c := range []string{"two\nlines", "tab\there", "\x1b[31mred\x1b[0m"} {
		var b bytes.Buffer
		if fastTable(&b, []string{"h"}, [][]string{{c}}, nil, false) || b.Len() > 0 {
			t.Errorf("%q: not refused, or written", c)
		}
		if fastTable(&b, []string{c}, [][]string{{"a"}}, nil, false) || b.Len() > 0 {
			t.Errorf("header %q: not refused, or written", c)
		}
	}
	// A blank column, a row too short, no columns.
	for _, h := range [][]string{{"a", ""}, {"a", "b", "c"}, {}} {
		var b bytes.Buffer
		if fastTable(&b, h, [][]string{{"a", ""}}, nil, false) || b.Len() > 0 {
			t.Errorf("header %q: not refused, or written", h)
		}
	}
}

// blankColumn: some column shows nothing in any cell, header included.
func blankColumn(header []string, rows [][]string) bool {
	for i := range header {
		w := Width(header[i])
		for _, r := range rows {
			w = max(w, Width(r[i]))
		}
		if w == 0 {
			return true
		}
	}
	return false
}

// BenchmarkTable10k is the tools table of a 10,000-tool server.
func BenchmarkTable10k(b *testing.B) {
	rows := make([][]string, 10000)
	for i := range rows {
		rows[i] = []string{fmt.Sprintf("tool_%04d", i), "—", "632", "17", "no", "—"}
	}
	header := []string{"tool", "title", "description (UTF-16)", "input schema (bytes)", "output schema (bytes)", "annotations"}
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		Table(&buf, Terminal, header, rows, Left, Left, Right, Right)
	}
}
