package terminal

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"
)

// Style says who reads the output.
type Style int

const (
	Markdown Style = iota // for committing and for reviewing in a forge
	Terminal              // boxes, for a person at a terminal
)

// Table renders rows under a header. Cells must already be escaped (Cell,
// Code); align gives each column's alignment, left by default. Markdown
// tables are unpadded (MarkdownTable); terminal tables are boxed, every
// column as wide as its widest cell.
func Table(w io.Writer, st Style, header []string, rows [][]string, align ...tw.Align) {
	if st == Markdown {
		MarkdownTable(w, header, rows, align...)
		return
	}
	compact := false
	if width, color := screenOf(w); width > 0 || color {
		if color {
			rows = paint(w, rows)
		}
		if width > 0 {
			header, rows, compact = fitTable(header, rows, width)
		}
	}
	// The library for what fastTable refuses only: it costs about 50 µs
	// and 170 allocations a row, and every table it makes clears a
	// 10,240-entry cache map (tablewriter.NewTable), about 1 ms of a small
	// server's `wire` for each of its four tables.
	if fastTable(w, header, rows, align, compact) {
		return
	}
	libTable(w, header, rows, align, compact)
}

// StackedTable is Table, except that a terminal table too wide for its
// screen to show every cell on one line is cut into tables stacked one
// under the other, each with the first column again. A cut falls only
// before a column named in breaks (the first column of a group that
// reads on its own: the counts, the latencies), as few as fit.
func StackedTable(w io.Writer, st Style, header []string, rows [][]string, breaks []int, align ...Align) {
	width, _ := screenOf(w)
	if st == Markdown || width <= 0 || len(breaks) == 0 || fitsWhole(header, rows, width) {
		Table(w, st, header, rows, align...)
		return
	}
	// Take at each step the most columns that fit, cut at a break.
	start := 1
	for start < len(header) {
		end := len(header)
		for !fitsWhole(pick(header, start, end), pickRows(rows, start, end), width) {
			cut := -1
			for _, b := range breaks {
				if b > start && b < end {
					cut = max(cut, b)
				}
			}
			if cut < 0 {
				break // no break left: Table fits what remains as it can
			}
			end = cut
		}
		if start > 1 {
			fmt.Fprintln(w)
		}
		var al []Align
		if len(align) > 0 {
			al = pickAlign(align, start, end)
		}
		Table(w, st, pick(header, start, end), pickRows(rows, start, end), al...)
		start = end
	}
}

// fitsWhole is whether a table fits width with every cell on one line
// (a header may wrap at its spaces), its cells' left padding dropped if
// need be.
func fitsWhole(header []string, rows [][]string, width int) bool {
	ws := make([]int, len(header))
	for i, c := range header {
		ws[i] = minWidth(c, true)
	}
	for _, r := range rows {
		for i := range min(len(r), len(ws)) {
			ws[i] = max(ws[i], cellWidth(r[i]))
		}
	}
	return sum(ws) <= width-(2*len(header)+1)
}

// pick is the first column and columns [from, to) of a row.
func pick(r []string, from, to int) []string {
	out := []string{r[0]}
	return append(out, r[min(from, len(r)):min(to, len(r))]...)
}

func pickRows(rows [][]string, from, to int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = pick(r, from, to)
	}
	return out
}

func pickAlign(a []Align, from, to int) []Align {
	out := []Align{a[0]}
	for i := from; i < to; i++ {
		al := Left
		if i < len(a) {
			al = a[i]
		}
		out = append(out, al)
	}
	return out
}

// MarkdownTable writes a markdown table unpadded: "| a | b |", one space
// either side of every cell, and a "| --- | ---: |" delimiter row that
// keeps each column's alignment. A cell is as wide as its content, so
// adding, removing or changing one row changes that one line of the file,
// never the others: a committed report's diff shows what changed. An
// empty cell is one space ("| |"), as markdownlint's table-column-style
// (MD060, compact) wants it.
func MarkdownTable(w io.Writer, header []string, rows [][]string, align ...tw.Align) {
	bw := bufio.NewWriterSize(w, 16<<10)
	n := len(header)
	writeMarkdownRow(bw, header, n)
	delim := make([]string, n)
	for i := range delim {
		a := tw.AlignLeft
		if i < len(align) && align[i] != tw.Empty {
			a = align[i]
		}
		delim[i] = delimiterCell(a)
	}
	writeMarkdownRow(bw, delim, n)
	for _, r := range rows {
		writeMarkdownRow(bw, r, n)
	}
	_ = bw.Flush()
}

// delimiterCell is a column's cell of the delimiter row.
func delimiterCell(a tw.Align) string {
	switch a {
	case tw.AlignRight:
		return "---:"
	case tw.AlignCenter:
		return ":---:"
	}
	return "---"
}

// writeMarkdownRow writes one row of n cells (a short row padded with
// empty cells, as the table library did).
func writeMarkdownRow(bw *bufio.Writer, cells []string, n int) {
	bw.WriteString("|")
	for i := range max(n, len(cells)) {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		bw.WriteString(" ")
		if c != "" {
			bw.WriteString(c)
			bw.WriteString(" ")
		}
		bw.WriteString("|")
	}
	bw.WriteByte('\n')
}

// libTable renders a terminal table with the table library; compact
// drops the cells' left padding.
func libTable(w io.Writer, header []string, rows [][]string, align []tw.Align, compact bool) {
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
	}
	if len(align) > 0 {
		full := make(tw.Alignment, len(header))
		for i := range full {
			full[i] = tw.AlignLeft
			if i < len(align) && align[i] != tw.Empty {
				full[i] = align[i]
			}
		}
		opts = append(opts, tablewriter.WithAlignment(full))
	}
	if compact {
		opts = append(opts, tablewriter.WithPadding(tw.Padding{Left: "", Right: " ", Overwrite: true}))
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(toAny(header)...)
	for _, r := range rows {
		_ = t.Append(r)
	}
	_ = t.Render()
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Align is a column's alignment.
type Align = tw.Align

// Align values for Table.
var (
	Left    = tw.AlignLeft
	Right   = tw.AlignRight
	Default = Align(tw.Empty) // the table's own choice for the column
)

// fitTable wraps the header and cells of a table too wide for width so
// that it fits (fitColumns), without touching the caller's slices. When
// even whole words do not fit with a space either side of each cell, the
// cells lose their left padding (compact).
func fitTable(header []string, rows [][]string, width int) (h []string, out [][]string, compact bool) {
	natural := make([]int, len(header))
	mins := make([]int, len(header))
	for i, c := range header {
		// A header wraps once, a cell on every row: the columns are sized
		// to their cells first, the header down to its longest word.
		natural[i], mins[i] = minWidth(c, true), minWidth(c, true)
	}
	for _, r := range rows {
		for i := range min(len(r), len(natural)) {
			natural[i] = max(natural[i], cellWidth(r[i]))
			mins[i] = max(mins[i], minWidth(r[i], false))
		}
	}
	full := make([]int, len(header))
	for i, c := range header {
		full[i] = max(natural[i], cellWidth(c))
	}
	if fitColumns(full, mins, width, 3) == nil {
		return header, rows, false
	}
	overhead := 3
	if fitColumns(natural, mins, width, 3) != nil && fitColumns(natural, mins, width, 2) == nil {
		// Without their left padding the cells fit whole: one line a row
		// reads better than a space more.
		overhead, compact = 2, true
	}
	cols := fitColumns(natural, mins, width, overhead)
	if cols == nil {
		// The cells fit whole: what is left goes to the headers, the
		// first ones first.
		cols = append([]int(nil), natural...)
		spare := width - (overhead*len(header) + 1) - sum(cols)
		for i := range cols {
			if add := min(spare, full[i]-cols[i]); add > 0 {
				cols[i] += add
				spare -= add
			}
		}
	}
	if !compact && sum(mins) > width-(3*len(header)+1) {
		compact = true
		if cols = fitColumns(natural, mins, width, 2); cols == nil {
			cols = natural
		}
	}
	h = make([]string, len(header))
	for i, c := range header {
		h[i] = wrapCell(c, cols[i])
	}
	out = make([][]string, len(rows))
	for j, r := range rows {
		out[j] = make([]string, len(r))
		for i, c := range r {
			if i < len(cols) {
				c = wrapCell(c, cols[i])
			}
			out[j][i] = c
		}
	}
	return h, out, compact
}

// paint colours, on a colour screen, every cell that is a severity
// (error, warning, info) or starts with a verdict mark (✓, ✗, ⚠), in a
// copy of rows.
func paint(w io.Writer, rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for j, r := range rows {
		out[j] = make([]string, len(r))
		for i, c := range r {
			switch c {
			case "error", "warning", "info":
				c = Severity(w, c)
			default:
				c = Verdict(w, c)
			}
			out[j][i] = c
		}
	}
	return out
}

// fastTable writes what the table library writes for a table of one-line
// cells (TestFastTableMatchesTheLibrary holds it to that, byte for byte)
// in one pass over the rows. It reports false, having written nothing,
// for anything else: a cell with a line break or another control byte
// (wrapped or coloured cells), or a column with nothing visible, goes to
// the library.
func fastTable(w io.Writer, header []string, rows [][]string, align []tw.Align, compact bool) bool {
	n := len(header)
	widths := make([]int, n)
	measure := func(r []string) bool {
		if len(r) != n {
			return false
		}
		for i, c := range r {
			wd := len(c)
			for j := 0; j < len(c); j++ {
				if c[j] < ' ' || c[j] == 0x7f {
					return false
				}
				if c[j] >= 0x80 {
					wd = -1
				}
			}
			if wd < 0 {
				wd = twwidth.Width(c)
			}
			widths[i] = max(widths[i], wd)
		}
		return true
	}
	if n == 0 || !measure(header) {
		return false
	}
	for _, r := range rows {
		if !measure(r) {
			return false
		}
	}
	if slices.Contains(widths, 0) {
		return false // the library sizes a column with nothing to show its own way
	}
	right := make([]bool, n)
	for i := range right {
		right[i] = i < len(align) && align[i] == tw.AlignRight
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	padL := " "
	if compact {
		padL = ""
	}
	edge, sep := "│", "│"
	line := func(r []string) {
		bw.WriteString(edge)
		for i, c := range r {
			if i > 0 {
				bw.WriteString(sep)
			}
			bw.WriteString(padL)
			gap := spaces(widths[i] - asciiWidth(c))
			if right[i] {
				bw.WriteString(gap)
				bw.WriteString(c)
			} else {
				bw.WriteString(c)
				bw.WriteString(gap)
			}
			bw.WriteString(" ")
		}
		bw.WriteString(edge)
		bw.WriteByte('\n')
	}
	rule := func(l, m, r string) {
		bw.WriteString(l)
		for i, wd := range widths {
			if i > 0 {
				bw.WriteString(m)
			}
			bw.WriteString(strings.Repeat("─", wd+len(padL)+1))
		}
		bw.WriteString(r)
		bw.WriteByte('\n')
	}
	rule("┌", "┬", "┐")
	line(header)
	if len(rows) > 0 {
		rule("├", "┼", "┤")
	}
	for _, r := range rows {
		line(r)
	}
	rule("└", "┴", "┘")
	_ = bw.Flush()
	return true
}

// asciiWidth is a one-line cell's width on a screen: its length when it
// is ASCII, which most cells are, else the table library's measure.
func asciiWidth(c string) int {
	for j := 0; j < len(c); j++ {
		if c[j] >= 0x80 {
			return twwidth.Width(c)
		}
	}
	return len(c)
}

// blanks is cut for the padding of most cells; a wider one is made.
var blanks = strings.Repeat(" ", 256)

func spaces(n int) string {
	if n <= len(blanks) {
		return blanks[:n]
	}
	return strings.Repeat(" ", n)
}
