package reports

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Style says who reads the output.
type Style int

const (
	Markdown Style = iota // for committing and for reviewing in a forge
	Terminal              // boxes, for a person at a terminal
)

// Table renders rows under a header. Cells must already be escaped (Cell,
// Code); align gives each column's alignment, left by default.
func Table(w io.Writer, st Style, header []string, rows [][]string, align ...tw.Align) {
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
	if st == Markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	if width, color := screenOf(w); st == Terminal {
		if color {
			rows = paint(w, rows)
		}
		if width > 0 {
			var compact bool
			if header, rows, compact = fitTable(header, rows, width); compact {
				opts = append(opts, tablewriter.WithPadding(tw.Padding{Left: "", Right: " ", Overwrite: true}))
			}
		}
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
	Left  = tw.AlignLeft
	Right = tw.AlignRight
)

// fitTable wraps the header and cells of a table too wide for width so
// that it fits (fitColumns), without touching the caller's slices. When
// even whole words do not fit with a space either side of each cell, the
// cells lose their left padding (compact).
func fitTable(header []string, rows [][]string, width int) (h []string, out [][]string, compact bool) {
	natural := make([]int, len(header))
	mins := make([]int, len(header))
	for i, c := range header {
		natural[i], mins[i] = cellWidth(c), minWidth(c, true)
	}
	for _, r := range rows {
		for i := range min(len(r), len(natural)) {
			natural[i] = max(natural[i], cellWidth(r[i]))
			mins[i] = max(mins[i], minWidth(r[i], false))
		}
	}
	cols := fitColumns(natural, mins, width, 3)
	if cols == nil {
		return header, rows, false
	}
	if sum(mins) > width-(3*len(header)+1) {
		compact = true
		if cols = fitColumns(natural, mins, width, 2); cols == nil {
			return header, rows, true
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
