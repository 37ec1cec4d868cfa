package main

import (
	"context"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func (rs *runState) malformedCommand() *cli.Command {
	return &cli.Command{
		Name:      "malformed",
		Before:    rs.before,
		Usage:     "send calls a server should refuse, and show which channel answers each",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags: flags([]cli.Flag{
			&cli.StringSliceFlag{Name: "call", Usage: "`TOOL` to derive cases from (repeatable); default the read-only tools"},
			&cli.StringFlag{Name: "args", Usage: "valid arguments `JSON` for --call: the baseline call, and where the cases start (default: built from the schema)"},
		}, targetFlags(), boundFlags(), without(outputFlags(), "verbose"), gateFlags("malformed")),
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
			return rs.emit(cmd, outcome{
				command: "malformed", target: r.Target, protocol: r.Protocol,
				findings: r.Findings(), counts: r.Counts(),
				section: func() []byte { return reports.MalformedJSON(r) },
				text:    func(w io.Writer) { reports.Malformed(w, reports.Terminal, r) },
			})
		},
	}
}

// malformedOptions maps malformed's flags to malformed.Options.
func (rs *runState) malformedOptions(ctx context.Context, cmd *cli.Command) (malformed.Options, error) {
	spec, err := rs.specFromFlags(cmd, rs.targetArgs(cmd))
	if err != nil {
		return malformed.Options{}, err
	}
	o := malformed.Options{Spec: spec, Progress: rs.caseProgress(cmd, spec.Probe.Timeout)}
	for _, n := range cmd.StringSlice("call") {
		if n == "" {
			return o, usageErr("--call needs a tool name")
		}
		o.Tools = append(o.Tools, n)
	}
	if cmd.IsSet("args") {
		a := cmd.String("args")
		switch {
		case len(o.Tools) == 0:
			return o, usageErr("--args are the valid arguments of --call; name the tool with --call")
		case !jsonObject(a):
			return o, usageErr("--args %q is not a JSON object", a)
		}
		o.Args = []byte(a)
	}
	return o, nil
}
