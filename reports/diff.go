package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// Diff writes the answers (same bytes? same meaning? same session
// values? what differs?), each with the scope it answers for, and a table
// of changes. What was not compared, and what was ignored, is said before
// any answer: a part one side does not record is never silently equal.
func Diff(w io.Writer, st terminal.Style, r diff.Comparison, refLabel, liveLabel string) {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	var lists, values []diff.Part
	for _, p := range r.Compared {
		if p.IsList() {
			lists = append(lists, p)
		} else {
			values = append(values, p)
		}
	}
	listScope := diff.JoinParts(lists)
	bytesLine := yes(r.IdenticalBytes) + " (" + listScope + ": each item as the server sent it, matched by name or URI)"
	canonLine := yes(r.IdenticalCanonical) + " (" + listScope + ": canonical JSON, sorted keys, one way to write each number and string)"
	switch {
	case len(lists) == 0:
		bytesLine, canonLine = "— (no list compared)", "— (no list compared)"
	case !r.BytesComparable:
		bytesLine = "not comparable: " + diff.FormatName(r.RefFormat) + " is not what a server sends"
	}
	metaLine := "— (none compared)"
	if len(values) > 0 {
		metaLine = yes(r.IdenticalMetadata) + " (" + diff.JoinParts(values) + ": by value)"
	}
	ignored := "—"
	if len(r.Ignored) > 0 {
		ignored = diff.JoinParts(r.Ignored) + " (--ignore)"
	}
	lines := [][2]string{
		{"reference", terminal.Plain(st, refLabel) + " (" + diff.FormatName(r.RefFormat) + ")"},
		{"compared with", terminal.Plain(st, liveLabel)},
		{"compared", orDash(diff.JoinParts(r.Compared))},
		{"not compared", terminal.Plain(st, notCompared(r.NotCompared))},
		{"ignored", ignored},
		{"raw bytes identical", bytesLine},
		{"definitions identical", canonLine},
		{"metadata identical", metaLine},
		{"changed parts", orDash(diff.JoinParts(r.ChangedParts()))},
	}
	// Tools added and removed always have their lines; other lists' only
	// when they are not empty.
	for _, p := range lists {
		if p == diff.PartTools || len(r.Added[p]) > 0 {
			lines = append(lines, [2]string{string(p) + " added", listOrDash(st, r.Added[p])})
		}
		if p == diff.PartTools || len(r.Removed[p]) > 0 {
			lines = append(lines, [2]string{string(p) + " removed", listOrDash(st, r.Removed[p])})
		}
	}
	// A rename is a tool removed and one added that are the same tool
	// (or possibly so): said on its own line, beside the two lists.
	for _, kind := range []struct{ kind, label string }{{"renamed", "tools renamed"}, {"renamed_and_changed", "renamed and changed"}} {
		var pairs []string
		for _, rn := range r.Renames {
			if rn.Kind == kind.kind {
				pairs = append(pairs, terminal.StyledCell(st, rn.From)+" → "+terminal.StyledCell(st, rn.To)+" ("+rn.Basis+")")
			}
		}
		if len(pairs) > 0 {
			lines = append(lines, [2]string{kind.label, strings.Join(pairs, ", ")})
		}
	}
	for _, l := range lines {
		if st == terminal.Terminal {
			fmt.Fprintf(w, "%-22s %s\n", l[0], l[1])
		} else {
			// Each value is already made inert for markdown, piece by piece.
			fmt.Fprintf(w, "- %s: %s\n", l[0], l[1])
		}
	}
	fmt.Fprintln(w)
	if len(r.Changes) == 0 {
		switch {
		case r.Drift():
			fmt.Fprintln(w, "No changes to the items both sides have.")
		case len(r.NotCompared) > 0 || len(r.Ignored) > 0:
			fmt.Fprintln(w, "No changes in the parts compared.")
		default:
			fmt.Fprintln(w, "No changes.")
		}
		return
	}
	var rows [][]string
	var words []string
	// A long note (the same on many rows, as often as not) is written once
	// under the table, and its row points to it.
	var notes []string
	noteCell := func(n string) string {
		if n == "" {
			return "—"
		}
		if terminal.Width(n) <= 24 {
			return terminal.StyledCell(st, n)
		}
		i := slices.Index(notes, n)
		if i < 0 {
			notes = append(notes, n)
			i = len(notes) - 1
		}
		return fmt.Sprintf("note %d", i+1)
	}
	for _, c := range r.Changes {
		rows = append(rows, []string{c.Kind, code(st, c.Path), valueCell(st, c.Old), valueCell(st, c.New), noteCell(c.Note)})
		if c.WordDiff != "" {
			words = append(words, code(st, c.Path)+": "+terminal.StyledCell(st, c.WordDiff))
		}
	}
	terminal.Table(w, st, []string{"kind", "path", "reference", "now", "note"}, rows)
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range notes {
			if st == terminal.Markdown {
				fmt.Fprintf(w, "- note %d: %s\n", i+1, terminal.MD(n))
			} else {
				fmt.Fprintf(w, "note %d: %s\n", i+1, terminal.Escape(n))
			}
		}
	}
	if len(words) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Word changes ([-removed-] {+added+}):")
		if st == terminal.Markdown {
			fmt.Fprintln(w)
		}
		for _, wd := range words {
			if st == terminal.Markdown {
				fmt.Fprintln(w, "- "+wd)
			} else {
				fmt.Fprintln(w, "  "+wd)
			}
		}
	}
}

// notCompared groups the parts that were not compared by why.
func notCompared(os []diff.Omission) string {
	if len(os) == 0 {
		return "—"
	}
	var groups []string
	for i := 0; i < len(os); {
		j := i
		var ps []diff.Part
		for ; j < len(os) && os[j].Why == os[i].Why; j++ {
			ps = append(ps, os[j].Part)
		}
		groups = append(groups, diff.JoinParts(ps)+": "+os[i].Why)
		i = j
	}
	return strings.Join(groups, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func valueCell(st terminal.Style, v []byte) string {
	if v == nil {
		return "—"
	}
	if st == terminal.Markdown {
		// JSON, shown as code: brackets and quotes as they are.
		return terminal.Code(terminal.Clip(string(v), 60))
	}
	return terminal.Cell(terminal.Clip(string(v), 60))
}

func listOrDash(st terminal.Style, s []string) string {
	if len(s) == 0 {
		return "—"
	}
	esc := make([]string, len(s))
	for i, v := range s {
		esc[i] = terminal.StyledCell(st, v)
	}
	return strings.Join(esc, ", ")
}

// DiffText is diff's text: the three answers and the changes, between
// the sides as the user named them.
func DiffText(w io.Writer, r *diff.Result) {
	c := r.Comparison
	if c.Drift() {
		fmt.Fprintf(w, "%s: %s in %s\n\n", terminal.Escape(r.Live.Label), plural(c.DriftCount(), "difference"), diff.JoinParts(c.ChangedParts()))
	} else {
		fmt.Fprintf(w, "%s: no drift from %s\n\n", terminal.Escape(r.Live.Label), terminal.Escape(r.Ref.Label))
	}
	Diff(w, terminal.Terminal, r.Comparison, r.Ref.Label, r.Live.Label)
}

// DiffSection is diff's --json section (fields in the README). Old and
// new values are embedded as each side wrote them.
func DiffSection(r *diff.Result) []byte {
	o := &jsonout.Object{}
	o.Set("reference", r.Ref.Label).Set("compared_with", r.Live.Label)
	o.Set("reference_format", r.RefFormat)
	o.Set("compared", partNames(r.Compared))
	var omitted [][]byte
	for _, om := range r.NotCompared {
		omitted = append(omitted, (&jsonout.Object{}).Set("part", string(om.Part)).Set("why", om.Why).Bytes())
	}
	o.Raw("not_compared", jsonout.RawArray(omitted))
	o.Set("ignored", partNames(r.Ignored))
	// An answer that could not be given is null, as the text's "not
	// comparable" and "—" are: false would say the sides differ.
	lists := r.ListsCompared()
	o.Set("bytes_comparable", r.BytesComparable)
	setAnswer(o, "identical_bytes", r.IdenticalBytes, lists && r.BytesComparable)
	setAnswer(o, "identical_canonical", r.IdenticalCanonical, lists)
	setAnswer(o, "identical_metadata", r.IdenticalMetadata, len(r.MetadataCompared()) > 0)
	o.Set("changed_parts", partNames(r.ChangedParts()))
	o.Set("tools_added", nonNilStrings(r.ToolsAdded))
	o.Set("tools_removed", nonNilStrings(r.ToolsRemoved))
	renames := [][]byte{}
	for _, rn := range r.Renames {
		renames = append(renames, (&jsonout.Object{}).Set("from", rn.From).Set("to", rn.To).Set("kind", rn.Kind).Set("basis", rn.Basis).Bytes())
	}
	o.Raw("tools_renamed", jsonout.RawArray(renames))
	added, removed := &jsonout.Object{}, &jsonout.Object{}
	for _, p := range r.Compared {
		if p.IsList() {
			added.Set(string(p), nonNilStrings(r.Added[p]))
			removed.Set(string(p), nonNilStrings(r.Removed[p]))
		}
	}
	o.Raw("added", added.Bytes()).Raw("removed", removed.Bytes())
	var changes [][]byte
	for _, c := range r.Changes {
		co := &jsonout.Object{}
		co.Set("part", string(c.Part)).Set("item", jsonout.NullIfEmpty(c.Item))
		co.Set("tool", jsonout.NullIfEmpty(c.Tool)).Set("path", c.Path).Set("kind", c.Kind)
		co.Raw("old", c.Old).Raw("new", c.New)
		co.Set("note", jsonout.NullIfEmpty(c.Note))
		if c.WordDiff != "" {
			co.Set("word_diff", c.WordDiff)
		}
		changes = append(changes, co.Bytes())
	}
	o.Raw("changes", jsonout.RawArray(changes))
	return o.Bytes()
}

// setAnswer sets key to v when the comparison was made, else to null.
func setAnswer(o *jsonout.Object, key string, v, made bool) {
	if made {
		o.Set(key, v)
	} else {
		o.Raw(key, nil)
	}
}

func partNames(ps []diff.Part) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
