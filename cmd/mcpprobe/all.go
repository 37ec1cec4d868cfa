package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/config"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
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
		"budget": {"view", "show-cut", "per-host-tools"},
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
	for _, f := range append(allConflicts()[cmd.Name], oauthFlags()...) {
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
// be probed. The run itself is probe/config's; here are the flags and
// the output.
func (rs *runState) runAll(ctx context.Context, cmd *cli.Command, hs []hosts.Host, date string) error {
	path := cmd.String("config")
	list, err := launch.ListConfig(path, rs.lookupEnv)
	if err != nil {
		return configErr(path, err)
	}
	format, _ := launch.ConfigFormat(path)
	if len(hs) > 0 {
		if hs, err = hosts.ToolSearchFromEnv(hs, rs.lookupEnv); err != nil {
			return usageErr("%v", err)
		}
	}
	tf, err := rs.openTraces(cmd)
	if err != nil {
		return err
	}
	defer tf.close()
	st := rs.statusFor(cmd)
	r, err := config.RunFile(ctx, config.FileOptions{Kind: config.Kind(cmd.Name), Path: path, Format: format, Servers: list,
		Jobs: int(cmd.Int("jobs")), Hosts: hs, Date: date, StartupTimeoutSet: cmd.IsSet("startup-timeout"),
		Target: func(s launch.ConfigServer) (wire.Options, error) {
			return rs.wireOptions(cmd, []string{s.Name}, &traceFile{})
		},
		Trace: tf.next,
		Done: func(done, of int) {
			if st.On() {
				st.Step(fmt.Sprintf("%d of %d servers done", done, of))
			}
		}})
	if err != nil {
		return rs.failure(err)
	}
	return rs.emitAll(cmd, r, date)
}

// emitAll prints a --config FILE --all run; one where no server could be
// probed exits 3, and its --json envelope has the error member every
// failed run's has.
func (rs *runState) emitAll(cmd *cli.Command, r *config.Result, date string) error {
	out := reports.NewAll(cmd.Name, r, version, date)
	var fail *exitError
	if r.NoneProbed() {
		fail = rs.noneProbed(r)
		out = reports.WithFailure(out, fail.fail)
	}
	if err := rs.emit(cmd, out); err != nil {
		return err
	}
	if fail != nil {
		return fail
	}
	return nil
}

// noneProbed is the exit-3 error of a run where no server of the file
// could be probed, with each server's reason as what was received.
func (rs *runState) noneProbed(r *config.Result) *exitError {
	what := fmt.Sprintf("no server of %s could be probed", r.Path)
	var received []string
	for _, s := range r.Servers {
		if s.Err != nil {
			l, _, _ := strings.Cut(config.Explain(s.Err).What, "\n")
			received = append(received, "server "+s.Name+": "+l)
		}
	}
	rd := rs.redactor()
	return &exitError{code: exitNoTarget, msg: rd.String(what + "; each row above says why"),
		fail: &jsonout.Failure{ExitCode: exitNoTarget, What: rd.String(what), Received: rd.String(strings.Join(received, "\n")),
			Try: "probe one alone to see its frames: mcpprobe wire --config " + rd.String(r.Path) + " NAME --trace FILE"}}
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
