package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"
)

func benchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "call", Usage: "`TOOL` to time (repeatable); default every tool annotated read-only"},
		&cli.StringFlag{Name: "args", Usage: "arguments `JSON` for --call (default: minimal valid arguments from its schema)"},
		&cli.IntFlag{Name: "n", Value: 100, Usage: "measured calls per series"},
		&cli.IntFlag{Name: "warmup", Value: 10, Usage: "calls per series before measuring"},
		&cli.IntFlag{Name: "startup", Value: 5, Usage: "fresh processes for the startup series (0: none)"},
		&cli.IntFlag{Name: "concurrency", Value: 1, Usage: "calls in flight (closed loop)"},
		&cli.StringFlag{Name: "rate", Usage: "`R/s`: an open loop sending R calls per second, each timed from when it was due"},
		&cli.DurationFlag{Name: "duration", Value: 10 * time.Second, Usage: "length of an open-loop run"},
		&cli.StringFlag{Name: "vs", Usage: "a second `TARGET` (a command without spaces in its path, words split on spaces, or a URL), measured interleaved with the first"},
	}
}

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Before:    beforeNoGates,
		Usage:     "how fast the server starts and answers, with the probe's own cost shown",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME",
		Flags:     benchFlags(),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			b, err := runBench(ctx, cmd)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if cmd.Bool("json") {
				out.Write(reports.BenchJSON(b.res, b.overhead, b.vs, b.cmp))
			} else {
				writeBench(&out, reports.Terminal, b)
			}
			return write(cmd, cmd.Root().Writer, b.redact, out.Bytes())
		},
	}
}

type benchRun struct {
	res      bench.Result
	vs       *bench.Result
	cmp      []bench.Comparison
	overhead bench.Stats
	hosts    []budget.Host
	redact   *transport.Redactor
}

func writeBench(w io.Writer, st reports.Style, b *benchRun) {
	fmt.Fprintf(w, "%s · protocol %s · %s\n", reports.Escape(b.res.Target), reports.Escape(b.res.Protocol), b.res.Mode)
	fmt.Fprintf(w, "probe overhead: %s p50 per call (client round trip against an in-process echo peer: the floor under every figure)\n\n", reports.NS(b.overhead.P50))
	all := append(append([]bench.Series(nil), b.res.Startup...), b.res.Calls...)
	if b.res.Ping != nil {
		all = append(all, *b.res.Ping)
	}
	reports.BenchTable(w, st, all)
	note := func(format string, args ...any) {
		if st == reports.Markdown {
			fmt.Fprint(w, "- ")
		}
		fmt.Fprintf(w, format+"\n", args...)
	}
	if st == reports.Markdown {
		fmt.Fprintln(w)
	}
	for _, h := range b.hosts {
		if h.InitializeDeadlineMs > 0 {
			for _, s := range b.res.Startup {
				if strings.Contains(s.Name, "handshake") {
					verdict := "within it"
					if s.Max > float64(h.InitializeDeadlineMs)*1e6 {
						verdict = "the slowest start exceeds it"
					}
					note("%s gives up on initialize after %s: startup max %s is %s.", h.Name, reports.NS(float64(h.InitializeDeadlineMs)*1e6), reports.NS(s.Max), verdict)
				}
			}
		}
	}
	for _, s := range all {
		if s.FirstSlow {
			note("warning: the first %s took %s, over 3× its p50 (%s): a cold start a host will feel.", reports.Cell(s.Name), reports.NS(s.First), reports.NS(s.P50))
		}
		if s.Timeouts > 0 {
			note("warning: %s: %d call(s) timed out (not in the figures above).", reports.Cell(s.Name), s.Timeouts)
		}
	}
	if len(b.res.Skipped) > 0 {
		note("not called: %s", reports.Cell(strings.Join(b.res.Skipped, "; ")))
	}
	if b.vs != nil {
		fmt.Fprintln(w)
		reports.VsTable(w, st, b.cmp, b.res.Target, b.vs.Target)
	}
	if st == reports.Markdown {
		fmt.Fprintln(w)
		reports.Histograms(w, st, all)
	}
}

func parseRate(s string) (float64, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "/s")
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || r <= 0 || r > 1e6 {
		return 0, fmt.Errorf("--rate %q: want calls per second, up to 1000000, e.g. 200/s", s)
	}
	return r, nil
}

func benchTarget(cmd *cli.Command, t launch.Target) bench.Target {
	return bench.Target{Target: t, Launch: launchOptions(cmd)}
}

func runBench(ctx context.Context, cmd *cli.Command) (*benchRun, error) {
	t, err := resolveTarget(cmd, targetArgs(ctx, cmd))
	if err != nil {
		return nil, err
	}
	o := bench.Options{
		Startup: int(cmd.Int("startup")), N: int(cmd.Int("n")), Warmup: int(cmd.Int("warmup")),
		Concurrency: int(cmd.Int("concurrency")), Duration: cmd.Duration("duration"), Timeout: cmd.Duration("timeout"),
		AutoCalls: !cmd.IsSet("call"),
		Probe:     probeOptions(cmd),
	}
	if o.N < 0 || o.Warmup < 0 || o.Startup < 0 || o.Concurrency < 1 {
		return nil, usageErr("-n, --warmup and --startup must be 0 or more, --concurrency 1 or more")
	}
	if r := cmd.String("rate"); r != "" {
		if o.Rate, err = parseRate(r); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	if o.Calls, err = callsFromFlags(cmd); err != nil {
		return nil, err
	}
	hosts := budget.Known()
	b := &benchRun{redact: transport.NewRedactor(t.Secrets), hosts: hosts}
	b.overhead, _ = bench.Overhead(ctx, 2000)
	var tb *launch.Target
	if vs := cmd.String("vs"); vs != "" {
		t2, err := resolveTarget(cmd, strings.Fields(vs))
		if err != nil {
			return nil, err
		}
		tb = &t2
		b.redact = transport.NewRedactor(append(t.Secrets, t2.Secrets...))
	}
	prog := newProgress(cmd)
	defer prog.done()
	ta := benchTarget(cmd, t)
	res, err := benchOne(ctx, ta, o, prog)
	if err != nil {
		return nil, err
	}
	b.res = *res
	if tb != nil {
		tgtB := benchTarget(cmd, *tb)
		resB, cmp, err := benchVs(ctx, ta, tgtB, o, res, prog)
		if err != nil {
			return nil, err
		}
		b.vs, b.cmp = resB, cmp
	}
	return b, nil
}

// benchOne runs the startup series, then every call series on one
// long-lived session.
func benchOne(ctx context.Context, t bench.Target, o bench.Options, prog *progress) (*bench.Result, error) {
	res := &bench.Result{Target: t.Name(), Mode: modeName(o)}
	prog.add(o.Startup)
	startup, err := bench.Startup(ctx, t, o, prog.step)
	if err != nil {
		return nil, cannotProbe(err, nil)
	}
	res.Startup = startup
	srv, err := t.Start(ctx)
	if err != nil {
		return nil, cannotProbe(err, nil)
	}
	defer srv.Stop()
	cl, err := probe.Connect(ctx, srv.Conn(), o.Probe)
	if err != nil {
		return nil, cannotProbe(srv.Explain(err), nil)
	}
	res.Protocol = cl.Capture.ProtocolVersion
	cl.ListTools(ctx)
	calls, skipped, err := bench.Plan(cl.Capture, o)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	res.Skipped = skipped
	if o.N == 0 && o.Rate == 0 {
		return res, nil // startup only
	}
	if !cl.Modern() && o.Rate == 0 {
		prog.add(o.N)
		s := bench.Measure(ctx, o, bench.PingFunc(ctx, cl, o.Timeout), prog.step)
		res.Ping = &bench.Series{Name: "ping", Stats: s}
	}
	for _, c := range calls {
		prog.add(o.N)
		s := bench.Measure(ctx, o, bench.CallFunc(ctx, cl, c, o.Timeout), prog.step)
		res.Calls = append(res.Calls, bench.Series{Name: "call " + c.Tool, Tool: c.Tool, Args: c.Args, Stats: s})
	}
	return res, nil
}

// benchVs measures B interleaved with A: startup A B A B …, then each
// call series A B A B … on two live sessions.
func benchVs(ctx context.Context, ta, tb bench.Target, o bench.Options, resA *bench.Result, prog *progress) (*bench.Result, []bench.Comparison, error) {
	resB := &bench.Result{Target: tb.Name(), Mode: "closed, interleaved with A"}
	one := o
	one.Startup = 1
	var sa, sb [][]int64
	var names []string
	prog.add(2 * o.Startup)
	for i := 0; i < o.Startup; i++ {
		a, err := bench.Startup(ctx, ta, one, prog.step)
		if err != nil {
			return nil, nil, cannotProbe(err, nil)
		}
		b, err := bench.Startup(ctx, tb, one, prog.step)
		if err != nil {
			return nil, nil, cannotProbe(vsError(err), nil)
		}
		for k := range a {
			if k >= len(b) {
				break
			}
			if i == 0 {
				names = append(names, a[k].Name)
				sa, sb = append(sa, nil), append(sb, nil)
			}
			if k < len(sa) {
				sa[k] = append(sa[k], a[k].Samples...)
				sb[k] = append(sb[k], b[k].Samples...)
			}
		}
	}
	var cmp []bench.Comparison
	resA.Startup = nil
	for k, n := range names {
		a, b := bench.Summarize(sa[k]), bench.Summarize(sb[k])
		resA.Startup = append(resA.Startup, bench.Series{Name: n, Stats: a})
		resB.Startup = append(resB.Startup, bench.Series{Name: n, Stats: b})
		cmp = append(cmp, bench.Compare(n, a, b))
	}
	srvA, err := ta.Start(ctx)
	if err != nil {
		return nil, nil, cannotProbe(err, nil)
	}
	defer srvA.Stop()
	srvB, err := tb.Start(ctx)
	if err != nil {
		return nil, nil, cannotProbe(vsError(err), nil)
	}
	defer srvB.Stop()
	clA, errA := probe.Connect(ctx, srvA.Conn(), o.Probe)
	clB, errB := probe.Connect(ctx, srvB.Conn(), o.Probe)
	if errA != nil {
		return nil, nil, cannotProbe(srvA.Explain(errA), nil)
	}
	if errB != nil {
		return nil, nil, cannotProbe(vsError(srvB.Explain(errB)), nil)
	}
	clB.ListTools(ctx)
	have := map[string]bool{}
	for _, raw := range clB.Capture.Tools.Items {
		have[gjsonName(raw)] = true
	}
	calls := callsOf(resA)
	resA.Calls = nil
	for _, c := range calls {
		if !have[c.Tool] {
			continue
		}
		prog.add(o.N)
		o.Progress = func(int, int) { prog.step() }
		a, b := bench.Interleaved(ctx, o, bench.CallFunc(ctx, clA, c, o.Timeout), bench.CallFunc(ctx, clB, c, o.Timeout))
		name := "call " + c.Tool
		resA.Calls = append(resA.Calls, bench.Series{Name: name, Tool: c.Tool, Args: c.Args, Stats: a})
		resB.Calls = append(resB.Calls, bench.Series{Name: name, Tool: c.Tool, Args: c.Args, Stats: b})
		cmp = append(cmp, bench.Compare(name, a, b))
	}
	resA.Mode = "closed, interleaved with B"
	return resB, cmp, nil
}

// vsError names the --vs target as the one that failed.
func vsError(err error) error {
	var fe *probe.FatalError
	if !errors.As(err, &fe) {
		return fmt.Errorf("--vs: %w", err)
	}
	cp := *fe
	cp.What = "--vs: " + fe.What
	return &cp
}

func callsOf(r *bench.Result) []bench.Call {
	var out []bench.Call
	for _, s := range r.Calls {
		out = append(out, bench.Call{Tool: s.Tool, Args: s.Args})
	}
	return out
}

func modeName(o bench.Options) string {
	switch {
	case o.Rate > 0:
		return fmt.Sprintf("open loop at %g/s", o.Rate)
	case o.Concurrency > 1:
		return fmt.Sprintf("closed loop, %d in flight", o.Concurrency)
	}
	return "closed loop, one call in flight"
}

// progress draws a bar on stderr when it is a terminal.
type progress struct {
	mu           sync.Mutex
	w            io.Writer
	on           bool
	count, total int
	last         time.Time
}

func newProgress(cmd *cli.Command) *progress {
	w := cmd.Root().ErrWriter
	return &progress{w: w, on: !cmd.Bool("quiet") && isTerminal(w)}
}

func (p *progress) add(n int) {
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	width := 30
	filled := width * p.count / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("=", min(filled, width)), strings.Repeat(" ", max(width-filled, 0)), p.count, p.total)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
}

func gjsonName(raw []byte) string { return gjson.GetBytes(raw, "name").String() }

func jsonObject(s string) bool { return gjson.Valid(s) && gjson.Parse(s).IsObject() }

// benchForReport runs a short bench of the report's target.
func benchForReport(ctx context.Context, cmd *cli.Command, s *session) (*benchRun, error) {
	o := bench.Options{Startup: 5, N: 100, Warmup: 10, Concurrency: 1, AutoCalls: true, Timeout: cmd.Duration("timeout"),
		Probe: probeOptions(cmd)}
	b := &benchRun{redact: s.redact, hosts: budget.Known()}
	b.overhead, _ = bench.Overhead(ctx, 2000)
	prog := newProgress(cmd)
	defer prog.done()
	res, err := benchOne(ctx, benchTarget(cmd, s.target), o, prog)
	if err != nil {
		return nil, err
	}
	b.res = *res
	return b, nil
}
