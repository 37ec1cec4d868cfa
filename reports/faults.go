package reports

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// FaultTable writes one row per call, the handshake first when something
// happened during it: it failed, or the server wrote stray output.
func FaultTable(w io.Writer, st terminal.Style, r faults.ClientRun) {
	var rows [][]string
	if !hasHandshakeRow(r) {
		if notes := eventsAt(r, 0); len(notes) > 0 {
			rows = append(rows, []string{"handshake", "—", faults.OK, "—", "—", "", terminal.StyledCell(st, joinSemi(notes))})
		}
	}
	for _, c := range r.Calls {
		code := "—"
		if c.Outcome == faults.RPCError {
			code = strconv.FormatInt(c.Code, 10)
		}
		retried := ""
		if c.Retried {
			// Its ms are the whole wait, the restart's too: say how much.
			retried = fmt.Sprintf("yes (incl. restart %.1f)", c.RestartMs)
		}
		note := c.Note
		if note == "" {
			note = "—"
		}
		tool := code0(st, c.Tool)
		if c.N == 0 {
			tool = "—"
		}
		rows = append(rows, []string{callLabel(c.N), tool, c.Outcome, code, fmt.Sprintf("%.1f", c.Ms), retried, terminal.StyledCell(st, note)})
	}
	terminal.Table(w, st, []string{"call", "tool", "outcome", "code", "ms", "retried", "what happened"}, rows,
		terminal.Right, terminal.Left, terminal.Left, terminal.Right, terminal.Right, terminal.Left, terminal.Left)
}

func code0(st terminal.Style, s string) string { return code(st, s) }

// callLabel names a row: its call number, or the handshake (0).
func callLabel(n int) string {
	if n == 0 {
		return "handshake"
	}
	return strconv.Itoa(n)
}

func hasHandshakeRow(r faults.ClientRun) bool {
	return len(r.Calls) > 0 && r.Calls[0].N == 0
}

// eventsAt is what happened at call n (0: before the first call), in order.
func eventsAt(r faults.ClientRun, n int) []string {
	var out []string
	for _, e := range r.Events {
		if e.Call == n {
			out = append(out, e.What)
		}
	}
	return out
}

func joinSemi(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += "; "
		}
		out += v
	}
	return out
}

// FaultSummary counts the outcomes, then says of each failure how long it
// took to detect, and whether the server answered again after it.
func FaultSummary(w io.Writer, st terminal.Style, r faults.ClientRun) {
	var keys []string
	for k := range r.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	counts := ""
	for i, k := range keys {
		if i > 0 {
			counts += ", "
		}
		counts += fmt.Sprintf("%s ×%d", k, r.Counts[k])
	}
	fmt.Fprintf(w, "%s; late replies dropped: %d; restarts: %d\n", counts, r.LateReplies, r.Restarts)
	for _, f := range r.Failures {
		at := "call " + strconv.Itoa(f.Call)
		if f.Call == 0 {
			at = "handshake"
		}
		line := fmt.Sprintf("%s: %s, detected after %.0f ms; %s", at, f.Outcome, f.DetectedMs, recovery(st, f))
		item(w, st, line)
	}
}

// recovery says whether the server answered again after a failure, and
// apart from it what the retry got.
func recovery(st terminal.Style, f faults.Failure) string {
	s := ""
	if f.Retry != "" {
		s = "restarted, the retry got " + f.Retry + "; "
	}
	switch {
	case f.Recovered:
		return s + fmt.Sprintf("recovered (%s answered), +%s ms", f.RecoveredBy, msFigure(f.RecoveryMs))
	case f.RestartError != "":
		return s + "not recovered: the restart failed: " + terminal.Plain(st, f.RestartError)
	}
	return s + "not recovered: the server answered no request after it"
}

func item(w io.Writer, st terminal.Style, line string) {
	if st == terminal.Markdown {
		fmt.Fprintln(w, "- "+line)
	} else {
		fmt.Fprintln(w, "  "+line)
	}
}

// EventLines lists what happened at each call of a run: the faults' doing
// and the server's own stray output, with what this client made of it.
func EventLines(w io.Writer, st terminal.Style, r faults.ClientRun) {
	for _, e := range r.Events {
		at := "handshake"
		if e.Call > 0 {
			at = "call " + strconv.Itoa(e.Call)
		}
		item(w, st, at+": "+terminal.Plain(st, e.What))
	}
}

// ClientsTable writes what each client policy saw, one row per call
// number, the handshake first when any client's failed or the server
// wrote stray output during it.
func ClientsTable(w io.Writer, st terminal.Style, rs []faults.ClientRun) {
	header := []string{"call"}
	handshake := false
	seen := map[int]bool{}
	for _, r := range rs {
		header = append(header, string(r.Policy))
		handshake = handshake || hasHandshakeRow(r) || len(eventsAt(r, 0)) > 0
		for _, c := range r.Calls {
			if c.N > 0 {
				seen[c.N] = true
			}
		}
	}
	keys := make([]int, 0, len(seen)+1)
	if handshake {
		keys = append(keys, 0)
	}
	for n := range seen {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	var rows [][]string
	for _, n := range keys {
		row := []string{callLabel(n)}
		for _, r := range rs {
			cell := "—"
			if n == 0 {
				cell = faults.OK // no row: its handshake went through
			}
			for _, c := range r.Calls {
				if c.N == n {
					cell = c.Outcome
					if c.Retried {
						cell += " (retried)"
					}
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	terminal.Table(w, st, header, rows)
}

// ShutdownLines reports how the server takes stdin closing and SIGTERM.
func ShutdownLines(w io.Writer, st terminal.Style, sd faults.Shutdown, grace time.Duration) {
	prefix := ""
	if st == terminal.Markdown {
		prefix = "- "
	}
	switch sd.StdinCloseSignal {
	case "":
		fmt.Fprintf(w, "%sstdin close → exit: %s\n", prefix, ns(float64(sd.StdinClose)))
	default:
		fmt.Fprintf(w, "%sstdin close → exit: the server ignored it and needed %s (finding: hosts close stdin and expect an exit)\n", prefix, sd.StdinCloseSignal)
	}
	if sd.SigtermExited {
		fmt.Fprintf(w, "%sSIGTERM → exit: %s\n", prefix, ns(float64(sd.Sigterm)))
	} else {
		fmt.Fprintf(w, "%sSIGTERM → exit: still running after %v; it needs SIGKILL (finding)\n", prefix, grace)
	}
}

// ScenarioRow sums up one fault scenario for the committed report: what
// the client saw, what told it, and whether the server answered again.
// It gives no milliseconds: a report must come out the same on a machine
// five times slower, and how a failure was detected (a closed stream at
// once, a timeout at the client's deadline) is what does not move; the
// faults command shows the figures.
func ScenarioRow(name string, r faults.ClientRun) []string {
	var seen []string
	prev, n := "", 0
	flush := func() {
		if prev == "" {
			return
		}
		s := "`" + prev + "`"
		if n > 1 {
			s += fmt.Sprintf(" ×%d", n)
		}
		seen = append(seen, s)
	}
	for _, c := range r.Calls {
		o := c.Outcome
		if c.Retried {
			o += " (retried)"
		}
		if o == prev {
			n++
			continue
		}
		flush()
		prev, n = o, 1
	}
	flush()
	detected, recovered := "—", "—"
	if len(r.Failures) > 0 {
		f := r.Failures[0]
		detected = detectedBy(f.Outcome)
		recovered = "no"
		if f.Recovered {
			recovered = "yes"
			if f.RecoveredBy != "" {
				recovered += ", " + f.RecoveredBy + " answered"
			}
		}
	}
	what := joinComma(seen)
	if r.LateReplies > 0 {
		what += fmt.Sprintf("; %d late reply dropped", r.LateReplies)
	}
	return []string{terminal.Cell(name), what, detected, recovered}
}

// detectedBy is what told the client a call had failed, from the call's
// outcome.
func detectedBy(outcome string) string {
	switch outcome {
	case faults.Timeout:
		return "at the client's timeout"
	case faults.Closed, faults.NotConnected:
		return "when the connection dropped"
	case faults.RPCError, faults.IsError:
		return "by the reply"
	}
	return outcome
}

// msFigure prints milliseconds to a tenth below 10 ms, whole above.
func msFigure(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// Faults writes a faults run: with one client policy, call by call and a
// summary; with several, what each would see. Then how the server took
// being shut down, and the findings, if any.
// clientOutcomes names, in a phrase, the clients a fault broke: those
// with an outcome other than ok on some call.
func clientOutcomes(rs []faults.ClientRun) string {
	var broke []string
	for _, run := range rs {
		var sum strings.Builder
		FaultSummary(&sum, terminal.Markdown, run)
		first, _, _ := strings.Cut(sum.String(), "\n")
		head, _, _ := strings.Cut(first, ";")
		for _, part := range strings.Split(head, ", ") {
			if !strings.HasPrefix(strings.TrimSpace(part), "ok ") {
				broke = append(broke, string(run.Policy))
				break
			}
		}
	}
	if len(broke) == 0 {
		return "every client gets ok on every call"
	}
	return "not ok on " + strings.Join(broke, ", ")
}

func Faults(w io.Writer, st terminal.Style, r *faults.Result) {
	if len(r.Runs) == 1 {
		run := r.Runs[0]
		// The answer first: the summary's first line.
		var sum strings.Builder
		FaultSummary(&sum, st, run)
		first, _, _ := strings.Cut(sum.String(), "\n")
		fmt.Fprintf(w, "faults: %s · client policy: %s · %s\n\n", r.Plan, run.Policy, first)
		FaultTable(w, st, run)
		fmt.Fprintln(w)
		FaultSummary(w, st, run)
	} else if len(r.Runs) > 1 {
		fmt.Fprintf(w, "faults: %s · what each client would see: %s\n\n", r.Plan, clientOutcomes(r.Runs))
		ClientsTable(w, st, r.Runs)
		fmt.Fprintln(w)
		for _, run := range r.Runs {
			fmt.Fprintf(w, "%s: ", run.Policy)
			FaultSummary(w, st, run)
			EventLines(w, st, run)
		}
	}
	if sd := r.Shutdown; sd != nil {
		fmt.Fprintln(w)
		ShutdownLines(w, st, *sd, r.Grace)
	}
	if fs := r.Findings(); len(fs) > 0 {
		fmt.Fprintln(w)
		Findings(w, st, SortFindings(fs))
	}
}

// FaultScenarios writes the report's fault section: one row per scenario.
func FaultScenarios(w io.Writer, st terminal.Style, r *faults.ScenarioResult) {
	rows := make([][]string, len(r.Scenarios))
	for i, sc := range r.Scenarios {
		rows[i] = ScenarioRow(sc.Name, sc.Run)
	}
	terminal.Table(w, st, []string{"fault", fmt.Sprintf("what a client saw (%d calls)", r.N), "failure detected", "recovered"}, rows)
	fmt.Fprintln(w)
	if r.NotRun != "" {
		fmt.Fprintln(w, "Scenarios "+r.NotRun+".")
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Clients: spec skips stray text and reports it; strict ends the session (the official Go SDK); lenient skips it (mcp-go); ts reports it and goes on (the TypeScript SDK).")
}

// FaultsSection is the faults command's --json section (fields in the
// README): the same shape whatever --client is, one run per policy.
func FaultsSection(r *faults.Result) []byte {
	runs := make([][]byte, len(r.Runs))
	for i, run := range r.Runs {
		runs[i] = faultRunJSON(run)
	}
	o := &jsonout.Object{}
	o.Set("plan", r.Plan).Set("restart", r.Restart).Set("calls_per_run", r.N)
	o.Raw("runs", jsonout.RawArray(runs))
	if sd := r.Shutdown; sd != nil {
		so := &jsonout.Object{}
		so.Set("stdin_close_ns", int64(sd.StdinClose)).Set("stdin_close_needed", jsonout.NullIfEmpty(sd.StdinCloseSignal))
		so.Set("sigterm_ns", jsonout.NsOrNull(int64(sd.Sigterm), sd.SigtermExited)).Set("sigterm_exited", sd.SigtermExited)
		so.Set("grace_ns", int64(r.Grace))
		o.Raw("shutdown", so.Bytes())
	} else {
		o.Raw("shutdown", nil)
	}
	return o.Bytes()
}

// FaultScenariosJSON is the report's fault section as JSON: each scenario
// with its plan and the run it gave, a run as in FaultsSection. notRun,
// when r is nil, says why there are none.
func FaultScenariosJSON(r *faults.ScenarioResult, notRun string) []byte {
	o := (&jsonout.Object{}).Set("not_run", jsonout.NullIfEmpty(notRun))
	if r == nil {
		return o.Set("calls_per_scenario", 0).Raw("scenarios", jsonout.RawArray(nil)).Bytes()
	}
	scs := make([][]byte, len(r.Scenarios))
	for i, sc := range r.Scenarios {
		scs[i] = (&jsonout.Object{}).Set("name", sc.Name).Set("plan", sc.Plan).Set("restart", sc.Restart).
			Raw("run", faultRunJSON(sc.Run)).Bytes()
	}
	return o.Set("calls_per_scenario", r.N).Raw("scenarios", jsonout.RawArray(scs)).Bytes()
}

// faultRunJSON is what one client policy saw of one run.
func faultRunJSON(r faults.ClientRun) []byte {
	calls := make([][]byte, len(r.Calls))
	for i, c := range r.Calls {
		co := &jsonout.Object{}
		co.Set("n", c.N).Set("tool", c.Tool).Set("outcome", c.Outcome)
		co.Set("code", jsonout.NsOrNull(c.Code, c.Outcome == faults.RPCError)).Set("ms", c.Ms).Set("retried", c.Retried)
		if c.Retried {
			co.Set("restart_ms", c.RestartMs)
		} else {
			co.Raw("restart_ms", nil)
		}
		co.Set("note", jsonout.NullIfEmpty(c.Note))
		calls[i] = co.Bytes()
	}
	fs := make([][]byte, len(r.Failures))
	for i, f := range r.Failures {
		fs[i] = (&jsonout.Object{}).Set("call", f.Call).Set("outcome", f.Outcome).Set("detected_ms", f.DetectedMs).
			Set("recovered", f.Recovered).Set("recovery_ms", f.RecoveryMs).Set("recovered_by", jsonout.NullIfEmpty(f.RecoveredBy)).
			Set("retry_outcome", jsonout.NullIfEmpty(f.Retry)).Set("restart_error", jsonout.NullIfEmpty(f.RestartError)).Bytes()
	}
	evs := make([][]byte, len(r.Events))
	for i, e := range r.Events {
		evs[i] = (&jsonout.Object{}).Set("call", e.Call).Set("server", e.Server).Set("t_ms", ms(e.T)).
			Set("stray", e.Stray).Set("what", e.What).Bytes()
	}
	counts := r.Counts
	if counts == nil {
		counts = map[string]int{}
	}
	o := &jsonout.Object{}
	o.Set("client", string(r.Policy)).Raw("calls", jsonout.RawArray(calls)).Set("counts", counts)
	o.Raw("failures", jsonout.RawArray(fs)).Raw("events", jsonout.RawArray(evs)).Set("late_replies", r.LateReplies).Set("restarts", r.Restarts)
	return o.Bytes()
}
