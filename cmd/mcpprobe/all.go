package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/config"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

// wholeConfigFlags are --all and --jobs: budget's, report's and wire's, the
// commands that run on every server of a host config. Any other command
// refuses them as flags it does not define (exit 2).
func wholeConfigFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "all", Usage: "with --config FILE: run on every server of the file (in name order), a few at a time, and add what only their sum shows"},
		&cli.IntFlag{Name: "jobs", Value: config.DefaultJobs(), Usage: "with --all: how many servers run at once"},
	}
}

// allConflicts are the flags of a command that take one server and so
// cannot go with --all. A function, so that the table cannot be changed.
func allConflicts() map[string][]string {
	return map[string][]string{
		"budget": {"view", "show-cut"},
		"report": {"check", "ref", "bench", "faults", "malformed", "call"},
		"wire":   {"save"},
	}
}

// wantsAll checks --all and --jobs: --all needs --config and no server
// name, and --jobs needs --all.
func (rs *runState) wantsAll(ctx context.Context, cmd *cli.Command) (bool, error) {
	if !cmd.Bool("all") {
		if cmd.IsSet("jobs") {
			return false, usageErr("--jobs applies to --config FILE --all, which runs several servers")
		}
		return false, nil
	}
	cfg := cmd.String("config")
	if cfg == "" {
		return false, usageErr("--all runs every server of a host config: give it --config FILE")
	}
	if args := rs.targetArgs(cmd); len(args) > 0 {
		return false, usageErr("--config %s --all runs every server of the file: drop the server name (%s), or drop --all to probe that one", cfg, strings.Join(args, " "))
	}
	if cmd.Int("jobs") < 1 {
		return false, usageErr("--jobs %d: want 1 or more", cmd.Int("jobs"))
	}
	for _, f := range allConflicts()[cmd.Name] {
		if cmd.IsSet(f) {
			return false, usageErr("--%s takes one server; --all runs every server of %s: drop one of them", f, cfg)
		}
	}
	return true, nil
}

// runAll runs the command on every server of --config FILE and prints
// each server's result with the whole config's sums. A server that
// cannot be probed is a row with its explanation (and a
// config-server-failed finding); the run exits 3 only when no server could
// be probed.
func (rs *runState) runAll(ctx context.Context, cmd *cli.Command, hosts []budget.Host, date string) error {
	path := cmd.String("config")
	list, err := launch.ListConfig(path, rs.lookupEnv)
	if err != nil {
		return configErr(path, err)
	}
	format, _ := launch.ConfigFormat(path)
	if len(hosts) > 0 {
		if hosts, err = budget.ToolSearchFromEnv(hosts, rs.lookupEnv); err != nil {
			return usageErr("%v", err)
		}
	}
	tf, err := rs.openTraces(cmd)
	if err != nil {
		return err
	}
	defer tf.close()
	// Every target is resolved, and its secrets known to the redaction,
	// before any server starts; connections are numbered in name order.
	opts := make([]wire.Options, len(list))
	for i := range list {
		s := &list[i]
		if s.Disabled || s.Err != nil {
			continue
		}
		o, err := rs.wireOptions(cmd, []string{s.Name}, &traceFile{})
		if err != nil {
			s.Err = err // a --env or header the target cannot take: its row
			continue
		}
		o.Progress = nil
		if s.StartupTimeout > 0 && !cmd.IsSet("startup-timeout") {
			o.Spec.Probe.StartupTimeout = s.StartupTimeout // as the host waits
		}
		opts[i] = o
	}
	for i := range list {
		if !list[i].Disabled && list[i].Err == nil {
			opts[i].Spec.Launch.Trace = tf.next()
		}
	}
	st := rs.statusFor(cmd)
	var mu sync.Mutex
	done := 0
	o := config.Options{Path: path, Format: format, Servers: list, Jobs: int(cmd.Int("jobs")), Hosts: hosts,
		Run: func(ctx context.Context, i int, s launch.ConfigServer) (config.Single, error) {
			defer func() {
				mu.Lock()
				done++
				if st.On() {
					st.Step(fmt.Sprintf("%d of %d servers done", done, len(list)))
				}
				mu.Unlock()
			}()
			switch cmd.Name {
			case "budget":
				r, err := budget.Run(ctx, budget.Options{Options: opts[i], Hosts: hosts, Filter: config.Filter(s)})
				if err != nil {
					return nil, err
				}
				return r, nil
			case "report":
				r, err := report.Run(ctx, report.Options{Options: opts[i], Hosts: hosts, Date: date, Filter: config.Filter(s)})
				if err != nil {
					return nil, err
				}
				return r, nil
			}
			r, err := wire.Run(ctx, opts[i])
			if err != nil {
				return nil, err
			}
			return r, nil
		}}
	r, err := config.Run(ctx, o)
	if err != nil {
		return rs.failure(err)
	}
	out := outcome{command: cmd.Name, target: "--config " + path + " --all", findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return reports.ConfigSection(r) },
		text:    func(w io.Writer) { reports.ConfigText(w, r) }}
	if cmd.Name == "report" {
		out.markdown = true
		out.text = func(w io.Writer) { reports.ConfigMarkdown(w, r, version, date) }
	}
	if err := rs.emit(cmd, out); err != nil {
		return err
	}
	if r.Probed() == 0 && r.Failed() > 0 {
		return &exitError{code: exitNoTarget, msg: rs.redactor().String(fmt.Sprintf("no server of %s could be probed; each row above says why", path))}
	}
	return nil
}

// configFilter is the include/exclude tool lists of the one server
// --config FILE NAME names, so that a single run pays what the same
// server's row of --all pays; none without --config.
func (rs *runState) configFilter(ctx context.Context, cmd *cli.Command) budget.ToolFilter {
	path := cmd.String("config")
	args := rs.targetArgs(cmd)
	if path == "" || len(args) != 1 {
		return budget.ToolFilter{}
	}
	list, err := launch.ListConfig(path, rs.lookupEnv)
	if err != nil {
		return budget.ToolFilter{}
	}
	for _, s := range list {
		if s.Name == args[0] {
			return config.Filter(s)
		}
	}
	return budget.ToolFilter{}
}
