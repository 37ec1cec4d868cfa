package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"
)

func benchFlags() []cli.Flag {
	return append(callFlags("`TOOL` to time (repeatable); default every tool annotated read-only",
		"arguments `JSON` for the --call before it (default: minimal valid arguments from its schema)"),
		&cli.IntFlag{Name: "n", Value: 100, Usage: "measured calls per series"},
		&cli.IntFlag{Name: "warmup", Value: 10, Usage: "calls per series before measuring"},
		&cli.IntFlag{Name: "startup", Value: 5, Usage: "fresh processes for the startup series (0: none)"},
		&cli.IntFlag{Name: "concurrency", Value: 1, Usage: "calls in flight (closed loop)"},
		&cli.StringFlag{Name: "rate", Usage: "`R/s`: an open loop sending R calls per second, each timed from when it was due"},
		&cli.DurationFlag{Name: "duration", Value: 10 * time.Second, Usage: "length of an open-loop run (--rate)"},
		&cli.StringFlag{Name: "vs", Usage: "a second `TARGET` (a command without spaces in its path, words split on spaces, or a URL), compared with the first over --rounds rounds"},
		&cli.IntFlag{Name: "rounds", Value: bench.DefaultRounds, Usage: "with --vs: rounds, each a fresh process of A and of B measured in turn (2 or more; 8 or more for a difference to be significant)"},
		&cli.Uint64Flag{Name: "seed", Usage: "with --vs: shuffle which side goes first in each round with this seed (0: ABBA order)"},
		&cli.DurationFlag{Name: "budget", Value: bench.DefaultBudget, Usage: "bound on the whole run (0: none; not with --vs): past it the series under way ends with what it has and the rest are listed as not run"},
	)
}

func (rs *runState) benchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Before:    rs.before,
		Usage:     "how fast the server starts and answers, with the probe's own cost shown",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME",
		Flags:     flags(append(benchFlags(), hostFlags()...), targetFlags(), boundFlags(), without(outputFlags(), "verbose"), gateFlags("bench")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, err := rs.benchOptions(ctx, cmd)
			if err != nil {
				return err
			}
			hc, err := hostChoice(cmd)
			if err != nil {
				return err
			}
			o.Hosts = hc.Each()
			tf, err := rs.openTraces(cmd)
			if err != nil {
				return err
			}
			closeTrace, rec := tf.close, tf.recorder()
			o.Launch.Record = rec
			if o.Vs != nil {
				o.Vs.Launch.Record = rec
			}
			prog := rs.progressBar(cmd)
			o.Progress = prog.Report
			if prog.On() {
				o.Request = prog.Request
			}
			if o.Budget > 0 && !cmd.Bool("quiet") {
				// Once the server has answered: a server that cannot start
				// gets its message alone.
				o.Begin = func() {
					prog.Done()
					fmt.Fprintf(cmd.Root().ErrWriter, "bench: budget %s (--budget)\n", bench.Short(o.Budget))
				}
			}
			r, err := bench.Run(ctx, o)
			prog.Done()
			closeTrace()
			if err != nil {
				return rs.failure(err)
			}
			return rs.emit(cmd, reports.NewBench(r))
		},
	}
}

// benchOptions maps bench's flags to bench.Options, refusing values and
// combinations that cannot be measured.
func (rs *runState) benchOptions(ctx context.Context, cmd *cli.Command) (bench.Options, error) {
	spec, err := rs.specFromFlags(cmd, rs.targetArgs(cmd))
	if err != nil {
		return bench.Options{}, err
	}
	o := bench.Options{
		Spec:    spec,
		Startup: int(cmd.Int("startup")), N: int(cmd.Int("n")), Warmup: int(cmd.Int("warmup")),
		Concurrency: int(cmd.Int("concurrency")), Duration: cmd.Duration("duration"),
	}
	if err := benchLoop(cmd, &o); err != nil {
		return o, err
	}
	if o.Calls, err = callsFromFlags(cmd); err != nil {
		return o, err
	}
	o.AutoCalls = len(o.Calls) == 0
	if err := benchBounds(cmd, &o); err != nil {
		return o, err
	}
	return o, rs.benchVs(cmd, &o)
}

// benchLoop reads how the calls are sent: the counts, and an open loop's
// --rate and --duration.
func benchLoop(cmd *cli.Command, o *bench.Options) error {
	for _, c := range []struct {
		flag string
		min  int
	}{{"n", 0}, {"warmup", 0}, {"startup", 0}, {"concurrency", 1}} {
		if err := atLeast(cmd, c.flag, c.min); err != nil {
			return err
		}
	}
	switch {
	case o.N == 0 && o.Startup == 0 && !cmd.IsSet("rate"):
		return usageErr("-n 0 and --startup 0 leave nothing to measure; give one of them 1 or more")
	case o.Duration <= 0:
		return usageErr("--duration %s: want a length above 0, such as 10s", o.Duration)
	case cmd.IsSet("duration") && !cmd.IsSet("rate"):
		return usageErr("--duration is the length of an open loop; give --rate with it")
	}
	r := cmd.String("rate")
	if r == "" {
		return nil
	}
	var err error
	if o.Rate, err = parseRate(r); err != nil {
		return usageErr("%v", err)
	}
	if o.Concurrency > 1 {
		return usageErr("--rate and --concurrency conflict: an open loop sends on its own schedule whatever is in flight, a closed loop keeps --concurrency in flight; give one of them")
	}
	return nil
}

// benchBounds reads --rounds, --seed and --budget, each of which belongs
// to one kind of run.
func benchBounds(cmd *cli.Command, o *bench.Options) error {
	if !cmd.IsSet("vs") {
		for _, f := range []string{"rounds", "seed"} {
			if cmd.IsSet(f) {
				return usageErr("--%s is for --vs: it orders the rounds of a comparison", f)
			}
		}
	}
	o.Rounds, o.Seed = int(cmd.Int("rounds")), cmd.Uint64("seed")
	switch b := cmd.Duration("budget"); {
	case b < 0:
		return usageErr("--budget %s: want a length of 0 (none) or more, such as 2m", b)
	case cmd.IsSet("vs") && cmd.IsSet("budget"):
		return usageErr("--budget and --vs conflict: --vs runs the --rounds it is given; bound it with --rounds and -n")
	case !cmd.IsSet("vs"):
		o.Budget = b
	}
	if o.Rounds < 2 || o.Rounds > bench.MaxRounds {
		return usageErr("--rounds %d: want 2 to %d", o.Rounds, bench.MaxRounds)
	}
	return nil
}

// benchVs reads --vs, the second target, which measures one call at a
// time.
func (rs *runState) benchVs(cmd *cli.Command, o *bench.Options) error {
	vs := cmd.String("vs")
	if !cmd.IsSet("vs") {
		return nil
	}
	switch {
	case strings.TrimSpace(vs) == "":
		return usageErr("--vs needs a second target")
	case o.Rate > 0:
		return usageErr("--vs and --rate conflict: --vs measures one call at a time, A then B")
	case o.Concurrency > 1:
		return usageErr("--vs and --concurrency conflict: --vs measures one call at a time, A then B")
	}
	b, err := rs.specFromFlags(cmd, strings.Fields(vs))
	if err != nil {
		return err
	}
	o.Vs = &b
	return nil
}

func parseRate(s string) (float64, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "/s")
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || r <= 0 || r > 1e6 {
		return 0, fmt.Errorf("--rate %q: want calls per second, up to 1000000, e.g. 200/s", s)
	}
	return r, nil
}

// progressBar draws on stderr when it is a terminal and --quiet is not set.
func (rs *runState) progressBar(cmd *cli.Command) *terminal.Progress { return rs.statusFor(cmd) }

func jsonObject(s string) bool { return gjson.Valid(s) && gjson.Parse(s).IsObject() }
