package reports

import (
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe/call"
	"github.com/mcpprobe/mcpprobe/probe/mrtr"
	"github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/tidwall/gjson"
)

// callTextChars bounds a text block's excerpt in call's text: a result
// can be megabytes, and --save or --json has all of it.
const callTextChars = 2000

// callRows bounds the rows of the progress timeline and of the messages
// during the call in the text: a server decides how many it sends.
const callRows = 50

// Call writes one call as text: the answer and its timings, the result's
// blocks (text excerpted and escaped, base64 never printed), what each
// host delivers, the progress timeline, the cancellation, the task, the
// messages that came during the call, the verdicts and the findings.
func Call(w io.Writer, st terminal.Style, r *call.Result) {
	fmt.Fprintln(w, callVerdict(st, r))
	fmt.Fprintf(w, "%s %s · protocol %s\n", r.Method, terminal.Plain(st, r.Name), terminal.Plain(st, orNone(r.Protocol)))
	fmt.Fprintln(w, callAnswerLine(st, r))
	if r.Skill != nil {
		fmt.Fprintln(w, callSkillLine(st, r.Skill))
	}
	if r.Error != nil {
		fmt.Fprintf(w, "\nThe server answered JSON-RPC error %s: %s\n", terminal.Plain(st, errCode(r)), terminal.Plain(st, r.Error.Message))
		if len(r.Error.Data) > 0 {
			fmt.Fprintf(w, "data: %s\n", terminal.Plain(st, terminal.Clip(string(r.Error.Data), 300)))
		}
	}
	if r.Result != nil {
		fmt.Fprintln(w)
		CallBlocks(w, st, r)
		if r.Skill != nil && r.Skill.Refused() {
			// The table below is what a host that reads the file without
			// checking it would pass on; one that verifies passes on nothing.
			fmt.Fprintln(w, "\nThis file was refused: a host that verifies it against skills/list, as SEP-2640 asks, delivers none of it; the rows are what a host that does not check would deliver.")
		}
		callDeliveries(w, st, r.Deliveries)
	}
	callProgress(w, st, r)
	callCancel(w, st, r)
	callTask(w, st, r)
	callRounds(w, st, r)
	callEvents(w, st, r)
	CallVerdicts(w, st, r.Verdicts)
	fmt.Fprintln(w, "\nFindings:")
	Findings(w, st, SortFindings(r.Findings()))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func errCode(r *call.Result) string {
	if r.Error.RawCode != "" {
		return r.Error.RawCode
	}
	return strconv.FormatInt(r.Error.Code, 10)
}

// callVerdict is call's first line: the answer, what the hosts deliver
// of it, what the timeout policies make of it, and the findings.
func callVerdict(st terminal.Style, r *call.Result) string {
	parts := []string{terminal.Plain(st, r.Name) + ": " + callOutcome(st, r)}
	if r.Result != nil && len(r.Deliveries) > 0 {
		parts = append(parts, deliveryVerdict(r.Deliveries))
	}
	if len(r.Verdicts) > 0 {
		parts = append(parts, policyVerdict(r.Verdicts))
	}
	return strings.Join(append(parts, findingCount(r.Findings())), "; ")
}

// callOutcome is how a call was answered, with its blocks' count.
func callOutcome(st terminal.Style, r *call.Result) string {
	switch {
	case r.Error != nil:
		return "JSON-RPC error " + terminal.Plain(st, errCode(r))
	case !r.Completed:
		return "no answer"
	}
	s := "result"
	if gjson.GetBytes(r.Result, "isError").Bool() {
		s = "isError result"
	}
	n := len(blocksOf(r.Kind, r.Result))
	if n == 1 {
		return s + ", 1 block"
	}
	return fmt.Sprintf("%s, %d blocks", s, n)
}

// callAnswerLine says when the answer came, and its size.
func callAnswerLine(st terminal.Style, r *call.Result) string {
	switch {
	case r.Completed:
		s := fmt.Sprintf("answered in %s", msText(r.Answered))
		if r.FirstFrame > 0 && r.FirstFrame < r.Answered {
			s += fmt.Sprintf(" (first frame after %s)", msText(r.FirstFrame))
		}
		s += fmt.Sprintf(" · response %s bytes (frame %d)", Num(len(r.Response)), r.ResponseSeq)
		if r.Result != nil {
			s += fmt.Sprintf(" · result %s bytes", Num(len(r.Result)))
		}
		return s
	case r.Unanswered != "":
		return "not answered: " + terminal.Plain(st, r.Unanswered)
	}
	return "not answered"
}

// msText is a duration in milliseconds, as the timelines show them.
func msText(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%s ms", Num(int(d/time.Millisecond)))
}

// blockRow is one content block as call's text shows it.
type blockRow struct {
	where, typ, mime, size, detail string
	text                           string // a text block's text, shown under the table
}

// blocksOf reads the blocks of a result from its raw bytes: a tool's
// content, a resource's contents, a prompt's messages.
func blocksOf(kind result.Kind, raw []byte) []blockRow {
	v := gjson.ParseBytes(raw)
	var rows []blockRow
	switch kind {
	case result.KindResource:
		for i, c := range v.Get("contents").Array() {
			rows = append(rows, blockOf(fmt.Sprintf("contents[%d]", i), c, c.Get("uri").String()))
		}
	case result.KindPrompt:
		for i, m := range v.Get("messages").Array() {
			rows = append(rows, blockOf(fmt.Sprintf("messages[%d] %s", i, m.Get("role").String()), m.Get("content"), ""))
		}
	default:
		for i, c := range v.Get("content").Array() {
			rows = append(rows, blockOf(fmt.Sprintf("content[%d]", i), c, ""))
		}
	}
	return rows
}

func blockOf(where string, c gjson.Result, uri string) blockRow {
	b := blockRow{where: where, typ: c.Get("type").String(), mime: c.Get("mimeType").String()}
	if b.typ == "" {
		switch {
		case c.Get("blob").Exists():
			b.typ = "blob"
		case c.Get("text").Exists():
			b.typ = "text"
		}
	}
	if r := c.Get("resource"); r.Exists() {
		uri = r.Get("uri").String()
		if b.mime == "" {
			b.mime = r.Get("mimeType").String()
		}
		c = r
	}
	if u := c.Get("uri"); u.Exists() && uri == "" {
		uri = u.String()
	}
	switch {
	case c.Get("text").Exists():
		t := c.Get("text").String()
		b.size = fmt.Sprintf("%s chars", Num(utf8.RuneCountInString(t)))
		b.text = t
	case c.Get("data").Exists() || c.Get("blob").Exists():
		d := c.Get("data")
		if !d.Exists() {
			d = c.Get("blob")
		}
		dec, err := base64.StdEncoding.DecodeString(d.String())
		if err != nil {
			b.size = fmt.Sprintf("%s base64 chars", Num(len(d.String())))
			b.detail = "base64 invalid: " + err.Error()
		} else {
			b.size = fmt.Sprintf("%s bytes", Num(len(dec)))
			b.detail = fmt.Sprintf("base64, %s chars (not shown)", Num(len(d.String())))
		}
	}
	if uri != "" {
		b.detail = strings.TrimPrefix(b.detail+" · "+uri, " · ")
	}
	return b
}

// CallBlocks writes the result's blocks: a table, then each text block's
// text, cut to callTextChars.
func CallBlocks(w io.Writer, st terminal.Style, r *call.Result) {
	rows := blocksOf(r.Kind, r.Result)
	isErr := gjson.GetBytes(r.Result, "isError")
	head := fmt.Sprintf("Result: %d block(s)", len(rows))
	if isErr.Exists() {
		head += fmt.Sprintf(", isError %s", isErr.Raw)
	}
	if sc := gjson.GetBytes(r.Result, "structuredContent"); sc.Exists() {
		head += fmt.Sprintf(", structuredContent %s bytes", Num(len(sc.Raw)))
		if s := r.Analysis.Structured; s != nil && s.HasSchema {
			if s.Valid {
				head += " (valid against outputSchema)"
			} else {
				head += fmt.Sprintf(" (%d outputSchema violation(s))", len(s.Violations))
			}
		}
	}
	// probe/result's reading, where it lines up with the blocks: what
	// the decoded bytes look like.
	if len(r.Analysis.Blocks) == len(rows) {
		for i, ab := range r.Analysis.Blocks {
			if ab.Sniffed != "" {
				rows[i].detail = strings.TrimPrefix(rows[i].detail+" · looks like "+ab.Sniffed, " · ")
			}
		}
	}
	// Text blocks alone need no table: each is headed by its size below.
	plainText := !terminal.Verbose(w)
	for _, b := range rows {
		plainText = plainText && b.typ == "text" && b.mime == "" && b.detail == "" && b.text != ""
	}
	if !plainText {
		fmt.Fprintln(w, head+":")
	} else if head != fmt.Sprintf("Result: %d block(s)", len(rows)) {
		fmt.Fprintln(w, head+".") // what the blocks alone do not say
	}
	if len(rows) > 0 && !plainText {
		var cells [][]string
		for _, b := range rows {
			cells = append(cells, []string{terminal.StyledCell(st, b.where), terminal.StyledCell(st, orDash(b.typ)), terminal.StyledCell(st, orDash(b.mime)), b.size, terminal.StyledCell(st, terminal.Clip(b.detail, 120))})
		}
		terminal.Table(w, st, []string{"block", "type", "MIME type", "size", "detail"}, cells, terminal.Default, terminal.Default, terminal.Default, terminal.Right)
	}
	for _, b := range rows {
		if b.text == "" {
			continue
		}
		n := utf8.RuneCountInString(b.text)
		if plainText {
			fmt.Fprintf(w, "%s (text, %s):\n", terminal.Plain(st, b.where), b.size)
		} else {
			fmt.Fprintf(w, "\n%s:\n", terminal.Plain(st, b.where))
		}
		t := terminal.Clip(b.text, callTextChars)
		if st == terminal.Markdown {
			fmt.Fprintf(w, "\n%s\n", quoteBlock(t))
		} else {
			for _, l := range strings.Split(t, "\n") {
				fmt.Fprintf(w, "  %s\n", terminal.Escape(l))
			}
		}
		if n > callTextChars {
			fmt.Fprintf(w, "(%s more chars not shown: --save DIR or --json has all of it)\n", Num(n-callTextChars))
		}
	}
	if s := r.Analysis.Structured; s != nil {
		for _, v := range s.Violations {
			fmt.Fprintf(w, "outputSchema violation at %s: %s\n", terminal.Plain(st, v.Path), terminal.Plain(st, v.Message))
		}
	}
}

func quoteBlock(t string) string {
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		lines[i] = "> " + terminal.MD(l)
	}
	return strings.Join(lines, "\n")
}

func callDeliveries(w io.Writer, st terminal.Style, ds []result.Delivery) {
	if len(ds) == 0 {
		return
	}
	ds, unknown, why := foldUnknown(w, ds)
	ds, whole := foldWhole(w, ds)
	fmt.Fprintln(w)
	if len(ds) > 0 {
		fmt.Fprintln(w, "What each host delivers of it:")
	}
	if len(whole) > 0 {
		fmt.Fprintf(w, "result delivery: whole on %s\n", terminal.Plain(st, strings.Join(whole, ", ")))
	}
	var rows [][]string
	for _, d := range ds {
		limit := "none"
		if d.Limit > 0 {
			limit = Num(d.Limit)
		}
		rows = append(rows, []string{terminal.StyledCell(st, d.HostName), terminal.Verdict(w, d.Outcome), terminal.StyledCell(st, d.Unit), Num(d.Size), limit, Num(d.Delivered), Num(d.Lost), terminal.StyledCell(st, d.Note)})
	}
	if len(rows) > 0 {
		terminal.Table(w, st, []string{"host", "outcome", "unit", "size", "limit", "delivered", "lost", "note"}, rows,
			terminal.Default, terminal.Default, terminal.Default, terminal.Right, terminal.Right, terminal.Right, terminal.Right)
	}
	if len(unknown) > 0 {
		foldedLine(w, st, "result delivery", result.Unknown, unknown, why)
	}
}

// foldWhole takes out of ds, unless w is verbose, the hosts that deliver
// the result whole, each named with its size against its limit.
func foldWhole(w io.Writer, ds []result.Delivery) (rest []result.Delivery, whole []string) {
	if terminal.Verbose(w) {
		return ds, nil
	}
	for _, d := range ds {
		if d.Outcome != result.Whole {
			rest = append(rest, d)
			continue
		}
		limit := "no limit"
		if d.Limit > 0 {
			limit = Num(d.Limit)
		}
		whole = append(whole, fmt.Sprintf("%s (%s of %s %s)", d.HostName, Num(d.Size), limit, d.Unit))
	}
	return rest, whole
}

// foldUnknown takes out of ds, unless w is verbose, the hosts whose
// delivery is unknown: they fold into one line naming them, with the
// note they share.
func foldUnknown(w io.Writer, ds []result.Delivery) (rest []result.Delivery, unknown []string, why string) {
	if terminal.Verbose(w) {
		return ds, nil, ""
	}
	notes := map[string]bool{}
	for _, d := range ds {
		if d.Outcome == result.Unknown {
			unknown = append(unknown, d.HostName)
			notes[d.Note] = true
			why = d.Note
		} else {
			rest = append(rest, d)
		}
	}
	if len(unknown) < 2 {
		return ds, nil, ""
	}
	if len(notes) > 1 {
		why = "--verbose says why for each"
	}
	return rest, unknown, why
}

func callProgress(w io.Writer, st terminal.Style, r *call.Result) {
	if len(r.Progress) == 0 {
		if r.Token != "" {
			fmt.Fprintf(w, "\nProgress: none came for token %s.\n", terminal.Plain(st, strconv.Quote(r.Token)))
		}
		return
	}
	fmt.Fprintf(w, "\nProgress: %s notification(s)", Num(len(r.Progress)))
	if r.ProgressSeen > len(r.Progress) {
		fmt.Fprintf(w, " kept of %s read (past the session's first 10,000 messages a flood is counted, not kept)", Num(r.ProgressSeen))
	}
	if r.Token != "" {
		fmt.Fprintf(w, " (token %s sent)", terminal.Plain(st, strconv.Quote(r.Token)))
	}
	fmt.Fprintln(w, ":")
	var rows [][]string
	var prev time.Duration
	for i, p := range r.Progress {
		if i == callRows {
			rows = append(rows, []string{"…", "", "", "", fmt.Sprintf("%s more not shown: --json has every one kept", Num(len(r.Progress)-i)), ""})
			break
		}
		total := "—"
		if p.Total != nil {
			total = strconv.FormatFloat(*p.Total, 'g', -1, 64)
		}
		tok := "ours"
		if !p.Ours {
			tok = "not ours: " + orDash(p.Token)
		}
		value := strconv.FormatFloat(p.Progress, 'g', -1, 64)
		if p.Invalid != "" {
			value = terminal.StyledCell(st, p.Invalid)
		}
		rows = append(rows, []string{msText(p.At), msText(p.At - prev), value, total, terminal.StyledCell(st, terminal.Clip(p.Message, 80)), terminal.StyledCell(st, tok)})
		prev = p.At
	}
	terminal.Table(w, st, []string{"at", "gap", "progress", "total", "message", "token"}, rows, terminal.Right, terminal.Right, terminal.Right, terminal.Right)
}

func callCancel(w io.Writer, st terminal.Style, r *call.Result) {
	cn := r.Cancel
	if cn == nil {
		return
	}
	fmt.Fprintf(w, "\nCancellation: %s sent %s after the call.\n", cn.Via, msText(cn.At))
	switch cn.Outcome {
	case "stopped":
		if cn.ProgressAfter == 0 {
			fmt.Fprintf(w, "The server stopped: no progress after it (%d before), and no result within %s.\n", cn.ProgressBefore, msText(cn.Waited))
		} else {
			fmt.Fprintf(w, "The server stopped %s after it: %d progress notification(s) after it, none in the rest of the %s watched; no result.\n", msText(cn.LastProgress), cn.ProgressAfter, msText(cn.Waited))
		}
	case "went on":
		fmt.Fprintf(w, "The server went on: %d progress notification(s) after it, the last %s after it (watched %s); no result.\n", cn.ProgressAfter, msText(cn.LastProgress), msText(cn.Waited))
	case "result":
		fmt.Fprintf(w, "The server still answered, %s after it (a late result: the client ignores it).\n", msText(cn.LateAt))
		if cn.ProgressState == "stopped" {
			fmt.Fprintf(w, "Its progress: %d notification(s) before the cancellation, %d after it.\n", cn.ProgressBefore, cn.ProgressAfter)
		}
	case "nothing":
		fmt.Fprintf(w, "Nothing came within %s after it: no progress to watch, no result.\n", msText(cn.Waited))
	case "ended":
		fmt.Fprintf(w, "The server's stream ended %s after it (it exited or closed its output): no result; %d progress notification(s) before it, %d after.\n", msText(cn.EndedAt), cn.ProgressBefore, cn.ProgressAfter)
	default:
		fmt.Fprintf(w, "%s answered: %s.\n", cn.Via, terminal.Plain(st, cn.Outcome))
	}
	if cn.HealthMethod != "" {
		state := "usable"
		if !cn.Healthy {
			state = "NOT usable"
		}
		fmt.Fprintf(w, "Then %s: %s; the session is %s.\n", cn.HealthMethod, terminal.Plain(st, cn.HealthNote), state)
	}
}

func callTask(w io.Writer, st terminal.Style, r *call.Result) {
	t := r.Task
	if t == nil {
		return
	}
	fmt.Fprintf(w, "\nTask %s (taskSupport %s): %d exchange(s), last status %s.\n", terminal.Plain(st, terminal.Clip(strconv.Quote(t.ID), 80)), terminal.Plain(st, orDash(t.Support)), len(t.Polls), terminal.Plain(st, orDash(t.Final)))
	var rows [][]string
	for _, p := range t.Polls {
		pi := "—"
		if p.HasPollInterval {
			pi = Num(int(p.PollInterval)) + " ms"
		}
		status := p.Status
		if p.Err != "" {
			status = "error: " + p.Err
		}
		rows = append(rows, []string{msText(p.At), p.Method, terminal.StyledCell(st, terminal.Clip(orDash(status), 80)), terminal.StyledCell(st, terminal.Clip(p.Message, 80)), pi})
	}
	terminal.Table(w, st, []string{"at", "request", "status", "message", "pollInterval"}, rows, terminal.Right)
}

// callRounds says, round by round, what an input_required result asked
// for, what mcpprobe answered, and what the retry got.
func callRounds(w io.Writer, st terminal.Style, r *call.Result) {
	if len(r.Rounds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nInput required: %d round(s) answered (2026-07-28 multi round-trip requests).\n", len(r.Rounds))
	var rows [][]string
	for _, rd := range r.Rounds {
		state := "none"
		if rd.StateEchoed {
			state = "echoed"
		}
		got := rd.ResultType
		if rd.Err != "" {
			got = rd.Err
		}
		if len(rd.Answers) == 0 {
			rows = append(rows, []string{strconv.Itoa(rd.N), "—", "—", "—", state, terminal.StyledCell(st, terminal.Clip(orDash(got), 80))})
		}
		for i, a := range rd.Answers {
			n, g := strconv.Itoa(rd.N), terminal.StyledCell(st, terminal.Clip(orDash(got), 80))
			if i > 0 {
				n, state, g = "", "", ""
			}
			rows = append(rows, []string{n, terminal.StyledCell(st, terminal.Clip(a.Key, 40)), terminal.StyledCell(st, terminal.Clip(a.Method, 40)), terminal.StyledCell(st, terminal.Clip(answerText(a), 100)), state, g})
		}
	}
	terminal.Table(w, st, []string{"round", "input", "request", "answered", "requestState", "retry got"}, rows, terminal.Right)
}

// answerText is what mcpprobe answered an input request and why.
func answerText(a mrtr.Answer) string {
	if a.Response == nil {
		return a.By
	}
	return a.By + ": " + string(a.Response)
}

func callEvents(w io.Writer, st terminal.Style, r *call.Result) {
	var rows [][]string
	more := 0
	for _, e := range r.Events {
		if e.Kind == "notification" && e.Method == "notifications/progress" {
			continue // in the progress timeline
		}
		if len(rows) == callRows {
			more++
			continue
		}
		what := e.Answer
		if what == "" {
			what = e.Note
		}
		rows = append(rows, []string{msText(e.At), strconv.Itoa(e.Seq), e.Kind, terminal.StyledCell(st, orDash(e.Method)), terminal.StyledCell(st, what)})
	}
	if len(rows) == 0 {
		return
	}
	if more > 0 {
		rows = append(rows, []string{"…", "", "", "", fmt.Sprintf("%s more not shown: --json has every one kept", Num(more))})
	}
	fmt.Fprintln(w, "\nDuring the call the server also sent:")
	terminal.Table(w, st, []string{"at", "frame", "kind", "method", "mcpprobe's answer, or note"}, rows, terminal.Right, terminal.Right)
}

// CallVerdicts writes whether the call survives each timeout policy.
func CallVerdicts(w io.Writer, st terminal.Style, vs []result.Verdict) {
	if len(vs) == 0 {
		return
	}
	if !terminal.Verbose(w) && len(vs) > 1 && sameOutcome(vs) && vs[0].Outcome == result.Survives {
		var names []string
		for _, v := range vs {
			names = append(names, v.Policy.Name)
		}
		fmt.Fprintf(w, "\ntimeouts: %s every policy (%s)\n", vs[0].Outcome, terminal.Plain(st, strings.Join(names, ", ")))
		return
	}
	fmt.Fprintln(w, "\nWould a client give up on it?")
	var rows [][]string
	for _, v := range vs {
		at := "—"
		if v.At > 0 {
			at = msText(v.At)
		}
		rows = append(rows, []string{terminal.StyledCell(st, v.Policy.Name), policyRule(v.Policy), terminal.Verdict(w, v.Outcome), at, terminal.StyledCell(st, v.Why)})
	}
	terminal.Table(w, st, []string{"policy", "rule", "verdict", "gives up at", "why"}, rows)
}

func sameOutcome(vs []result.Verdict) bool {
	for _, v := range vs {
		if v.Outcome != vs[0].Outcome {
			return false
		}
	}
	return true
}

// policyRule is a policy as --policy spells it.
func policyRule(p result.Policy) string {
	var parts []string
	if p.Timeout > 0 {
		parts = append(parts, "timeout:"+shortDuration(p.Timeout))
	}
	if p.ResetOnProgress {
		parts = append(parts, "reset-on-progress")
	}
	if p.MaxTotal > 0 {
		parts = append(parts, "max-total:"+shortDuration(p.MaxTotal))
		if p.MaxTotalOnProgress {
			parts = append(parts, "max-total-on-progress")
		}
	}
	if p.Idle > 0 {
		parts = append(parts, "idle:"+shortDuration(p.Idle))
	}
	if len(parts) == 0 {
		return "no timeout"
	}
	return strings.Join(parts, ",")
}

// shortDuration is d as a --policy would spell it: 60s is "1m", not
// "1m0s".
func shortDuration(d time.Duration) string {
	if d%time.Second != 0 {
		return d.String()
	}
	var b strings.Builder
	for _, u := range []struct {
		d time.Duration
		s string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.s)
			d -= n * u.d
		}
	}
	return b.String()
}

// CallView writes, as markdown, what a host's model would read of the
// result: the text exactly as delivered, control characters escaped.
func CallView(w io.Writer, r *call.Result, host string) {
	terminal.TidyTo(w, func(w io.Writer) { callView(w, r, host) })
}

func callView(w io.Writer, r *call.Result, host string) {
	for _, d := range r.Deliveries {
		if d.Host != host {
			continue
		}
		fmt.Fprintf(w, "# What %s receives of %s %s\n\n", terminal.MD(d.HostName), r.Method, terminal.Code(r.Name))
		fmt.Fprintf(w, "Outcome: %s. Rule measured %s (source: %s). Text is shown exactly as delivered, control characters escaped.\n\n", terminal.MD(d.Outcome), terminal.MD(d.MeasuredOn), terminal.MD(d.Source))
		if d.Note != "" {
			fmt.Fprintf(w, "%s\n\n", terminal.MDMessage(d.Note))
		}
		if d.View == "" {
			fmt.Fprintln(w, "Nothing of the result reaches the model, or its text is not known.")
			return
		}
		fence(w, d.View)
		return
	}
	fmt.Fprintf(w, "# %s %s\n\nNo delivery rule is known for host %s on this result.\n", r.Method, terminal.Code(r.Name), terminal.Code(host))
}

// CallJSON is the section of call, read and prompt --json (its fields are
// in the README): the request and the response embedded byte for byte,
// then what mcpprobe measured of them.
func CallJSON(r *call.Result) []byte {
	o := &jsonout.Object{}
	o.Set("kind", string(r.Kind)).Set("method", r.Method).Set("name", r.Name)
	o.Raw("arguments", r.Args)
	o.Raw("definition", r.Definition)
	o.Set("request_id", r.RequestID)
	o.Raw("request", r.Request)
	o.Set("completed", r.Completed)
	o.Raw("response", r.Response)
	o.Raw("result", r.Result)
	if r.Completed {
		o.Set("response_frame", r.ResponseSeq)
	} else {
		o.Raw("response_frame", nil)
	}
	if r.Error != nil {
		eo := &jsonout.Object{}
		eo.Set("code", r.Error.Code).Set("raw_code", r.Error.RawCode).Set("message", r.Error.Message).Raw("data", r.Error.Data)
		o.Raw("error", eo.Bytes())
	} else {
		o.Raw("error", nil)
	}
	o.Set("unanswered", jsonout.NullIfEmpty(r.Unanswered))
	t := &jsonout.Object{}
	t.Set("sent_ns", int64(r.Sent))
	t.Set("first_frame_ns", jsonout.NsOrNull(int64(r.FirstFrame), r.FirstFrame > 0))
	t.Set("answered_ns", jsonout.NsOrNull(int64(r.Answered), r.Completed))
	t.Set("watched_ns", int64(r.Watched))
	o.Raw("timings", t.Bytes())
	o.Set("progress_token", jsonout.NullIfEmpty(r.Token))
	prog := make([][]byte, 0, len(r.Progress))
	for _, p := range r.Progress {
		po := &jsonout.Object{}
		po.Set("at_ns", int64(p.At)).Set("frame", p.Seq)
		if p.Token != "" {
			po.Raw("token", []byte(p.Token))
		} else {
			po.Raw("token", nil)
		}
		po.Set("ours", p.Ours).Set("progress", p.Progress).Set("total", p.Total).Set("message", p.Message)
		po.Set("invalid", jsonout.NullIfEmpty(p.Invalid))
		prog = append(prog, po.Bytes())
	}
	o.Raw("progress", jsonout.RawArray(prog))
	o.Set("progress_seen", r.ProgressSeen)
	evs := make([][]byte, 0, len(r.Events))
	for _, e := range r.Events {
		eo := &jsonout.Object{}
		eo.Set("at_ns", int64(e.At)).Set("frame", e.Seq).Set("kind", e.Kind).Set("method", jsonout.NullIfEmpty(e.Method))
		eo.Set("answer", jsonout.NullIfEmpty(e.Answer)).Set("note", jsonout.NullIfEmpty(e.Note)).Raw("raw", e.Raw)
		evs = append(evs, eo.Bytes())
	}
	o.Raw("events", jsonout.RawArray(evs))
	if cn := r.Cancel; cn != nil {
		co := &jsonout.Object{}
		co.Set("via", cn.Via).Set("at_ns", int64(cn.At)).Set("reason", cn.Reason).Raw("answer", cn.Answer)
		co.Set("progress_before", cn.ProgressBefore).Set("progress_after", cn.ProgressAfter)
		co.Set("last_progress_ns", jsonout.NsOrNull(int64(cn.LastProgress), cn.LastProgress >= 0))
		co.Set("outcome", cn.Outcome).Set("progress_state", jsonout.NullIfEmpty(cn.ProgressState))
		co.Set("late_result_ns", jsonout.NsOrNull(int64(cn.LateAt), cn.Outcome == "result"))
		co.Set("ended_ns", jsonout.NsOrNull(int64(cn.EndedAt), cn.Outcome == "ended"))
		co.Set("waited_ns", int64(cn.Waited))
		co.Set("healthy", cn.Healthy).Set("health_method", jsonout.NullIfEmpty(cn.HealthMethod)).Set("health_note", jsonout.NullIfEmpty(cn.HealthNote))
		o.Raw("cancel", co.Bytes())
	} else {
		o.Raw("cancel", nil)
	}
	if tk := r.Task; tk != nil {
		to := &jsonout.Object{}
		to.Set("task_id", tk.ID).Set("task_support", jsonout.NullIfEmpty(tk.Support)).Set("capability", tk.Capability)
		to.Raw("created", tk.Created)
		to.Set("final_status", jsonout.NullIfEmpty(tk.Final)).Set("terminal", tk.Terminal)
		polls := make([][]byte, 0, len(tk.Polls))
		for _, p := range tk.Polls {
			po := &jsonout.Object{}
			po.Set("method", p.Method).Set("at_ns", int64(p.At)).Set("frame", p.Seq).Set("status", jsonout.NullIfEmpty(p.Status))
			po.Set("status_message", jsonout.NullIfEmpty(p.Message)).Set("poll_interval_ms", jsonout.NsOrNull(p.PollInterval, p.HasPollInterval))
			po.Set("error", jsonout.NullIfEmpty(p.Err)).Raw("raw", p.Raw)
			polls = append(polls, po.Bytes())
		}
		to.Raw("polls", jsonout.RawArray(polls))
		o.Raw("task", to.Bytes())
	} else {
		o.Raw("task", nil)
	}
	rounds := make([][]byte, 0, len(r.Rounds))
	for _, rd := range r.Rounds {
		ro := &jsonout.Object{}
		ro.Set("round", rd.N).Raw("asked", rd.Asked).Set("asked_frame", rd.AskedSeq)
		answers := make([][]byte, 0, len(rd.Answers))
		for _, a := range rd.Answers {
			ao := &jsonout.Object{}
			ao.Set("key", a.Key).Set("method", a.Method).Set("by", a.By).Raw("response", a.Response)
			answers = append(answers, ao.Bytes())
		}
		ro.Raw("answers", jsonout.RawArray(answers))
		ro.Set("request_state_echoed", rd.StateEchoed).Set("request_id", rd.RequestID).Raw("response", rd.Response)
		ro.Set("result_type", jsonout.NullIfEmpty(rd.ResultType)).Set("error", jsonout.NullIfEmpty(rd.Err))
		rounds = append(rounds, ro.Bytes())
	}
	o.Raw("input_rounds", jsonout.RawArray(rounds))
	if r.Result != nil {
		ao := &jsonout.Object{}
		a := r.Analysis
		blocks := a.Blocks
		if blocks == nil {
			blocks = []result.Block{}
		}
		ao.Set("kind", string(a.Kind)).Set("bytes", a.Bytes).Set("is_error", a.IsError).Set("blocks", blocks).Set("structured", a.Structured).Raw("meta", a.Meta)
		o.Raw("analysis", ao.Bytes())
	} else {
		o.Raw("analysis", nil)
	}
	ds := r.Deliveries
	if ds == nil {
		ds = []result.Delivery{}
	}
	o.Set("deliveries", ds)
	vs := r.Verdicts
	if vs == nil {
		vs = []result.Verdict{}
	}
	o.Set("verdicts", vs)
	callSkillJSON(o, r.Skill)
	return o.Bytes()
}

// Calls is the report's "Calls" section: per call, what answered and its
// size, what each host delivers of it, and the verdict per timeout
// policy. Times are left out: the same server answers give the same
// section.
func Calls(w io.Writer, cs []*call.Result) {
	st := terminal.Markdown
	var rows [][]string
	for _, r := range cs {
		args := "none"
		if r.Args != nil {
			args = terminal.Code(terminal.Clip(string(r.Args), 80))
		}
		blocks := "—"
		if r.Result != nil {
			blocks = strconv.Itoa(len(blocksOf(r.Kind, r.Result)))
		}
		rows = append(rows, []string{terminal.Code(r.Name), args, callAnswer(r), bytesOrDash(r.Result), blocks})
	}
	terminal.Table(w, st, []string{"tool", "arguments", "answer", "result bytes", "blocks"}, rows, terminal.Default, terminal.Default, terminal.Default, terminal.Right, terminal.Right)
	seen := map[string]int{}
	for i, r := range cs {
		seen[r.Name]++
		if len(r.Deliveries) == 0 && len(r.Verdicts) == 0 {
			continue
		}
		// A tool called twice gets a heading per call, each its own.
		if seen[r.Name] > 1 {
			fmt.Fprintf(w, "\n### %s, call %d\n\n", terminal.Code(r.Name), i+1)
		} else {
			fmt.Fprintf(w, "\n### %s\n\n", terminal.Code(r.Name))
		}
		// As in call's text: the hosts whose rule is unknown are one
		// line, and so are policies that all survive (--verbose: rows).
		ds, unknown, why := foldUnknown(w, r.Deliveries)
		if len(ds) > 0 {
			var drows [][]string
			for _, d := range ds {
				drows = append(drows, []string{terminal.MD(d.HostName), d.Outcome, terminal.MD(d.Unit), Num(d.Size), Num(d.Lost), terminal.MD(d.Note)})
			}
			terminal.Table(w, st, []string{"host", "delivers", "unit", "size", "lost", "note"}, drows, terminal.Default, terminal.Default, terminal.Default, terminal.Right, terminal.Right)
			fmt.Fprintln(w)
		}
		if len(unknown) > 0 {
			for i, n := range unknown {
				unknown[i] = terminal.MD(n)
			}
			fmt.Fprintf(w, "Result delivery unknown on %s (%s).\n\n", strings.Join(unknown, ", "), terminal.MDMessage(why))
		}
		if len(r.Verdicts) > 1 && !terminal.Verbose(w) && sameOutcome(r.Verdicts) && r.Verdicts[0].Outcome == result.Survives {
			var names []string
			for _, v := range r.Verdicts {
				names = append(names, terminal.MD(v.Policy.Name))
			}
			fmt.Fprintf(w, "Timeouts: survives every policy (%s).\n", strings.Join(names, ", "))
			continue
		}
		if len(r.Verdicts) > 0 {
			var vrows [][]string
			for _, v := range r.Verdicts {
				vrows = append(vrows, []string{terminal.MD(v.Policy.Name), terminal.Code(policyRule(v.Policy)), v.Outcome})
			}
			terminal.Table(w, st, []string{"timeout policy", "rule", "this call"}, vrows)
		}
	}
}

// callAnswer is how a call was answered, in a word or two.
func callAnswer(r *call.Result) string {
	switch {
	case r.Error != nil:
		return "JSON-RPC error " + terminal.MD(errCode(r))
	case !r.Completed:
		return "no answer"
	case gjson.GetBytes(r.Result, "isError").Bool():
		return "`isError` result"
	}
	return "result"
}

func bytesOrDash(b []byte) string {
	if b == nil {
		return "—"
	}
	return Num(len(b))
}
