package reports

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
)

// FaultTable writes one row per call.
func FaultTable(w io.Writer, st Style, r faults.Result) {
	var rows [][]string
	for _, c := range r.Calls {
		code := "—"
		if c.Outcome == faults.RPCError {
			code = strconv.FormatInt(c.Code, 10)
		}
		retried := ""
		if c.Retried {
			retried = "yes"
		}
		note := c.Note
		if note == "" {
			note = "—"
		}
		rows = append(rows, []string{strconv.Itoa(c.N), code0(st, c.Tool), c.Outcome, code, fmt.Sprintf("%.1f", c.Ms), retried, Cell(note)})
	}
	Table(w, st, []string{"call", "tool", "outcome", "code", "ms", "retried", "what happened"}, rows,
		Right, Left, Left, Right, Right, Left, Left)
}

func code0(st Style, s string) string { return code(st, s) }

// FaultSummary says how long each failure took to detect and to recover
// from.
func FaultSummary(w io.Writer, st Style, r faults.Result) {
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
		rec := "not recovered"
		if f.Recovered {
			rec = fmt.Sprintf("recovered after a restart and a retry, +%.0f ms", f.RecoveryMs)
		}
		line := fmt.Sprintf("call %d: %s, detected after %.0f ms; %s", f.Call, f.Outcome, f.DetectedMs, rec)
		if st == Markdown {
			line = "- " + line
		} else {
			line = "  " + line
		}
		fmt.Fprintln(w, line)
	}
}

// ClientsTable writes what each client policy saw, call by call.
func ClientsTable(w io.Writer, st Style, rs []faults.Result) {
	header := []string{"call"}
	for _, r := range rs {
		header = append(header, string(r.Policy))
	}
	var rows [][]string
	for i := range rs[0].Calls {
		row := []string{strconv.Itoa(rs[0].Calls[i].N)}
		for _, r := range rs {
			cell := "—"
			if i < len(r.Calls) {
				cell = r.Calls[i].Outcome
				if r.Calls[i].Retried {
					cell += " (retried)"
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	Table(w, st, header, rows)
}

// ShutdownLines reports how the server takes stdin closing and SIGTERM.
func ShutdownLines(w io.Writer, st Style, sd faults.Shutdown, grace time.Duration) {
	prefix := ""
	if st == Markdown {
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

// FaultsJSON renders fault runs (fields in the README).
func FaultsJSON(rs []faults.Result, sd *faults.Shutdown) []byte {
	one := func(r faults.Result) *Object {
		o := &Object{}
		var calls [][]byte
		for _, c := range r.Calls {
			co := &Object{}
			co.Set("n", c.N).Set("tool", c.Tool).Set("outcome", c.Outcome)
			co.Set("code", nsOrNull(c.Code, c.Outcome == faults.RPCError)).Set("ms", c.Ms).Set("retried", c.Retried)
			co.Set("note", nullIfEmpty(c.Note))
			calls = append(calls, co.Bytes())
		}
		o.Raw("calls", RawArray(calls))
		s := &Object{}
		s.Set("client", string(r.Policy)).Set("faults", r.Plan).Set("counts", r.Counts).Set("late_replies", r.LateReplies).Set("restarts", r.Restarts)
		var fs [][]byte
		for _, f := range r.Failures {
			fs = append(fs, (&Object{}).Set("call", f.Call).Set("outcome", f.Outcome).Set("detected_ms", f.DetectedMs).
				Set("recovered", f.Recovered).Set("recovery_ms", f.RecoveryMs).Bytes())
		}
		s.Raw("failures", RawArray(fs))
		o.Raw("summary", s.Bytes())
		return o
	}
	o := one(rs[0])
	if len(rs) > 1 {
		var all [][]byte
		for _, r := range rs {
			all = append(all, one(r).Bytes())
		}
		o.Raw("clients", RawArray(all))
	}
	if sd != nil {
		so := &Object{}
		so.Set("stdin_close_ns", int64(sd.StdinClose)).Set("stdin_close_needed", nullIfEmpty(sd.StdinCloseSignal))
		so.Set("sigterm_ns", nsOrNull(int64(sd.Sigterm), sd.SigtermExited)).Set("sigterm_exited", sd.SigtermExited)
		o.Raw("shutdown", so.Bytes())
	} else {
		o.Raw("shutdown", nil)
	}
	return append(o.Bytes(), '\n')
}

// ScenarioRow sums up one fault scenario: what the client saw, how soon,
// and whether it recovered.
func ScenarioRow(name string, r faults.Result) []string {
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
		detected = fmt.Sprintf("%.0f ms", f.DetectedMs)
		recovered = "no"
		if f.Recovered {
			recovered = fmt.Sprintf("yes, +%.0f ms", f.RecoveryMs)
		}
	}
	what := joinComma(seen)
	if r.LateReplies > 0 {
		what += fmt.Sprintf("; %d late reply dropped", r.LateReplies)
	}
	return []string{Cell(name), what, detected, recovered}
}

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
