package main

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func (rs *runState) malformedCommand() *cli.Command {
	return &cli.Command{
		Name:   "malformed",
		Before: rs.before,
		Usage:  "send calls a server should refuse, and show which channel answers each",
		Description: "malformed calls tools: each it may call gets a valid baseline call and then its cases (wrong types, missing arguments, a 1 MB string…). " +
			"Without `--call` it calls only a tool whose readOnlyHint is the JSON literal true, whose destructiveHint is absent or false, whose hints are each a plain JSON boolean given once, " +
			"and whose name or title speaks of no long work; the output lists each tool called and each not called, with why. " +
			"Cases that need no real tool (an unknown tool, bad frames, unknown methods) go to none. With `--no-tool-calls` it calls no tool.",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags: flags([]cli.Flag{noToolCallsFlag()}, callFlags("`TOOL` to derive cases from (repeatable), whatever its annotations: naming a tool is consent to call it; default the tools whose readOnlyHint is true and destructiveHint absent or false, every hint a plain JSON boolean",
			"valid arguments `JSON` for the --call before it: its baseline call, and where its cases start (default: built from the schema)"),
			targetFlags(), boundFlags(), without(outputFlags(), "verbose"), gateFlags("malformed")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, err := rs.malformedOptions(ctx, cmd)
			if err != nil {
				return err
			}
			tf, err := rs.openTraces(cmd)
			if err != nil {
				return err
			}
			closeTrace, rec := tf.close, tf.recorder()
			o.Launch.Record = rec
			r, err := malformed.Run(ctx, o)
			closeTrace()
			if err != nil {
				return rs.failure(err)
			}
			return rs.emit(cmd, reports.NewMalformed(r))
		},
	}
}

// malformedOptions maps malformed's flags to malformed.Options.
func (rs *runState) malformedOptions(ctx context.Context, cmd *cli.Command) (malformed.Options, error) {
	spec, err := rs.specFromFlags(cmd, rs.targetArgs(cmd))
	if err != nil {
		return malformed.Options{}, err
	}
	o := malformed.Options{Spec: spec, Progress: rs.caseProgress(cmd, spec.Probe.Timeout), NoToolCalls: cmd.Bool("no-tool-calls")}
	calls, err := callsFromFlags(cmd)
	if err != nil {
		return o, err
	}
	if o.NoToolCalls && len(calls) > 0 {
		return o, usageErr("--no-tool-calls and --call %s ask for opposite things", calls[0].Tool)
	}
	for _, c := range calls {
		o.Tools = append(o.Tools, c.Tool)
		if c.Args != nil {
			if prev, ok := o.Args[c.Tool]; ok && string(prev) != string(c.Args) {
				return o, usageErr("--call %s is given twice with different --args; malformed derives one tool's cases from one set of valid arguments", c.Tool)
			}
			if o.Args == nil {
				o.Args = map[string][]byte{}
			}
			o.Args[c.Tool] = c.Args
		}
	}
	return o, nil
}
