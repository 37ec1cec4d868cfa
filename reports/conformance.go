package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/check"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// conformance marks: malformed's, and a dash for not applicable.
var outcomeMark = map[string]string{
	check.Pass: "✓", check.Fail: "✗", check.Warn: "⚠", check.Observed: "·", check.Inconclusive: "?", check.NotApplicable: "–",
}

// Conformance writes a check run: the answer first, one row per check id
// with a column per era graded, then for each row that fails or warns
// (every row with --verbose, and always in markdown) what was sent, what
// came back, the clause and why; and what the baseline made of the run.
func Conformance(w io.Writer, st terminal.Style, r *check.Result) {
	all := terminal.Verbose(w) || st == terminal.Markdown
	if st == terminal.Markdown {
		fmt.Fprintf(w, "# Conformance\n\n%s.\n\n", r.Summary())
	} else {
		fmt.Fprintf(w, "%s.\n", r.Summary())
	}
	fmt.Fprintf(w, "check · %s · %s\n", terminal.Plain(st, r.Target), r.Transport)
	if st == terminal.Markdown {
		fmt.Fprintln(w)
	}
	bullet := "  "
	if st == terminal.Markdown {
		bullet = "- "
	}
	for _, e := range r.Eras {
		if e.Served {
			fmt.Fprintf(w, "%s%s: served, protocol %s\n", bullet, e.Era, terminal.Plain(st, e.Protocol))
			ToolCalls(w, st, "  "+bullet, e.Tools)
		} else {
			fmt.Fprintf(w, "%s%s: not served (%s)\n", bullet, e.Era, terminal.Plain(st, e.Why))
		}
	}
	rows := conformanceRows(st, r, all)
	if len(rows) == 0 {
		fmt.Fprintf(w, "\nNo check fails or warns (--verbose shows every row).\n")
	} else {
		fmt.Fprintln(w)
		header := []string{"check"}
		for _, e := range r.Eras {
			header = append(header, e.Era)
		}
		terminal.Table(w, st, header, rows)
	}
	notes := conformanceNotes(st, r, all)
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nWhat was sent, what came back, and the clause each verdict rests on:\n\n")
		for _, n := range notes {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	baselineNotes(w, st, r)
}

// conformanceRows has one row per check id, in the order first given, with
// each era's outcome; rows where no era fails or warns only when all.
func conformanceRows(st terminal.Style, r *check.Result, all bool) [][]string {
	var ids []string
	cells := map[string][]string{}
	for i, e := range r.Eras {
		for _, v := range e.Verdicts {
			if _, ok := cells[v.ID]; !ok {
				ids = append(ids, v.ID)
				cells[v.ID] = make([]string, len(r.Eras))
			}
			c := &cells[v.ID][i]
			if *c != "" && !worse(v.Outcome, *c) {
				continue
			}
			*c = outcomeCell(v)
		}
	}
	order := map[string]int{}
	for i, id := range check.IDs() {
		order[id] = i
	}
	sort.SliceStable(ids, func(i, j int) bool {
		oi, iok := order[ids[i]]
		oj, jok := order[ids[j]]
		return iok && jok && oi < oj
	})
	var rows [][]string
	for _, id := range ids {
		row := cells[id]
		shown := all
		for i := range row {
			if row[i] == "" {
				row[i] = "—"
			}
			shown = shown || strings.HasPrefix(row[i], "✗") || strings.HasPrefix(row[i], "⚠")
		}
		if shown {
			rows = append(rows, append([]string{terminal.StyledCell(st, id)}, row...))
		}
	}
	return rows
}

// worse reports whether outcome o outranks what cell c shows, so that an
// id with several verdicts in an era (malformed's, one per tool) shows
// its worst.
func worse(o, c string) bool {
	rank := map[string]int{check.Fail: 5, check.Warn: 4, check.Inconclusive: 3, check.Observed: 2, check.Pass: 1, check.NotApplicable: 0}
	for k, m := range outcomeMark {
		if strings.HasPrefix(c, m) {
			return rank[o] > rank[k]
		}
	}
	return true
}

func outcomeCell(v check.Verdict) string {
	s := outcomeMark[v.Outcome] + " " + v.Outcome
	if v.Known {
		s += " (known)"
	}
	if v.Clause != nil && (v.Outcome == check.Pass || v.Outcome == check.Fail || v.Outcome == check.Warn) {
		s += " · " + v.Clause.Weight()
	}
	return s
}

// conformanceNotes explain each fail and warn (each verdict when all).
func conformanceNotes(st terminal.Style, r *check.Result, all bool) []string {
	var notes []string
	for _, e := range r.Eras {
		for _, v := range e.Verdicts {
			if !all && v.Outcome != check.Fail && v.Outcome != check.Warn {
				continue
			}
			if v.Outcome == check.NotApplicable && !e.Served {
				continue // the era line says why, once
			}
			var b strings.Builder
			head, sub := "", "\n    "
			if st == terminal.Markdown {
				head, sub = "- ", "\n  - "
			}
			fmt.Fprintf(&b, "%s%s %s · %s: %s", head, outcomeMark[v.Outcome], terminal.Plain(st, v.ID), v.Era, terminal.Plain(st, v.Why))
			if v.Sent != "" {
				fmt.Fprintf(&b, "%ssent: %s", sub, code(st, v.Sent))
			}
			if v.Got != "" {
				fmt.Fprintf(&b, "%sgot:  %s", sub, code(st, v.Got))
			}
			if v.Clause != nil && v.Outcome != check.NotApplicable {
				url := v.Clause.URL
				if st == terminal.Markdown {
					url = "<" + url + ">"
				}
				fmt.Fprintf(&b, "%s%s %s %s: %s", sub, terminal.Plain(st, v.Clause.Version), v.Clause.Weight(), url, quoteClause(st, v.Clause.Text))
			}
			if v.Known {
				fmt.Fprintf(&b, "%sknown failure (baseline): %s", sub, terminal.Plain(st, v.Reason))
			}
			notes = append(notes, b.String())
		}
	}
	return notes
}

func quoteClause(st terminal.Style, s string) string {
	return "“" + terminal.Plain(st, s) + "”"
}

func baselineNotes(w io.Writer, st terminal.Style, r *check.Result) {
	a := r.Baseline
	if a == nil {
		return
	}
	fmt.Fprintf(w, "\nBaseline %s: ", terminal.Plain(st, a.Path))
	if len(a.New) == 0 {
		fmt.Fprintf(w, "no new failure")
	} else {
		fmt.Fprintf(w, "%d new failure(s) it does not list: %s", len(a.New), terminal.Plain(st, strings.Join(a.New, ", ")))
	}
	if len(a.Fixed) > 0 {
		fmt.Fprintf(w, "; listed and passing now (remove them from the file): %s", terminal.Plain(st, strings.Join(a.Fixed, ", ")))
	}
	if len(a.NotRun) > 0 {
		fmt.Fprintf(w, "; listed and not judged in this run: %s", terminal.Plain(st, strings.Join(a.NotRun, ", ")))
	}
	fmt.Fprintln(w, ".")
}

// ConformanceJSON renders a check run's section of the envelope.
func ConformanceJSON(r *check.Result) []byte {
	counts := &jsonout.Object{}
	c := r.Count()
	for _, o := range check.Outcomes {
		counts.Set(o, c[o])
	}
	eras := make([][]byte, 0, len(r.Eras))
	for _, e := range r.Eras {
		vs := make([][]byte, 0, len(e.Verdicts))
		for _, v := range e.Verdicts {
			o := &jsonout.Object{}
			o.Set("id", v.ID).Set("era", v.Era).Set("outcome", v.Outcome)
			if v.Clause == nil {
				o.Raw("clause", []byte("null"))
			} else {
				cl := &jsonout.Object{}
				cl.Set("version", v.Clause.Version).Set("url", v.Clause.URL).Set("keyword", jsonout.NullIfEmpty(v.Clause.Keyword)).Set("text", v.Clause.Text)
				o.Raw("clause", cl.Bytes())
			}
			o.Set("sent", jsonout.NullIfEmpty(v.Sent)).Set("got", jsonout.NullIfEmpty(v.Got)).Set("why", v.Why).Set("known", v.Known).Set("reason", jsonout.NullIfEmpty(v.Reason))
			vs = append(vs, o.Bytes())
		}
		eo := &jsonout.Object{}
		eo.Set("era", e.Era).Set("served", e.Served).Set("protocol", jsonout.NullIfEmpty(e.Protocol)).Set("why", jsonout.NullIfEmpty(e.Why)).Raw("tools", toolCallsJSON(e.Tools)).Raw("verdicts", jsonout.RawArray(vs))
		eras = append(eras, eo.Bytes())
	}
	out := &jsonout.Object{}
	out.Set("transport", r.Transport).Set("summary", r.Summary()).Set("total", r.Total()).Raw("outcomes", counts.Bytes()).Set("new_failures", r.NewFailures())
	if a := r.Baseline; a != nil {
		out.Raw("baseline", (&jsonout.Object{}).Set("path", a.Path).Set("new", nonNil(a.New)).Set("fixed", nonNil(a.Fixed)).Set("not_run", nonNil(a.NotRun)).Bytes())
	} else {
		out.Raw("baseline", []byte("null"))
	}
	return out.Raw("eras", jsonout.RawArray(eras)).Bytes()
}

// CheckList writes every check id, one a line: the id, the eras it
// judges, and per era its clause's version, keyword and URL, tab-separated;
// malformed's ids follow with their clause "per case". A script (the
// side-by-side table with the official suite) reads it.
func CheckList(w io.Writer) {
	for _, c := range check.Registry() {
		var clauses []string
		for _, e := range c.Eras {
			cl := c.Clauses[e]
			kw := cl.Keyword
			if kw == "" {
				kw = "no keyword"
			}
			clauses = append(clauses, fmt.Sprintf("%s %s %s", cl.Version, kw, cl.URL))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", c.ID, strings.Join(c.Eras, ","), strings.Join(clauses, "; "))
	}
	for _, id := range check.MalformedChecks {
		fmt.Fprintf(w, "%s\t%s\tper case: malformed's clause for the negotiated version\n", id, strings.Join(check.Eras, ","))
	}
}
