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
