package terminal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/tw"
)

func TestMarkdownTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		rows   [][]string
		align  []tw.Align
		want   string
	}{
		{"plain", []string{"a", "long header"}, [][]string{{"x", "1"}, {"a much longer cell", ""}}, nil,
			"| a | long header |\n| --- | --- |\n| x | 1 |\n| a much longer cell | |\n"},
		{"alignments", []string{"l", "r", "c", "e"}, [][]string{{"1", "2", "3", "4"}}, []tw.Align{Left, Right, tw.AlignCenter, tw.Empty},
			"| l | r | c | e |\n| --- | ---: | :---: | --- |\n| 1 | 2 | 3 | 4 |\n"},
		{"short row", []string{"a", "b"}, [][]string{{"x"}}, nil, "| a | b |\n| --- | --- |\n| x | |\n"},
		{"no rows", []string{"a"}, nil, []tw.Align{Right}, "| a |\n| ---: |\n"},
		{"escaped pipe", []string{"a"}, [][]string{{`x \| y`}}, nil, "| a |\n| --- |\n| x \\| y |\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			Table(&b, Markdown, tc.header, tc.rows, tc.align...)
			if b.String() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tc.want)
			}
			// The tidier writes a table as Table does: it changes nothing.
			if got := string(TidyMarkdown(b.Bytes())); got != tc.want {
				t.Errorf("tidied:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestMarkdownTableOneRowOneLine: whatever the cells, changing one row
// of a table changes one line of its markdown, at the row's place, and
// so does adding one, with or without the tidier; this holds for tables
// of over 200 rows too.
func TestMarkdownTableOneRowOneLine(t *testing.T) {
	cells := []string{"", "a", "abc def", "日本語", "—", "👍", `a\|b`, "1,234", "✓ ok", "`code`", "a much, much longer cell than the rest"}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		cols := 1 + rng.IntN(5)
		pick := func() []string {
			r := make([]string, cols)
			for i := range r {
				r[i] = cells[rng.IntN(len(cells))]
			}
			return r
		}
		rows := make([][]string, 1+rng.IntN(8))
		if n%50 == 0 {
			rows = make([][]string, 201+rng.IntN(20))
		}
		for j := range rows {
			rows[j] = pick()
		}
		header := pick()
		header[0] = "h"
		render := func(rs [][]string) []string {
			var b bytes.Buffer
			Table(&b, Markdown, header, rs, Left, Right)
			tidied := TidyMarkdown(b.Bytes())
			if !bytes.Equal(tidied, b.Bytes()) {
				t.Fatalf("table %d: the tidier changed it:\n%s\nto\n%s", n, b.String(), tidied)
			}
			return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		}
		before := render(rows)
		k := rng.IntN(len(rows))
		changed := append([][]string(nil), rows...)
		changed[k] = pick()
		changed[k][0] = fmt.Sprintf("changed %d", n)
		after := render(changed)
		if len(after) != len(before) {
			t.Fatalf("table %d: %d lines became %d", n, len(before), len(after))
		}
		for i := range before {
			if (before[i] != after[i]) != (i == k+2) {
				t.Fatalf("table %d: changing row %d changed line %d:\n%s\n%s", n, k, i, before[i], after[i])
			}
		}
		added := append(append(append([][]string(nil), rows[:k]...), changed[k]), rows[k:]...)
		grown := render(added)
		if grown[k+2] != after[k+2] || !slices.Equal(slices.Delete(slices.Clone(grown), k+2, k+3), before) {
			t.Fatalf("table %d: adding row %d changed other lines", n, k)
		}
	}
}
