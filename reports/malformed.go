package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/tidwall/gjson"
)

// marks of the verdicts, as the text and the README show them.
var verdictMark = map[string]string{
	malformed.Pass: "✓", malformed.Fail: "✗", malformed.Warn: "⚠", malformed.Observed: "·", malformed.Inconclusive: "?",
}

// Malformed writes a malformed run: one row per case, the verdicts
// counted, the tools that could not be judged, and for every ✗ and ⚠ (and
// observation the text has something to say of) what answered, the
// clause and why.
func Malformed(w io.Writer, st terminal.Style, r *malformed.Result) {
	if st == terminal.Terminal {
		fmt.Fprintf(w, "%s.\n", r.Summary()) // the answer first
	}
	fmt.Fprintf(w, "malformed calls · protocol %s · an is_error result reaches the model, a JSON-RPC error never does\n\n", terminal.Plain(st, r.Protocol))
	if len(r.Tools) > 0 {
		indent := ""
		if st == terminal.Markdown {
			indent = "- "
		}
		ToolCalls(w, st, indent, r.Tools)
		fmt.Fprintln(w)
	}
	MalformedTable(w, st, r.Cases, r.Protocol)
	fmt.Fprintf(w, "\n%s.\n", r.Summary())
	if un := r.Unjudged(); len(un) > 0 {
		var parts []string
		for _, u := range un {
			parts = append(parts, fmt.Sprintf("%s (%s %s)", terminal.Plain(st, u.Tool), terminal.Plain(st, u.Answer), quoteMsg(st, u.Message)))
		}
		fmt.Fprintf(w, "%d of %d tools could not be judged, their valid call failed: %s.\n", len(un), baselines(r), strings.Join(parts, ", "))
	}
	notes := malformedNotes(st, r)
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhy, with the clause each verdict rests on:\n\n")
	for _, n := range notes {
		if st == terminal.Markdown {
			fmt.Fprintf(w, "- %s\n", strings.ReplaceAll(n, "\n", "\n  "))
		} else {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
}

func baselines(r *malformed.Result) int {
	n := 0
	for _, c := range r.Cases {
		if c.Baseline {
			n++
		}
	}
	return n
}

// MalformedTable writes one row per case.
func MalformedTable(w io.Writer, st terminal.Style, rs []malformed.Outcome, version string) {
	var rows [][]string
	for _, r := range rs {
		tool := "—"
		if r.Tool != "" {
			tool = code0(st, r.Tool)
		}
		rows = append(rows, []string{terminal.StyledCell(st, r.Case), tool, terminal.StyledCell(st, r.Answer()), r.Expected.String(), verdictCell(r)})
	}
	terminal.Table(w, st, []string{"case", "tool", "answer", "spec " + terminal.StyledCell(st, version) + " expects", "verdict"}, rows)
}

// verdictCell is the mark, the verdict and the weight of the clause it
// rests on: a ✗ always says MUST.
func verdictCell(r malformed.Outcome) string {
	s := verdictMark[r.Verdict] + " " + r.Verdict
	if r.Clause == nil || r.Verdict == malformed.Inconclusive {
		return s
	}
	return s + " · " + keyword(r.Clause)
}

func keyword(c *malformed.Clause) string { return c.Weight() }

// malformedNotes explain the rows the table cannot: each ✗, ⚠ and
// noted observation with what answered, the clause and why, and the
// inconclusive rows grouped by tool under the baseline's answer. Each ✗
// and each inconclusive row shows the answering message.
func malformedNotes(st terminal.Style, r *malformed.Result) []string {
	var notes []string
	grouped := map[string]bool{}
	for _, c := range r.Cases {
		where := terminal.StyledCell(st, c.Case)
		if c.Tool != "" {
			where += " · " + terminal.Plain(st, c.Tool)
		}
		switch {
		case c.Baseline && c.Verdict == malformed.Inconclusive:
			notes = append(notes, inconclusiveTool(st, r, c))
			grouped[c.Tool] = true
		case c.Verdict == malformed.Inconclusive && grouped[c.Tool]:
			// under its tool's line
		case c.Verdict == malformed.Inconclusive:
			notes = append(notes, fmt.Sprintf("? %s: %s %s; %s", where, terminal.Plain(st, c.Answer()), quoteMsg(st, c.Message), terminal.Plain(st, c.Why)))
		case c.Severity != "" || c.SDK != "":
			var b strings.Builder
			fmt.Fprintf(&b, "%s %s: %s %s\n    %s: %s", verdictMark[c.Verdict], where, terminal.Plain(st, c.Answer()), quoteMsg(st, c.Message), clauseRef(st, c.Clause), terminal.Plain(st, c.Why))
			if c.SDK != "" {
				fmt.Fprintf(&b, "\n    %s", terminal.Plain(st, c.SDK))
			}
			notes = append(notes, b.String())
		}
	}
	return notes
}

// inconclusiveTool is one line for a tool whose valid call failed: its
// answer, its cases, and any case whose answer differs from it.
func inconclusiveTool(st terminal.Style, r *malformed.Result, b malformed.Outcome) string {
	var names, differ []string
	for _, c := range r.Cases {
		if c.Baseline || c.Tool != b.Tool || c.Verdict != malformed.Inconclusive {
			continue
		}
		names = append(names, terminal.StyledCell(st, c.Case))
		if c.Channel != b.Channel || c.Code != b.Code || c.Message != b.Message {
			differ = append(differ, fmt.Sprintf("%s: %s %s", terminal.StyledCell(st, c.Case), terminal.Plain(st, c.Answer()), quoteMsg(st, c.Message)))
		}
	}
	line := fmt.Sprintf("? %s: its valid call %s answered %s %s, so its %d case(s) are inconclusive: %s",
		terminal.Plain(st, b.Tool), shortArgs(st, b.Args), terminal.Plain(st, b.Answer()), quoteMsg(st, b.Message), len(names), strings.Join(names, ", "))
	switch {
	case len(names) == 0:
	case len(differ) == 0:
		line += "; each answered the same"
	default:
		line += "\n    answers that differ: " + strings.Join(differ, "; ")
	}
	return line
}

// shortArgs are a call's arguments, escaped and cut to a line.
func shortArgs(st terminal.Style, a []byte) string {
	r := []rune(string(a))
	if len(r) > 60 {
		return terminal.Plain(st, string(r[:60])) + "…"
	}
	return terminal.Plain(st, string(a))
}

func clauseRef(st terminal.Style, c *malformed.Clause) string {
	if c == nil {
		return "no clause"
	}
	return fmt.Sprintf("%s %s %s", terminal.Plain(st, c.Version), keyword(c), c.URL)
}

// quoteMsg is a server's message, escaped and shortened, or a dash.
func quoteMsg(st terminal.Style, m string) string {
	if strings.TrimSpace(m) == "" {
		return "(no message)"
	}
	r := []rune(m)
	if len(r) > 60 {
		m = string(r[:60]) + "…"
	}
	if st == terminal.Markdown {
		return `"` + strings.ReplaceAll(terminal.MD(m), `"`, `\"`) + `"`
	}
	return `"` + strings.ReplaceAll(terminal.Escape(m), `"`, `\"`) + `"`
}

// MalformedJSON renders a malformed run's section of the envelope (fields
// in the README; the protocol version the expectations follow is the
// envelope's).
func MalformedJSON(r *malformed.Result) []byte {
	cases := make([][]byte, 0, len(r.Cases))
	for _, c := range r.Cases {
		o := &jsonout.Object{}
		o.Set("case", c.Case).Set("tool", jsonout.NullIfEmpty(c.Tool)).Set("baseline", c.Baseline)
		if c.Baseline && gjson.ValidBytes(c.Args) {
			o.Raw("args", c.Args)
		} else {
			o.Raw("args", []byte("null"))
		}
		o.Set("channel", c.Channel)
		code, asSent := any(nil), any(nil)
		if c.Channel == malformed.RPCError {
			if probe.IsIntegerCode(c.RawCode) {
				code = c.Code
			} else {
				asSent = c.RawCode
			}
		}
		o.Set("code", code).Set("code_as_sent", asSent).Set("message", jsonout.NullIfEmpty(c.Message))
		o.Set("http_status", jsonout.NsOrNull(int64(httpStatus(c)), httpStatus(c) != 0))
		o.Set("expected", c.Expected.String()).Set("verdict", c.Verdict).Set("severity", jsonout.NullIfEmpty(string(c.Severity)))
		if c.Clause == nil {
			o.Raw("clause", []byte("null"))
		} else {
			cl := &jsonout.Object{}
			cl.Set("version", c.Clause.Version).Set("url", c.Clause.URL).Set("keyword", jsonout.NullIfEmpty(c.Clause.Keyword))
			cl.Set("binds", c.Clause.Binds).Set("text", c.Clause.Text)
			o.Raw("clause", cl.Bytes())
		}
		o.Set("why", c.Why).Set("sdk", jsonout.NullIfEmpty(c.SDK))
		cases = append(cases, o.Bytes())
	}
	counts := &jsonout.Object{}
	v := r.Verdicts()
	for _, k := range []string{malformed.Pass, malformed.Fail, malformed.Warn, malformed.Observed, malformed.Inconclusive} {
		counts.Set(k, v[k])
	}
	un := make([][]byte, 0)
	for _, u := range r.Unjudged() {
		args := []byte("null")
		if gjson.ValidBytes(u.Args) {
			args = u.Args
		}
		un = append(un, (&jsonout.Object{}).Set("tool", u.Tool).Raw("args", args).Set("answer", u.Answer).Set("message", jsonout.NullIfEmpty(u.Message)).Set("cases", u.Cases).Bytes())
	}
	return (&jsonout.Object{}).Raw("verdicts", counts.Bytes()).Raw("tools", toolCallsJSON(r.Tools)).Raw("unjudged", jsonout.RawArray(un)).Raw("cases", jsonout.RawArray(cases)).Bytes()
}

// httpStatus is the HTTP status that carried a case's answer: a
// notification's POST answer, or the response of a request; 0 over stdio.
func httpStatus(c malformed.Outcome) int {
	if a := c.NotificationAnswer(); a != nil {
		return a.Status
	}
	return c.HTTPStatus
}
