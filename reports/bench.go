package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/bench"
)

// BenchTable writes one row per series.
func BenchTable(w io.Writer, st Style, series []bench.Series) {
	var rows [][]string
	for _, s := range series {
		first := "—"
		if s.First > 0 {
			first = ns(s.First)
			if s.FirstSlow {
				first += " (slow)"
			}
		}
		rows = append(rows, []string{cell(st, s.Name), Num(s.N), ns(s.P50), ns(s.P95), ns(s.P99), ns(s.Max), Num(s.Errors), Num(s.Timeouts), first, Num(len(s.Outliers))})
	}
	Table(w, st, []string{"series", "n", "p50", "p95", "p99", "max", "errors", "timeouts", "first", "outliers"}, rows,
		Left, Right, Right, Right, Right, Right, Right, Right, Right, Right)
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
func Histograms(w io.Writer, st Style, series []bench.Series) {
	for _, s := range series {
		if s.N < 2 {
			continue
		}
		edges, counts := bench.Histogram(floats(s.Samples), 8)
		peak := 0
		for _, c := range counts {
			peak = max(peak, c)
		}
		if st == Markdown {
			fmt.Fprintf(w, "%s (n=%s):\n\n```text\n", MD(s.Name), Num(s.N))
		} else {
			fmt.Fprintf(w, "%s (n=%s)\n", Escape(s.Name), Num(s.N))
		}
		for i, c := range counts {
			bar := strings.Repeat("█", (c*30+peak-1)/max(peak, 1))
			fmt.Fprintf(w, "  ≥ %10s │%-30s %s\n", ns(edges[i]), bar, Num(c))
		}
		if st == Markdown {
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

// VsTable writes B against A, series by series.
func VsTable(w io.Writer, st Style, cs []bench.Comparison, a, b string) {
	var rows [][]string
	for _, c := range cs {
		verdict := fmt.Sprintf("%.2f× [%.2f, %.2f], p=%.2g", c.Ratio, c.Low, c.High, c.P)
		if !c.Significant {
			verdict = fmt.Sprintf("~ (no significant difference, p=%.2f)", c.P)
		}
		rows = append(rows, []string{cell(st, c.Name), verdict})
	}
	fmt.Fprintf(w, "B/A: B = %s, A = %s (median ratio, 95%% bootstrap CI, Mann-Whitney U)\n", plain(st, b), plain(st, a))
	Table(w, st, []string{"series", "B/A"}, rows)
}

// Bench writes a bench run: the table of every series, the host
// deadlines, the warnings, and with --vs the comparison; markdown (the
// report's latency section) adds a histogram per series.
func Bench(w io.Writer, st Style, r *bench.Result) {
	a := r.A
	fmt.Fprintf(w, "%s · protocol %s · %s\n", plain(st, a.Target), plain(st, a.Protocol), a.Mode)
	fmt.Fprintf(w, "probe overhead: %s p50 per call (client round trip against an in-process echo peer: the floor under every figure)\n\n", ns(r.Overhead.P50))
	all := a.All()
	BenchTable(w, st, all)
	note := func(format string, args ...any) {
		if st == Markdown {
			fmt.Fprint(w, "- ")
		}
		fmt.Fprintf(w, format+"\n", args...)
	}
	if st == Markdown {
		fmt.Fprintln(w)
	}
	for _, d := range r.Deadlines {
		verdict := "within it"
		if d.Exceeded {
			verdict = "over it: that host gives up on the slowest start"
		}
		note("%s gives up on initialize after %s: startup max %s is %s.", d.Host, ns(float64(d.Deadline)), ns(d.Max), verdict)
	}
	for _, s := range all {
		if s.FirstSlow {
			note("warning: the first %s took %s, over 3× its p50 (%s): a cold start a host will feel.", cell(st, s.Name), ns(s.First), ns(s.P50))
		}
		if s.Timeouts > 0 {
			note("warning: %s: %d call(s) timed out (not in the figures above).", cell(st, s.Name), s.Timeouts)
		}
	}
	if len(a.Skipped) > 0 {
		note("not called: %s", cell(st, strings.Join(a.Skipped, "; ")))
	}
	if r.B != nil {
		fmt.Fprintln(w)
		VsTable(w, st, r.Compared, a.Target, r.B.Target)
	}
	if st == Markdown {
		fmt.Fprintln(w)
		Histograms(w, st, all)
	}
}

// BenchJSON renders a bench run's section of the envelope (fields in the
// README; the target and its protocol version are the envelope's).
func BenchJSON(r *bench.Result) []byte {
	res := r.A
	o := &Object{}
	o.Set("mode", res.Mode)
	o.Set("overhead_ns", r.Overhead.P50)
	o.Raw("overhead", statsJSON("client round trip against an in-process echo peer", "", nil, r.Overhead))
	var startup []byte
	var phases [][]byte
	for _, s := range res.Startup {
		j := statsJSON(s.Name, "", nil, s.Stats)
		phases = append(phases, j)
		if strings.Contains(s.Name, "handshake") {
			startup = j
		}
	}
	o.Raw("startup", startup)
	o.Raw("startup_phases", RawArray(phases))
	if res.Ping != nil {
		o.Raw("ping", statsJSON(res.Ping.Name, "", nil, res.Ping.Stats))
	} else {
		o.Raw("ping", nil)
	}
	var calls [][]byte
	for _, s := range res.Calls {
		calls = append(calls, statsJSON(s.Name, s.Tool, s.Args, s.Stats))
	}
	o.Raw("calls", RawArray(calls))
	o.Set("skipped", nonNilStrings(res.Skipped))
	deadlines := make([][]byte, 0, len(r.Deadlines))
	for _, d := range r.Deadlines {
		deadlines = append(deadlines, (&Object{}).Set("host", d.Host).Set("deadline_ns", int64(d.Deadline)).
			Set("series", d.Series).Set("max_ns", int64(d.Max)).Set("exceeded", d.Exceeded).Bytes())
	}
	o.Raw("deadlines", RawArray(deadlines))
	if vs := r.B; vs != nil {
		v := &Object{}
		v.Set("target", vs.Target).Set("protocol_version", nullIfEmpty(vs.Protocol)).Set("mode", vs.Mode)
		var b [][]byte
		for _, s := range append(append([]bench.Series(nil), vs.Startup...), vs.Calls...) {
			b = append(b, statsJSON(s.Name, s.Tool, s.Args, s.Stats))
		}
		v.Raw("series", RawArray(b))
		var cs [][]byte
		for _, c := range r.Compared {
			cs = append(cs, (&Object{}).Set("name", c.Name).Set("ratio", c.Ratio).Set("ci_low", c.Low).Set("ci_high", c.High).
				Set("p", c.P).Set("significant", c.Significant).Bytes())
		}
		v.Raw("comparisons", RawArray(cs))
		o.Raw("vs", v.Bytes())
	} else {
		o.Raw("vs", nil)
	}
	return o.Bytes()
}

func statsJSON(name, tool string, args []byte, s bench.Stats) []byte {
	o := &Object{}
	o.Set("name", name)
	if tool != "" {
		o.Set("tool", tool)
		o.Raw("args", args)
	}
	o.Set("n", s.N).Set("errors", s.Errors).Set("timeouts", s.Timeouts)
	for _, f := range []struct {
		k string
		v float64
	}{{"min_ns", s.Min}, {"mean_ns", s.Mean}, {"stddev_ns", s.Stddev}, {"p50_ns", s.P50}, {"p90_ns", s.P90},
		{"p95_ns", s.P95}, {"p99_ns", s.P99}, {"p999_ns", s.P999}, {"max_ns", s.Max}, {"first_ns", s.First}} {
		o.Set(f.k, int64(f.v))
	}
	o.Set("first_slow", s.FirstSlow)
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
	return o.Bytes()
}
