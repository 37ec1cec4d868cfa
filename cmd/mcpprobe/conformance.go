package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/probe/check"
	"github.com/mcpprobe/mcpprobe/probe/oauth"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func (rs *runState) checkCommand() *cli.Command {
	own := []cli.Flag{
		&cli.StringFlag{Name: "era", Value: "both", Usage: "the protocol era to grade: legacy (2025-11-25 and older), modern (2026-07-28) or both",
			Validator: func(e string) error {
				if e != "both" && e != check.Legacy && e != check.Modern {
					return fmt.Errorf("--era %q: want legacy, modern or both", e)
				}
				return nil
			}},
		&cli.StringFlag{Name: "baseline", Usage: "known failures `FILE`: one check id a line, \"id  # reason\"; exit 1 only on a failure it does not list, and say which listed ones pass now"},
		&cli.BoolFlag{Name: "markdown", Usage: "write the verdict as markdown (a report section) instead of text"},
		&cli.BoolFlag{Name: "skip-malformed", Usage: "leave out the malformed calls (malformed.* checks)"},
		&cli.BoolFlag{Name: "auth", Usage: "for a URL: add the authorization audit (auth's rows, each a finding when it fails or warns), with the bearer token of an Authorization header as its baseline"},
		&cli.BoolFlag{Name: "list", Usage: "print every check id, its eras and its clause, one a line (tab-separated), and start no server"},
		noToolCallsFlag(),
	}
	own = append(own, callFlags("`TOOL` to call (repeatable), whatever its annotations: naming a tool is consent to call it, with arguments from its schema, and to send it malformed's cases; default the tools whose readOnlyHint is true and destructiveHint absent or false, every hint a plain JSON boolean, and whose name or title speaks of no long work",
		"arguments `JSON` for the --call before it (default: built from the schema)")...)
	return &cli.Command{
		Name:   "check",
		Before: rs.before,
		Usage:  "grade the server against the spec of each era it serves: one verdict per check, each on its clause",
		Description: "check calls tools: up to 3 for tools.call-result (6 in 2026-07-28's checks), and every one it may call gets malformed's cases. " +
			"Without `--call` it calls only a tool whose readOnlyHint is the JSON literal true, whose destructiveHint is absent or false, whose hints are each a plain JSON boolean given once, " +
			"and whose name or title speaks of no long work; the output lists each tool called and each not called, with why. " +
			"With `--call TOOL` it calls the tools named instead (your consent, whatever the hints), and with `--no-tool-calls` none.",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags:     flags(own, without(targetFlags(), "protocol"), boundFlags(), outputFlags(), gateFlags("check")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Bool("list") {
				reports.CheckList(cmd.Root().Writer)
				return nil
			}
			o, base, err := rs.checkOptions(cmd)
			if err != nil {
				return err
			}
			ao, err := rs.auditOptions(cmd, o.Spec.Target, false)
			if err != nil {
				return err
			}
			tf, err := rs.openTraces(cmd)
			if err != nil {
				return err
			}
			closeTrace, rec := tf.close, tf.recorder()
			o.Launch.Record = rec
			r, err := check.Run(ctx, o)
			closeTrace()
			if err != nil {
				return rs.failure(err)
			}
			if base != nil {
				r.Apply(base)
			}
			a, err := runAudit(ctx, ao, o.Spec.OAuth)
			if err != nil {
				return rs.failure(err)
			}
			if err := rs.emitCheck(cmd, r, a); err != nil {
				return err
			}
			if n := r.NewFailures(); n > 0 {
				return &exitError{code: exitGate, msg: fmt.Sprintf("check: %d check(s) failed%s", n, notListed(base != nil))}
			}
			return nil
		},
	}
}

// noToolCallsFlag is --no-tool-calls, as check and malformed take it.
func noToolCallsFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-tool-calls", Usage: "call no tool at all: the checks that need a call are reported \"not run (no tool calls allowed)\", and malformed sends only the cases that call no real tool"}
}

func notListed(baseline bool) string {
	if baseline {
		return " that the baseline does not list"
	}
	return ""
}

// checkOptions maps check's flags to check.Options and reads --baseline
// before any server starts.
func (rs *runState) checkOptions(cmd *cli.Command) (check.Options, *check.Baseline, error) {
	spec, err := rs.specFromFlags(cmd, rs.targetArgs(cmd))
	if err != nil {
		return check.Options{}, nil, err
	}
	o := check.Options{Spec: spec, SkipMalformed: cmd.Bool("skip-malformed"), NoToolCalls: cmd.Bool("no-tool-calls")}
	if o.Calls, err = callsFromFlags(cmd); err != nil {
		return o, nil, err
	}
	if o.NoToolCalls && len(o.Calls) > 0 {
		return o, nil, usageErr("--no-tool-calls and --call %s ask for opposite things", o.Calls[0].Tool)
	}
	if e := cmd.String("era"); e != "both" {
		o.Eras = []string{e}
	}
	if st := rs.statusFor(cmd); st.On() {
		o.Progress = func(what string) { st.Phase(what, time.Now(), spec.Probe.Timeout) }
	}
	var base *check.Baseline
	if path := cmd.String("baseline"); path != "" {
		if base, err = check.ReadBaseline(path); err != nil {
			return o, nil, rs.failure(err)
		}
	}
	return o, base, nil
}

// runAudit runs the authorization audit when o asks for one; the OAuth
// flags' token, when the run got one, is its baseline.
func runAudit(ctx context.Context, o *authz.Options, host *oauth.Host) (*authz.Result, error) {
	if o == nil {
		return nil, nil
	}
	ao := *o
	if ao.Token == "" && host != nil {
		ao.Token = host.AccessToken()
	}
	return authz.Run(ctx, ao)
}

// emitCheck prints check's verdict, and the audit after it when --auth ran
// one: its findings with the checks'.
func (rs *runState) emitCheck(cmd *cli.Command, r *check.Result, a *authz.Result) error {
	return rs.emit(cmd, reports.NewCheck(r, a, cmd.Bool("markdown")))
}
