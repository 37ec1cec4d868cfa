package main

import (
	"context"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func malformedCommand() *cli.Command {
	return &cli.Command{
		Name:      "malformed",
		Before:    before(),
		Usage:     "send calls a server should refuse, and show which channel answers each",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "call", Usage: "`TOOL` to derive cases from (repeatable); default the read-only tools"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, err := malformedOptions(ctx, cmd)
			if err != nil {
				return err
			}
			rec, closeTrace, err := recordTrace(cmd)
			if err != nil {
				return err
			}
			o.Launch.Record = rec
			r, err := malformed.Run(ctx, o)
			closeTrace()
			if err != nil {
				return failure(err)
			}
			return emit(cmd, outcome{
				command: "malformed", target: r.Target, protocol: r.Protocol,
				findings: r.Findings(), counts: r.Counts(),
				section: func() []byte { return reports.MalformedJSON(r) },
				text:    func(w io.Writer) { reports.Malformed(w, reports.Terminal, r) },
			})
		},
	}
}

// malformedOptions maps malformed's flags to malformed.Options.
func malformedOptions(ctx context.Context, cmd *cli.Command) (malformed.Options, error) {
	spec, err := specFromFlags(cmd, targetArgs(ctx, cmd))
	if err != nil {
		return malformed.Options{}, err
	}
	o := malformed.Options{Spec: spec}
	for _, n := range cmd.StringSlice("call") {
		if n == "" {
			return o, usageErr("--call needs a tool name")
		}
		o.Tools = append(o.Tools, n)
	}
	return o, nil
}

// malformedRun is a malformed run as report renders it (report.go).
type malformedRun struct{ res *malformed.Result }

// runMalformed runs malformed on the report's target. It records no
// trace: report's --trace holds its probe.
func runMalformed(ctx context.Context, cmd *cli.Command) (*malformedRun, error) {
	o, err := malformedOptions(ctx, cmd)
	if err != nil {
		return nil, err
	}
	r, err := malformed.Run(ctx, o)
	if err != nil {
		return nil, failure(err)
	}
	return &malformedRun{res: r}, nil
}

// writeMalformed renders a report's malformed-calls section.
func writeMalformed(w io.Writer, st reports.Style, mr *malformedRun) {
	reports.Malformed(w, st, mr.res)
}
