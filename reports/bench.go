package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// BenchTable writes one row per series. The rounds column is shown only
// when a series has more than one (bench --vs): alone it always says 1.
func BenchTable(w io.Writer, st terminal.Style, series []bench.Series) {
	rounds := false
	for _, s := range series {
		rounds = rounds || s.Rounds > 1
	}
	var rows [][]string
	for _, s := range series {
		first := "—"
		if s.First > 0 {
			first = ns(s.First)
			if s.FirstTimedOut {
				// Not a measure: how long the call was waited for.
				first = "timed out at " + first
			} else if s.FirstSlow {
				first += " (slow)"
			}
		}
		row := []string{terminal.StyledCell(st, s.Name)}
		if rounds {
			row = append(row, Num(s.Rounds))
		}
		rows = append(rows, append(row, Num(s.N), ns(s.P50), ns(s.P95), ns(s.P99), ns(s.Max), Num(s.Errors), Num(s.Timeouts), first, Num(len(s.Outliers))))
	}
	header := []string{"series"}
	align := []terminal.Align{terminal.Left}
	if rounds {
		header, align = append(header, "rounds"), append(align, terminal.Right)
	}
	header = append(header, "n", "p50", "p95", "p99", "max", "errors", "timeouts", "first", "outliers")
	align = append(align, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right)
	// On a narrow screen the latencies and the counts stack.
	terminal.StackedTable(w, st, header, rows, []int{len(header) - 4}, align...)
}

// ns prints nanoseconds as a duration with sensible precision.
func ns(v float64) string {
	switch {
	case v <= 0:
		return "—"
	case v < 1e3:
		return fmt.Sprintf("%.0f ns", v)
	case v < 1e6:
		return fmt.Sprintf("%.1f µs", v/1e3)
	case v < 1e9:
		if v < 1e8 {
			return fmt.Sprintf("%.2f ms", v/1e6)
		}
		return fmt.Sprintf("%.0f ms", v/1e6)
	}
	return fmt.Sprintf("%.2f s", v/1e9)
}

// NS is ns for other packages.
func NS(v float64) string { return ns(v) }

// Histograms writes a small text histogram per series.
func Histograms(w io.Writer, st terminal.Style, series []bench.Series) {
	for _, s := range series {
		if s.N < 2 {
			continue
		}
		edges, counts := bench.Histogram(floats(s.Samples), 8)
		peak := 0
		for _, c := range counts {
			peak = max(peak, c)
		}
		if st == terminal.Markdown {
			fmt.Fprintf(w, "%s (n=%s):\n\n```text\n", terminal.MD(s.Name), Num(s.N))
		} else {
			fmt.Fprintf(w, "%s (n=%s)\n", terminal.Escape(s.Name), Num(s.N))
		}
		for i, c := range counts {
			bar := strings.Repeat("█", (c*30+peak-1)/max(peak, 1))
			fmt.Fprintf(w, "  ≥ %10s │%-30s %s\n", ns(edges[i]), bar, Num(c))
		}
		if st == terminal.Markdown {
			fmt.Fprintln(w, "```")
		}
		fmt.Fprintln(w)
	}
}

func floats(s []int64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// VsTable writes B against A, series by series: the p50 ratio (of the
// p50s in the two tables), its interval, and the test over rounds.
func VsTable(w io.Writer, st terminal.Style, cs []bench.Comparison, a, b string) {
	var rows [][]string
	for _, c := range cs {
		verdict := fmt.Sprintf("%.2f× [%.2f, %.2f], p=%.2g", c.Ratio, c.Low, c.High, c.P)
		if !c.Significant {
			verdict = fmt.Sprintf("~ (no significant difference: %.2f× [%.2f, %.2f], p=%.2f)", c.Ratio, c.Low, c.High, c.P)
		}
		rows = append(rows, []string{terminal.StyledCell(st, c.Name), Num(c.Rounds), verdict})
	}
	fmt.Fprintf(w, "B/A: B = %s, A = %s\n", terminal.Plain(st, b), terminal.Plain(st, a))
	fmt.Fprintf(w, "(ratio of the p50s above, 95%% interval bootstrapping rounds; paired sign-flip test over the rounds' medians, significant at p < %g)\n", bench.Alpha)
	terminal.Table(w, st, []string{"series", "rounds", "B/A"}, rows, terminal.Left, terminal.Right, terminal.Left)
	least := 0
	for _, c := range cs {
		if least == 0 || c.Rounds < least {
			least = c.Rounds
		}
	}
	if len(cs) > 0 && bench.SignFlipFloor(least) >= bench.Alpha {
		fmt.Fprintf(w, "note: with %d rounds the test cannot go below p=%.2g: no difference can be significant; give --rounds 8 or more.\n",
			least, bench.SignFlipFloor(least))
	}
}

// Bench writes a bench run: the table of every series, the host
// deadlines, the warnings, and with --vs the comparison; markdown (the
// report's latency section) adds a histogram per series.
func Bench(w io.Writer, st terminal.Style, r *bench.Result) {
	a := r.A
	if st == terminal.Markdown {
		// The report names the target at its top; two lines of text
		// would run into one paragraph, so each is a list item.
		fmt.Fprintf(w, "- protocol %s · %s\n", terminal.MD(a.Protocol), a.Mode)
		fmt.Fprintf(w, "- client cost: %s p50 per call (the probe's client alone, against an in-process echo peer: no pipe, no server; a stdio call with one in flight is timed on the wire, from its write to the read of its answer, and this is outside it)\n\n", ns(r.Overhead.P50))
	} else {
		fmt.Fprintf(w, "%s · protocol %s · %s\n", terminal.Escape(a.Target), terminal.Escape(a.Protocol), a.Mode)
		fmt.Fprintf(w, "client cost: %s p50 per call (the probe's client alone, against an in-process echo peer: no pipe, no server; a stdio call with one in flight is timed on the wire, from its write to the read of its answer, and this is outside it)\n\n", ns(r.Overhead.P50))
	}
	all := a.All()
	BenchTable(w, st, all)
	note := func(format string, args ...any) {
		if st == terminal.Markdown {
			fmt.Fprint(w, "- ")
		}
		fmt.Fprintf(w, format+"\n", args...)
	}
	if st == terminal.Markdown {
		fmt.Fprintln(w)
	}
	for _, d := range r.Deadlines {
		verdict := "within it"
		if d.Exceeded {
			verdict = "over it: that host gives up on the slowest start"
		}
		note("%s gives up on initialize after %s: startup max %s is %s.", d.Host, ns(float64(d.Deadline)), ns(d.Max), verdict)
	}
	warnings := func(who string, all []bench.Series) {
		for _, s := range all {
			if s.Stopped > 0 {
				note("warning: %s%s.", who, terminal.StyledCell(st, bench.StoppedNote(s)))
			}
			if s.Cut {
				note("%s%s: cut short when the budget ran out; its figures are the calls made until then.", who, terminal.StyledCell(st, s.Name))
			}
			if s.FirstSlow {
				note("warning: %sthe first %s took %s, over 3× its p50 (%s) and over %.0f ms: a cold start a host will feel.", who, terminal.StyledCell(st, s.Name), ns(s.First), ns(s.P50), bench.ColdFloor/1e6)
			}
			if s.Timeouts > 0 && s.Stopped == 0 {
				note("warning: %s%s: %d call(s) timed out (not in the figures above).", who, terminal.StyledCell(st, s.Name), s.Timeouts)
			}
			if s.Errors > 0 {
				note("warning: %s%s.", who, terminal.StyledCell(st, bench.ErrorNote(s)))
			}
		}
	}
	warnings("", all)
	if a.List != nil {
		note("baseline: %s is timed in place of ping: %s.", bench.ListSeries, terminal.StyledCell(st, a.ListWhy))
	}
	if len(a.Skipped) > 0 {
		note("not called: %s", terminal.StyledCell(st, skippedNote(a.Skipped)))
	}
	if len(a.NotRun) > 0 {
		note("not run: the budget (--budget %s) ran out before %s.", bench.Short(r.Budget), terminal.StyledCell(st, strings.Join(a.NotRun, ", ")))
	}
	if b := r.B; b != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "B: %s · protocol %s · the same rounds\n\n", terminal.Plain(st, b.Target), terminal.Plain(st, b.Protocol))
		BenchTable(w, st, b.All())
		if st == terminal.Markdown {
			fmt.Fprintln(w)
		}
		warnings("B: ", b.All())
		fmt.Fprintln(w)
		VsTable(w, st, r.Compared, a.Target, b.Target)
	}
	if st == terminal.Markdown {
		fmt.Fprintln(w)
		Histograms(w, st, all)
	}
}

// skippedNote lists the tools not called grouped by why ("a, b (not
// annotated readOnlyHint)"), and says once what would have them timed.
func skippedNote(skipped []string) string {
	var reasons []string
	names := map[string][]string{}
	for _, s := range skipped {
		name, why := s, ""
		if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
			name, why = s[:i], s[i+2:len(s)-1]
		}
		if _, ok := names[why]; !ok {
			reasons = append(reasons, why)
		}
		names[why] = append(names[why], name)
	}
	var parts []string
	hint := ""
	for _, why := range reasons {
		p := strings.Join(names[why], ", ")
		if why != "" {
			p += " (" + why + ")"
		}
		if why == args.NotReadOnly {
			hint = "; name a tool with --call to time it"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ") + hint
}

// BenchJSON renders a bench run's section of the envelope (fields in the
// README; the target and its protocol version are the envelope's).
func BenchJSON(r *bench.Result) []byte {
	res := r.A
	o := &jsonout.Object{}
	o.Set("mode", res.Mode)
	o.Set("overhead_ns", r.Overhead.P50)
	o.Raw("overhead", statsJSON(bench.Series{Name: "client alone against an in-process echo peer, no pipe", Stats: r.Overhead, Rounds: 1}))
	var startup []byte
	var phases [][]byte
	for _, s := range res.Startup {
		j := statsJSON(s)
		phases = append(phases, j)
		if strings.Contains(s.Name, "handshake") {
			startup = j
		}
	}
	o.Raw("startup", startup)
	o.Raw("startup_phases", jsonout.RawArray(phases))
	if res.Ping != nil {
		o.Raw("ping", statsJSON(*res.Ping))
	} else {
		o.Raw("ping", nil)
	}
	switch {
	case res.Ping != nil:
		o.Raw("baseline", (&jsonout.Object{}).Set("method", "ping").Raw("why", nil).Bytes())
	case res.List != nil:
		o.Raw("baseline", (&jsonout.Object{}).Set("method", bench.ListSeries).Set("why", res.ListWhy).Bytes())
	default:
		o.Raw("baseline", nil)
	}
	if res.List != nil {
		o.Raw("tools_list", statsJSON(*res.List))
	} else {
		o.Raw("tools_list", nil)
	}
	var calls [][]byte
	for _, s := range res.Calls {
		calls = append(calls, statsJSON(s))
	}
	o.Raw("calls", jsonout.RawArray(calls))
	o.Set("skipped", nonNilStrings(res.Skipped))
	if r.Budget > 0 {
		o.Set("budget_ns", int64(r.Budget))
	} else {
		o.Raw("budget_ns", nil)
	}
	o.Set("budget_spent", r.BudgetSpent)
	o.Set("not_run", nonNilStrings(res.NotRun))
	deadlines := make([][]byte, 0, len(r.Deadlines))
	for _, d := range r.Deadlines {
		deadlines = append(deadlines, (&jsonout.Object{}).Set("host", d.Host).Set("deadline_ns", int64(d.Deadline)).
			Set("series", d.Series).Set("max_ns", int64(d.Max)).Set("exceeded", d.Exceeded).Bytes())
	}
	o.Raw("deadlines", jsonout.RawArray(deadlines))
	if vs := r.B; vs != nil {
		v := &jsonout.Object{}
		v.Set("target", vs.Target).Set("protocol_version", jsonout.NullIfEmpty(vs.Protocol)).Set("mode", vs.Mode)
		v.Set("test", "paired sign-flip permutation test on the rounds' log ratios of medians").Set("alpha", bench.Alpha)
		var b [][]byte
		for _, s := range vs.All() {
			b = append(b, statsJSON(s))
		}
		v.Raw("series", jsonout.RawArray(b))
		var cs [][]byte
		for _, c := range r.Compared {
			cs = append(cs, (&jsonout.Object{}).Set("name", c.Name).Set("ratio", c.Ratio).Set("ci_low", c.Low).Set("ci_high", c.High).
				Set("p", c.P).Set("significant", c.Significant).Set("rounds", c.Rounds).Bytes())
		}
		v.Raw("comparisons", jsonout.RawArray(cs))
		o.Raw("vs", v.Bytes())
	} else {
		o.Raw("vs", nil)
	}
	return o.Bytes()
}

func statsJSON(se bench.Series) []byte {
	s := se.Stats
	o := &jsonout.Object{}
	o.Set("name", se.Name)
	if se.Tool != "" {
		o.Set("tool", se.Tool)
		o.Raw("args", se.Args)
	}
	o.Set("rounds", se.Rounds).Set("n", s.N).Set("errors", s.Errors).Set("timeouts", s.Timeouts).Set("first_error", jsonout.NullIfEmpty(s.FirstError))
	for _, f := range []struct {
		k string
		v float64
	}{{"min_ns", s.Min}, {"mean_ns", s.Mean}, {"stddev_ns", s.Stddev}, {"p50_ns", s.P50}, {"p90_ns", s.P90},
		{"p95_ns", s.P95}, {"p99_ns", s.P99}, {"p999_ns", s.P999}, {"max_ns", s.Max}, {"first_ns", s.First}} {
		o.Set(f.k, int64(f.v))
	}
	o.Set("first_slow", s.FirstSlow).Set("first_timed_out", s.FirstTimedOut)
	o.Set("stopped_after", s.Stopped).Set("cut", se.Cut)
	if se.Timeout > 0 {
		o.Set("timeout_ns", int64(se.Timeout))
	}
	outl := s.Outliers
	if outl == nil {
		outl = []int{}
	}
	o.Set("outliers", outl)
	samples := s.Samples
	if samples == nil {
		samples = []int64{}
	}
	o.Set("samples_ns", samples)
	roundP50s := make([]int64, len(se.RoundP50s))
	for i, v := range se.RoundP50s {
		roundP50s[i] = int64(v)
	}
	o.Set("round_p50s_ns", roundP50s)
	return o.Bytes()
}
