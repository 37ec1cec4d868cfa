package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
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
		err = faultCompanions(cmd)
	}
	if err == nil {
		err = p.Check(where)
	}
	if err != nil {
		return p, usageErr("%v", err)
	}
	return p, nil
}

func (rs *runState) faultsCommand() *cli.Command {
	own := append(faultFlags(),
		&cli.StringFlag{Name: "client", Value: "spec", Usage: "`POLICY` for stray stdout text: spec, strict (Go SDK), lenient (mcp-go), ts (TypeScript SDK), or all"},
		&cli.BoolFlag{Name: "restart", Usage: "respawn the server when the connection closes and retry the failed call once"})
	own = append(own, callFlags("`TOOL` to call (repeatable; round robin); default the read-only tools",
		"arguments `JSON` for the --call before it (default: minimal valid arguments)")...)
	own = append(own, &cli.IntFlag{Name: "calls", Value: 10, Usage: "how many calls to make"})
	return &cli.Command{
		Name:      "faults",
		Before:    rs.before,
		Usage:     "inject faults between a client and the server, and show what the client sees",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags:     flags(own, probing("faults")...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, err := rs.faultsOptions(ctx, cmd)
			if err != nil {
				return err
			}
			tf, err := rs.openTraces(cmd)
			if err != nil {
				return err
			}
			defer tf.close()
			o.Spec.Launch.Record = tf.recorder()
			prog := rs.newFaultsProgress(cmd)
			o.Progress = prog.step
			r, err := faults.Run(ctx, o)
			prog.done()
			if err != nil {
				return rs.failure(err)
			}
			return rs.emit(cmd, reports.NewFaults(o.Spec.Target.Display(), r))
		},
	}
}

// faultsOptions fills faults.Options from the flags, refusing what cannot
// be run with exit 2.
func (rs *runState) faultsOptions(ctx context.Context, cmd *cli.Command) (faults.Options, error) {
	spec, err := rs.specFromFlags(cmd, rs.targetArgs(cmd))
	if err != nil {
		return faults.Options{}, err
	}
	plan, err := planFromFlags(cmd, faults.InShim)
	if err != nil {
		return faults.Options{}, err
	}
	o := faults.Options{Spec: spec, Plan: plan, N: int(cmd.Int("calls")), Restart: cmd.Bool("restart")}
	if c := cmd.String("client"); c == "all" {
		o.Policies = faults.Policies
	} else if p, ok := faults.ParsePolicy(c); ok {
		o.Policies = []faults.Policy{p}
	} else {
		return o, usageErr("--client %q: want spec, strict, lenient, ts or all", c)
	}
	if o.N < 0 {
		return o, usageErr("--calls %d: want 0 or more", o.N)
	}
	calls, err := callsFromFlags(cmd)
	if err != nil {
		return o, err
	}
	for _, c := range calls {
		o.Calls = append(o.Calls, faults.Call{Tool: c.Tool, Args: c.Args})
	}
	return o, nil
}

// faultsProgress shows the step under way on the progress line: a
// faults run takes seconds.
type faultsProgress struct{ p *terminal.Progress }

func (rs *runState) newFaultsProgress(cmd *cli.Command) *faultsProgress {
	return &faultsProgress{rs.statusFor(cmd)}
}

func (p *faultsProgress) step(s string) { p.p.Step(s) }

func (p *faultsProgress) done() { p.p.Done() }
