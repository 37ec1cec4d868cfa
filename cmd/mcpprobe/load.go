package main

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/mcpprobe/mcpprobe/probe/load"
	"github.com/mcpprobe/mcpprobe/probe/survey"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

// loadFlags are load's own, each Local: load merge reads files and
// refuses (exit 2) the flags of a run rather than take and ignore them.
func loadFlags() []cli.Flag {
	return localFlags(append(callFlags("`TOOL` to load (repeatable); default every tool annotated read-only",
		"arguments `JSON` for the --call before it (default: minimal valid arguments from its schema)"),
		&cli.IntFlag{Name: "sessions", Value: 4, Usage: "concurrent sessions (HTTP sessions, or processes of a command), each one request in flight"},
		&cli.StringFlag{Name: "rate", Usage: "`R/s`: requests per second of the whole run (all shards), sent on a fixed schedule, each timed from when it was due"},
		&cli.StringFlag{Name: "ramp", Usage: "`FROM:TO:STEP` rates per second, one step each, stopping at the knee: the first rate whose p99 or error ratio breaks --max-p99 or --max-errors"},
		&cli.DurationFlag{Name: "duration", Value: 10 * time.Second, Usage: "length of each step"},
		&cli.IntFlag{Name: "requests", Usage: "`N` requests per step (of the whole run), instead of --duration"},
		&cli.DurationFlag{Name: "max-p99", Usage: "bound on a step's p99 latency for the knee (0: none)"},
		&cli.StringFlag{Name: "max-errors", Value: "0.01", Usage: "bound on a step's error ratio (errors, timeouts, unsent) for the knee, 0 to 1"},
		&cli.StringFlag{Name: "shard", Usage: "run shard `I/N` of the schedule (every N-th request from the I-th, I from 0); /N takes I from JOB_COMPLETION_INDEX"},
		&cli.IntFlag{Name: "shards", Usage: "`N` shards, this one's index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)"},
		&cli.StringFlag{Name: "start-at", Usage: "`TIME` (RFC 3339, e.g. 2026-12-02T08:00:00Z) to start the first step at, once the sessions are open, so that shards started apart send together (at most an hour ahead; a time past starts at once)"},
		&cli.StringSliceFlag{Name: "replica", Usage: "another `URL` of the same stateless (2026-07-28) server: each session spreads its requests over the target and its replicas, and answers that depend on the replica are reported (repeatable)"},
		&cli.BoolFlag{Name: "allow-remote", Usage: "allow a URL that is not loopback (127.0.0.0/8, ::1, localhost): load you are allowed to send to a server you run"},
		&cli.BoolFlag{Name: "i-know", Usage: fmt.Sprintf("lift the caps (%d/s, %d HTTP sessions, %d processes, %d requests per step)", load.MaxRate, load.MaxSessions, load.MaxProcesses, load.MaxRequests)},
	))
}

// localFlags makes each of fs Local: taken by its command only, not by
// the command's subcommands.
func localFlags(fs []cli.Flag) []cli.Flag {
	for _, f := range fs {
		switch f := f.(type) {
		case *cli.GenericFlag:
			f.Local = true
		case *cli.IntFlag:
			f.Local = true
		case *cli.StringFlag:
			f.Local = true
		case *cli.StringSliceFlag:
			f.Local = true
		case *cli.DurationFlag:
			f.Local = true
		case *cli.BoolFlag:
			f.Local = true
		default:
			panic(fmt.Sprintf("localFlags: %T", f))
		}
	}
	return fs
}

func (rs *runState) loadCommand() *cli.Command {
	return &cli.Command{
		Name:      "load",
		Before:    rs.before,
		Usage:     "many sessions at a rate, open loop: latency per phase and method, the knee of a ramp, shards merged exactly",
		ArgsUsage: "URL | ./server | -- CMD ARGS… | --config FILE NAME\n   mcpprobe load merge SHARD.json…",
		Flags:     flags(loadFlags(), targetFlags(), boundFlags(), without(outputFlags(), "verbose", "trace"), gateFlags("load", "knee")),
		Commands:  []*cli.Command{rs.loadMergeCommand()},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, err := rs.loadOptions(cmd)
			if err != nil {
				return err
			}
			prog := rs.progressBar(cmd)
			o.Progress = prog.Report
			r, err := load.Run(ctx, o)
			prog.Done()
			if err != nil {
				return rs.failure(err)
			}
			return rs.emitLoad(cmd, r)
		},
	}
}

func (rs *runState) emitLoad(cmd *cli.Command, r *load.Result) error {
	return rs.emit(cmd, reports.NewLoad(r))
}

func (rs *runState) loadMergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Before:    rs.before,
		Usage:     "combine the --json files of a sharded load run into exact percentiles over the union of their samples",
		ArgsUsage: "SHARD.json…",
		Flags:     flags(nil, without(outputFlags(), "verbose", "trace", "quiet"), gateFlags("load", "knee")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			files := rs.targetArgs(cmd)
			if len(files) == 0 {
				return usageErr("load merge needs the shards' files: load merge shard-*.json")
			}
			var parts []load.Part
			for _, f := range files {
				b, err := inputfile.Read(f, load.MaxPartBytes)
				if err != nil {
					return usageErr("load merge: %v", err)
				}
				p, err := load.ReadPart(f, b)
				if err != nil {
					return usageErr("load merge: %v", err)
				}
				parts = append(parts, p)
			}
			r, err := load.Merge(parts)
			if err != nil {
				return usageErr("load merge: %v", err)
			}
			return rs.emitLoad(cmd, r)
		},
	}
}

// loadOptions maps load's flags to load.Options, refusing values and
// combinations that cannot be run.
func (rs *runState) loadOptions(cmd *cli.Command) (load.Options, error) {
	spec, err := rs.specFromFlags(cmd, rs.targetArgs(cmd))
	if err != nil {
		return load.Options{}, err
	}
	o := load.Options{Spec: spec, Sessions: int(cmd.Int("sessions")), Duration: cmd.Duration("duration"),
		Requests: int(cmd.Int("requests")), Unbounded: cmd.Bool("i-know")}
	if err := atLeast(cmd, "sessions", 1); err != nil {
		return o, err
	}
	if o.Rates, err = loadRates(cmd); err != nil {
		return o, err
	}
	if err := loadBound(cmd, &o); err != nil {
		return o, err
	}
	if err := loadShard(rs, cmd, &o); err != nil {
		return o, err
	}
	if v := cmd.String("start-at"); v != "" {
		if o.StartAt, err = time.Parse(time.RFC3339, v); err != nil {
			return o, usageErr("--start-at %q: want a time in RFC 3339, such as 2026-12-02T08:00:00Z", v)
		}
	}
	if o.Calls, err = callsFromFlags(cmd); err != nil {
		return o, err
	}
	o.AutoCalls = len(o.Calls) == 0
	if err := rs.loadReplicas(cmd, &o); err != nil {
		return o, err
	}
	if err := o.Check(); err != nil {
		return o, usageErr("%v", err)
	}
	return o, nil
}

// loadRates reads --rate or --ramp, one of which is required.
func loadRates(cmd *cli.Command) ([]float64, error) {
	rate, ramp := cmd.String("rate"), cmd.String("ramp")
	switch {
	case rate != "" && ramp != "":
		return nil, usageErr("--rate and --ramp conflict: --rate is one step, --ramp FROM:TO:STEP several")
	case rate == "" && ramp == "":
		return nil, usageErr("load needs --rate R/s or --ramp FROM:TO:STEP")
	case cmd.IsSet("requests") && cmd.IsSet("duration"):
		return nil, usageErr("--requests and --duration conflict: a step is N requests or a length, not both")
	case cmd.IsSet("requests") && cmd.Int("requests") < 1:
		return nil, usageErr("--requests %d: want 1 or more", cmd.Int("requests"))
	case cmd.Duration("duration") <= 0:
		return nil, usageErr("--duration %s: want a length above 0, such as 10s", cmd.Duration("duration"))
	}
	if rate != "" {
		r, err := parseRate(rate)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return []float64{r}, nil
	}
	return parseRamp(ramp)
}

// parseRamp reads FROM:TO:STEP (each a rate per second, "/s" optional).
func parseRamp(s string) ([]float64, error) {
	f := strings.Split(s, ":")
	bad := usageErr("--ramp %q: want FROM:TO:STEP requests per second, such as 50:500:50", s)
	if len(f) != 3 {
		return nil, bad
	}
	var v [3]float64
	for i, x := range f {
		n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(x), "/s"), 64)
		if err != nil || n <= 0 || math.IsInf(n, 0) {
			return nil, bad
		}
		v[i] = n
	}
	if v[1] < v[0] {
		return nil, usageErr("--ramp %q: TO is below FROM", s)
	}
	steps := int(math.Floor((v[1]-v[0])/v[2]+1e-9)) + 1
	if steps > load.MaxSteps {
		return nil, usageErr("--ramp %q is %d steps; at most %d", s, steps, load.MaxSteps)
	}
	var out []float64
	for i := 0; i < steps; i++ {
		out = append(out, math.Round((v[0]+float64(i)*v[2])*1e6)/1e6)
	}
	return out, nil
}

// loadBound reads --max-p99 and --max-errors.
func loadBound(cmd *cli.Command, o *load.Options) error {
	if d := cmd.Duration("max-p99"); d < 0 {
		return usageErr("--max-p99 %s: want a duration, or 0 for no bound on p99", d)
	}
	o.Bound.MaxP99 = cmd.Duration("max-p99")
	e, err := strconv.ParseFloat(cmd.String("max-errors"), 64)
	if err != nil || e < 0 || e > 1 {
		return usageErr("--max-errors %q: want a ratio from 0 to 1, such as 0.01", cmd.String("max-errors"))
	}
	o.Bound.MaxErrors = e
	return nil
}

// loadShard reads --shard and --shards as survey does.
func loadShard(rs *runState, cmd *cli.Command, o *load.Options) error {
	s, err := survey.ParseShard(cmd.String("shard"), int(cmd.Int("shards")), rs.getenv("JOB_COMPLETION_INDEX"))
	if err != nil {
		return usageErr("%v", err)
	}
	o.Shard = load.Shard{I: s.I, N: s.N}
	return nil
}

// loadReplicas reads --replica, and refuses a URL that is not loopback
// without --allow-remote.
func (rs *runState) loadReplicas(cmd *cli.Command, o *load.Options) error {
	urls := cmd.StringSlice("replica")
	if len(urls) > 0 && o.Target.Kind == "stdio" {
		return usageErr("--replica takes URLs of the target's replicas; %s is a command", o.Target.Display())
	}
	for _, u := range urls {
		s, err := rs.specFromFlags(cmd, []string{u})
		if err != nil {
			return err
		}
		if s.Target.Kind == "stdio" {
			return usageErr("--replica %q: want a URL", u)
		}
		o.Replicas = append(o.Replicas, s)
	}
	if cmd.Bool("allow-remote") {
		return nil
	}
	for _, s := range append([]dial.Spec{o.Spec}, o.Replicas...) {
		if s.Target.Kind != "stdio" && !loopback(s.Target.URL) {
			return usageErr("%s is not a loopback address: load sends what you ask at the rate you ask; give --allow-remote for a server you run and may load", s.Target.Display())
		}
	}
	return nil
}

// loopback says whether a URL's host is a loopback address or localhost.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
