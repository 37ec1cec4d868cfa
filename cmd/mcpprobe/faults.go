package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
)

// faultFlags are shared by faults and proxy: each fault kind's flags, as
// the registry lists them, then the seed.
func faultFlags() []cli.Flag {
	var flags []cli.Flag
	for _, k := range faults.Kinds() {
		for _, f := range k.Flags {
			switch f.Type {
			case faults.Switch:
				flags = append(flags, &cli.BoolFlag{Name: f.Name, Usage: f.Usage})
			case faults.Count:
				n, _ := strconv.Atoi(f.Default)
				flags = append(flags, &cli.IntFlag{Name: f.Name, Value: n, Usage: f.Usage})
			case faults.Duration:
				d, _ := time.ParseDuration(f.Default)
				flags = append(flags, &cli.DurationFlag{Name: f.Name, Value: d, Usage: f.Usage})
			default:
				flags = append(flags, &cli.StringFlag{Name: f.Name, Value: f.Default, Usage: f.Usage})
			}
		}
	}
	return append(flags, &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed for p: selectors and --split"})
}

// planFromFlags reads the fault flags through the registry's parser;
// where names the front end that will act the plan, which refuses a fault
// it cannot act rather than ignore it.
func planFromFlags(cmd *cli.Command, where faults.Front) (faults.Plan, error) {
	p, err := faults.ParsePlan(func(name string) string {
		if v := cmd.Value(name); v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}, cmd.Uint64("seed"))
	if err == nil {
		err = p.Check(where)
	}
	if err != nil {
		return p, usageErr("%v", err)
	}
	return p, nil
}

func faultsCommand() *cli.Command {
	flags := append(faultFlags(),
		&cli.StringFlag{Name: "client", Value: "spec", Usage: "`POLICY` for stray stdout text: spec, strict (Go SDK), lenient (mcp-go), ts (TypeScript SDK), or all"},
		&cli.BoolFlag{Name: "restart", Usage: "respawn the server when the connection closes and retry the failed call once"},
		&cli.StringSliceFlag{Name: "call", Usage: "`TOOL` to call (repeatable; round robin); default the read-only tools"},
		&cli.StringFlag{Name: "args", Usage: "arguments `JSON` for --call (default: minimal valid arguments)"},
		&cli.IntFlag{Name: "calls", Value: 10, Usage: "how many calls to make"},
	)
	return &cli.Command{
		Name:      "faults",
		Before:    beforeNoGates,
		Usage:     "inject faults between a client and the server, and show what the client sees",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags:     flags,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			fr, err := runFaults(ctx, cmd)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if cmd.Bool("json") {
				out.Write(reports.FaultsJSON(fr.results, fr.shutdown))
			} else {
				writeFaults(&out, reports.Terminal, fr)
			}
			return write(cmd, cmd.Root().Writer, fr.redact, out.Bytes())
		},
	}
}

type faultsRun struct {
	results  []faults.Result
	shutdown *faults.Shutdown
	grace    time.Duration
	redact   *transport.Redactor
}

func runFaults(ctx context.Context, cmd *cli.Command) (*faultsRun, error) {
	t, err := resolveTarget(cmd, targetArgs(ctx, cmd))
	if err != nil {
		return nil, err
	}
	plan, err := planFromFlags(cmd, faults.InShim)
	if err != nil {
		return nil, err
	}
	var policies []faults.Policy
	if c := cmd.String("client"); c == "all" {
		policies = faults.Policies
	} else if p, ok := faults.ParsePolicy(c); ok {
		policies = []faults.Policy{p}
	} else {
		return nil, usageErr("--client %q: want spec, strict, lenient, ts or all", c)
	}
	po := probeOptions(cmd)
	start := starter(cmd, t)
	calls, err := faultCalls(ctx, cmd, t, po)
	if err != nil {
		return nil, err
	}
	fr := &faultsRun{redact: transport.NewRedactor(t.Secrets), grace: cmd.Duration("grace")}
	for _, pol := range policies {
		r, err := faults.Drive(ctx, start, faults.Options{Plan: plan, Policy: pol, Calls: calls, N: int(cmd.Int("calls")),
			Timeout: cmd.Duration("timeout"), Restart: cmd.Bool("restart"), Probe: po})
		if err != nil && len(r.Calls) == 0 && !plan.ActsAtStart() {
			return nil, &exitError{code: exitNoTarget, msg: err.Error()}
		}
		fr.results = append(fr.results, r)
	}
	if t.Kind == "stdio" {
		sd, err := faults.MeasureShutdown(ctx, func() (*launch.Server, error) {
			return launch.Start(ctx, t, launchOptions(cmd))
		}, po, fr.grace)
		if err == nil {
			fr.shutdown = &sd
		}
	}
	return fr, nil
}

// starter starts the target afresh; a crash kills a process group, or
// drops an HTTP connection.
func starter(cmd *cli.Command, t launch.Target) faults.Starter {
	lo := launchOptions(cmd)
	return func() (faults.Server, error) {
		srv, err := launch.Start(context.Background(), t, lo)
		if err != nil {
			return faults.Server{}, err
		}
		return faults.Server{Conn: srv.Conn(), Kill: srv.Kill, Stop: func() { srv.Stop() }}, nil
	}
}

// faultCalls picks the calls: those named, or the read-only tools with
// minimal arguments, found by one clean probe.
func faultCalls(ctx context.Context, cmd *cli.Command, t launch.Target, po probe.Options) ([]faults.Call, error) {
	srv, err := launch.Start(ctx, t, launchOptions(cmd))
	if err != nil {
		return nil, cannotProbe(err, nil)
	}
	defer srv.Stop()
	cl, err := probe.Connect(ctx, srv.Conn(), po)
	if err != nil {
		return nil, cannotProbe(srv.Explain(err), nil)
	}
	cl.ListTools(ctx)
	o := bench.Options{AutoCalls: !cmd.IsSet("call")}
	if o.Calls, err = callsFromFlags(cmd); err != nil {
		return nil, err
	}
	planned, _, err := bench.Plan(cl.Capture, o)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if len(planned) == 0 {
		return nil, usageErr("no tool to call: the server annotates none read-only; name one with --call")
	}
	var calls []faults.Call
	for _, c := range planned {
		calls = append(calls, faults.Call{Tool: c.Tool, Args: c.Args})
	}
	return calls, nil
}

func writeFaults(w io.Writer, st reports.Style, fr *faultsRun) {
	if len(fr.results) == 1 {
		r := fr.results[0]
		fmt.Fprintf(w, "faults: %s · client policy: %s\n\n", r.Plan, r.Policy)
		reports.FaultTable(w, st, r)
		fmt.Fprintln(w)
		reports.FaultSummary(w, st, r)
	} else {
		fmt.Fprintf(w, "faults: %s · what each client would see\n\n", fr.results[0].Plan)
		reports.ClientsTable(w, st, fr.results)
		fmt.Fprintln(w)
		for _, r := range fr.results {
			fmt.Fprintf(w, "%s: ", r.Policy)
			reports.FaultSummary(w, st, r)
		}
	}
	if sd := fr.shutdown; sd != nil {
		fmt.Fprintln(w)
		reports.ShutdownLines(w, st, *sd, fr.grace)
	}
}

// faultScenarios are the report's fault section: a crash, with and
// without a restart, a reply slower than the client waits, and stray
// stdout text under each client policy.
func faultScenarios(ctx context.Context, cmd *cli.Command, s *session) ([][]string, error) {
	po := probeOptions(cmd)
	start := starter(cmd, s.target)
	calls, err := faultCalls(ctx, cmd, s.target, po)
	if err != nil {
		return nil, err
	}
	plan := func(v faults.Values) faults.Plan {
		p, err := faults.ParsePlan(v.Get, 1)
		if err != nil {
			panic(err) // the scenarios below are fixed
		}
		return p
	}
	type scenario struct {
		name    string
		plan    faults.Plan
		restart bool
		policy  faults.Policy
		timeout time.Duration
	}
	scs := []scenario{
		{"crash during call 3", plan(faults.Values{"crash-at": "3"}), false, faults.Spec, 5 * time.Second},
		{"crash during call 3, client restarts", plan(faults.Values{"crash-at": "3"}), true, faults.Spec, 5 * time.Second},
		{"call 2 held 2 s, client timeout 1 s", plan(faults.Values{"slow-at": "2", "delay": "2s"}), false, faults.Spec, time.Second},
	}
	for _, p := range faults.Policies {
		scs = append(scs, scenario{"stray stdout text glued to reply 2, " + string(p) + " client", plan(faults.Values{"pollute": "partial", "pollute-at": "2"}), false, p, time.Second})
	}
	var rows [][]string
	for _, sc := range scs {
		r, err := faults.Drive(ctx, start, faults.Options{Plan: sc.plan, Policy: sc.policy, Calls: calls, N: 5, Timeout: sc.timeout, Restart: sc.restart, Probe: po})
		if err != nil && len(r.Calls) == 0 {
			return nil, &exitError{code: exitNoTarget, msg: err.Error()}
		}
		rows = append(rows, reports.ScenarioRow(sc.name, r))
	}
	return rows, nil
}
