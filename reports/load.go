package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/load"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// LoadJSON is the load section of --json: the result as it is, every
// figure with its samples, which load merge reads back.
func LoadJSON(r *load.Result) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return b
}

// Load writes a load run (or merged shards) as text.
func Load(w io.Writer, st terminal.Style, r *load.Result) {
	fmt.Fprintf(w, "load: %s, %s, %s sessions", terminal.Escape(r.Target), r.Transport, Num(r.Sessions))
	if len(r.Shards) == 1 && r.ShardsOf > 1 {
		fmt.Fprintf(w, ", shard %d/%d", r.Shards[0].I, r.ShardsOf)
	} else if r.ShardsOf > 1 {
		fmt.Fprintf(w, ", %d shards merged", len(r.Shards))
	}
	fmt.Fprintln(w)
	if r.Protocol != "" {
		fmt.Fprintf(w, "protocol: %s\n", terminal.Escape(r.Protocol))
	}
	var tools []string
	for _, c := range r.Calls {
		tools = append(tools, terminal.Escape(c.Tool)+" "+terminal.Escape(string(c.Args)))
	}
	if len(tools) > 0 {
		fmt.Fprintf(w, "calls: %s\n", strings.Join(tools, ", "))
	} else {
		fmt.Fprintln(w, "calls: none to make (no tool annotated read-only and none named with --call): tools/list is the request")
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "not called: %s; name a tool with --call to load it\n", terminal.Escape(strings.Join(r.Skipped, ", ")))
	}
	fmt.Fprintln(w, "latency is timed from when each request was due on the schedule (open loop); service from when it was sent")
	fmt.Fprintln(w)
	var rows [][]string
	row := func(label string, s *load.Series) []string {
		return []string{terminal.StyledCell(st, label), Num(s.Requests), Num(s.OK), Num(s.Errors), Num(s.Timeouts), Num(s.Unsent),
			ns(s.P50Ns), ns(s.P90Ns), ns(s.P99Ns), ns(s.MaxNs), ns(s.ServiceP50), ns(s.ServiceP99)}
	}
	for _, p := range r.Phases {
		rows = append(rows, row(p.Name, p))
	}
	for _, stp := range r.Steps {
		rate := fmt.Sprintf("%g/s", stp.Rate)
		rows = append(rows, row(rate+" all", stp.All))
		if len(stp.Methods) > 1 {
			for _, m := range stp.Methods {
				rows = append(rows, row(rate+" "+m.Name, m))
			}
		} else if len(stp.Methods) == 1 {
			rows[len(rows)-1][0] = terminal.StyledCell(st, rate+" "+stp.Methods[0].Name)
		}
	}
	right := []terminal.Align{terminal.Left}
	for i := 0; i < 11; i++ {
		right = append(right, terminal.Right)
	}
	// On a narrow screen the counts and the latencies stack (the 6th
	// column, p50, starts the latencies).
	terminal.StackedTable(w, st, []string{"series", "requests", "ok", "errors", "timeouts", "unsent", "p50", "p90", "p99", "max", "service p50", "service p99"}, rows, []int{6}, right...)
	for _, stp := range r.Steps {
		if stp.All.FirstError != "" {
			fmt.Fprintf(w, "%g/s: first error: %s\n", stp.Rate, terminal.Escape(stp.All.FirstError))
		}
	}
	loadKnee(w, r)
	if len(r.NotRun) > 0 {
		var rs []string
		for _, x := range r.NotRun {
			rs = append(rs, fmt.Sprintf("%g/s", x))
		}
		fmt.Fprintf(w, "not run: %s\n", strings.Join(rs, ", "))
	}
	if res := r.Resources; res != nil {
		cpu := ns(float64(res.CPUNs))
		if res.CPUNs == 0 {
			cpu = "under 10 ms (the unit /proc counts in)"
		}
		fmt.Fprintf(w, "server resources (%s, %s): CPU %s, peak RSS %s per process at most, %s added over all\n",
			res.Source, processes(res.Processes), cpu, mib(res.RSSPeakBytes), mib(res.RSSPeakSumBytes))
	}
	if g := r.Generator; g != nil && g.Requests > 0 {
		// Beside the server's: a generator that costs as much as the
		// server it loads measures itself as much as the server.
		server := ""
		if res := r.Resources; res != nil && res.CPUNs > 0 {
			server = fmt.Sprintf("; the server's CPU over the whole run, sessions opened included, is %s a request", ns(float64(res.CPUNs)/float64(g.Requests)))
		}
		fmt.Fprintf(w, "load generator (mcpprobe itself, over the steps): CPU %s, %s a request for %s requests sent%s\n",
			ns(float64(g.CPUNs)), ns(g.PerRequestNs()), Num(g.Requests), server)
	}
	if rc := r.ReplicaCheck; rc != nil {
		loadReplicas(w, rc)
	}
	if r.Interrupted {
		fmt.Fprintln(w, "interrupted: these are the requests made until then")
	}
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func loadKnee(w io.Writer, r *load.Result) {
	bound := fmt.Sprintf("--max-errors %g", r.Bound.MaxErrors)
	if r.Bound.MaxP99Ns > 0 {
		bound = "--max-p99 " + ns(float64(r.Bound.MaxP99Ns)) + ", " + bound
	}
	k := r.Knee
	if len(r.Steps) == 1 && len(r.NotRun) == 0 {
		// One rate: no ramp, so no knee to speak of; only the bound.
		if k.KneeRate != nil {
			fmt.Fprintf(w, "bound (%s): broken at %g/s: %s\n", bound, *k.KneeRate, k.Why)
		} else {
			fmt.Fprintf(w, "bound (%s): kept at %g/s\n", bound, r.Steps[0].Rate)
		}
		return
	}
	switch {
	case k.KneeRate == nil && len(r.Steps) > 0:
		fmt.Fprintf(w, "knee: none found: every rate kept the bound (%s); the last good rate is %g/s\n", bound, *k.LastGoodRate)
	case k.KneeRate != nil && k.LastGoodRate != nil:
		fmt.Fprintf(w, "knee: %g/s broke the bound: %s; the last good rate is %g/s\n", *k.KneeRate, k.Why, *k.LastGoodRate)
	case k.KneeRate != nil:
		fmt.Fprintf(w, "knee: the first rate, %g/s, broke the bound: %s; no rate kept it\n", *k.KneeRate, k.Why)
	}
}

func loadReplicas(w io.Writer, rc *load.ReplicaCheck) {
	fmt.Fprintf(w, "replicas: %s\n", terminal.Escape(strings.Join(rc.Replicas, ", ")))
	if rc.Dependent == 0 {
		fmt.Fprintf(w, "replica check: no answer depended on the replica (%d requests compared; normalised: %s)\n", len(rc.Requests), rc.Normalisation)
	}
	for _, ra := range rc.Requests {
		switch {
		case !ra.NormalisedSame:
			fmt.Fprintf(w, "replica check: %s: the answer depends on the replica (%s)\n", terminal.Escape(ra.Method), rc.Normalisation)
			for i, ex := range ra.Examples {
				fmt.Fprintf(w, "  %s: %s\n", terminal.Escape(rc.Replicas[i]), terminal.Escape(ex))
			}
		case !ra.RawSame:
			fmt.Fprintf(w, "replica check: %s: the same once normalised, but the bytes differ by replica\n", terminal.Escape(ra.Method))
		}
	}
}

func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return Num(n) + " processes"
}
