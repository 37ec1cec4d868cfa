package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/diff"
)

// Diff writes the three answers (same bytes? same meaning? what differs?)
// and a table of changes.
func Diff(w io.Writer, st Style, r diff.Comparison, refLabel, liveLabel string) {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	bytesLine := yes(r.IdenticalBytes)
	if !r.BytesComparable {
		bytesLine = "not comparable: " + diff.FormatName(r.RefFormat) + " is not what a server sends"
	}
	lines := [][2]string{
		{"reference", Escape(refLabel) + " (" + diff.FormatName(r.RefFormat) + ")"},
		{"compared with", Escape(liveLabel)},
		{"raw bytes identical", bytesLine},
		{"definitions identical", yes(r.IdenticalCanonical) + " (canonical JSON: sorted keys, one way to write each number and string)"},
		{"tools added", listOrDash(r.ToolsAdded)},
		{"tools removed", listOrDash(r.ToolsRemoved)},
	}
	for _, l := range lines {
		if st == Terminal {
			fmt.Fprintf(w, "%-22s %s\n", l[0], l[1])
		} else {
			fmt.Fprintf(w, "- %s: %s\n", l[0], Cell(l[1]))
		}
	}
	fmt.Fprintln(w)
	if len(r.Changes) == 0 {
		if len(r.ToolsAdded)+len(r.ToolsRemoved) > 0 {
			fmt.Fprintln(w, "No changes to the tools both sides have.")
		} else {
			fmt.Fprintln(w, "No changes.")
		}
		return
	}
	var rows [][]string
	var words []string
	for _, c := range r.Changes {
		note := c.Note
		if note == "" {
			note = "—"
		}
		rows = append(rows, []string{c.Kind, code(st, c.Path), valueCell(c.Old), valueCell(c.New), Cell(note)})
		if c.WordDiff != "" {
			words = append(words, code(st, c.Path)+": "+Cell(c.WordDiff))
		}
	}
	Table(w, st, []string{"kind", "path", "reference", "now", "note"}, rows)
	if len(words) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Word changes ([-removed-] {+added+}):")
		if st == Markdown {
			fmt.Fprintln(w)
		}
		for _, wd := range words {
			if st == Markdown {
				fmt.Fprintln(w, "- "+wd)
			} else {
				fmt.Fprintln(w, "  "+wd)
			}
		}
	}
}

func valueCell(v []byte) string {
	if v == nil {
		return "—"
	}
	return Cell(Clip(string(v), 60))
}

func listOrDash(s []string) string {
	if len(s) == 0 {
		return "—"
	}
	esc := make([]string, len(s))
	for i, v := range s {
		esc[i] = Cell(v)
	}
	return strings.Join(esc, ", ")
}

// DiffText is diff's text: the three answers and the changes, between
// the sides as the user named them.
func DiffText(w io.Writer, r *diff.Result) {
	Diff(w, Terminal, r.Comparison, r.Ref.Label, r.Live.Label)
}

// DiffSection is diff's --json section (fields in the README). Old and
// new values are embedded as each side wrote them.
func DiffSection(r *diff.Result) []byte {
	o := &Object{}
	o.Set("reference", r.Ref.Label).Set("compared_with", r.Live.Label)
	o.Set("reference_format", r.RefFormat)
	o.Set("bytes_comparable", r.BytesComparable)
	o.Set("identical_bytes", r.IdenticalBytes)
	o.Set("identical_canonical", r.IdenticalCanonical)
	o.Set("tools_added", nonNilStrings(r.ToolsAdded))
	o.Set("tools_removed", nonNilStrings(r.ToolsRemoved))
	var changes [][]byte
	for _, c := range r.Changes {
		co := &Object{}
		co.Set("tool", nullIfEmpty(c.Tool)).Set("path", c.Path).Set("kind", c.Kind)
		co.Raw("old", c.Old).Raw("new", c.New)
		co.Set("note", nullIfEmpty(c.Note))
		if c.WordDiff != "" {
			co.Set("word_diff", c.WordDiff)
		}
		changes = append(changes, co.Bytes())
	}
	o.Raw("changes", RawArray(changes))
	return o.Bytes()
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
