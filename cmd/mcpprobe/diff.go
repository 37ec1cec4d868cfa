package main

import (
	"context"
	"os"

	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/probe/snapshot"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func (rs *runState) diffCommand() *cli.Command {
	return &cli.Command{
		Name:   "diff",
		Before: rs.before,
		Usage:  "compare what a server sends with reference definitions, or two servers",
		ArgsUsage: "--ref FILE TARGET | A -- B   (TARGET, A, B: a command, a URL, or a reference file:\n" +
			"   an MCP tools/list result or response, MCP tools, Anthropic or OpenAI tools,\n" +
			"   an mcpprobe snapshot, wire --json output, or a wire --save directory)",
		Flags: flags([]cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "reference `FILE` (or wire --save directory)"},
			&cli.StringSliceFlag{Name: "ignore", Usage: "leave `PART,…` out of the comparison on purpose: tools, prompts, resources, templates,\n" +
				"   instructions, server-name, server-version, server-info, protocol, capabilities, skills (each must be one the sides record)"},
		}, targetFlags(), boundFlags(), without(outputFlags(), "verbose"), gateFlags("diff", "drift")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			tf, err := rs.openTraces(cmd)
			if err != nil {
				return err
			}
			defer tf.close()
			o, err := rs.diffOptions(ctx, cmd, tf)
			if err != nil {
				return err
			}
			r, err := diff.Run(ctx, o)
			if err != nil {
				return rs.failure(err)
			}
			return rs.emit(cmd, reports.NewDiff(r))
		},
	}
}

// diffOptions reads what to compare: --ref FILE against the target, or
// A -- B, each of which may be a reference file or a live target.
func (rs *runState) diffOptions(ctx context.Context, cmd *cli.Command, tf *traceFile) (diff.Options, error) {
	ignore, err := diff.ParseParts(cmd.StringSlice("ignore"))
	if err != nil {
		return diff.Options{}, usageErr("--ignore: %v", err)
	}
	head := cmd.Args().Slice()
	tail, dashes := rs.afterDashes()
	if ref := cmd.String("ref"); ref != "" {
		if dashes && len(head) > 0 && len(tail) > 0 {
			return diff.Options{}, usageErr("--ref %s and A -- B conflict: compare --ref FILE with one target (diff --ref FILE TARGET), or two sides without --ref (diff A -- B)", ref)
		}
		live, err := rs.diffSource(cmd, append(head, tail...), tf)
		return diff.Options{Ref: diff.Source{Path: ref, Name: "--ref"}, Live: live, Ignore: ignore}, err
	}
	if !dashes && len(head) == 2 {
		head, tail = head[:1], head[1:]
	} else if !dashes || len(head) == 0 || len(tail) == 0 {
		return diff.Options{}, usageErr("diff needs --ref FILE TARGET, or A -- B (two targets or reference files)")
	}
	a, err := rs.diffSource(cmd, head, tf)
	if err != nil {
		return diff.Options{}, err
	}
	b, err := rs.diffSource(cmd, tail, tf)
	return diff.Options{Ref: a, Live: b, Ignore: ignore}, err
}

// diffSource is a reference file when args is one existing path that is
// a directory or not executable, and a live target otherwise.
func (rs *runState) diffSource(cmd *cli.Command, args []string, tf *traceFile) (diff.Source, error) {
	if len(args) == 1 {
		if st, err := os.Stat(args[0]); err == nil && (st.IsDir() || st.Mode()&0o111 == 0) {
			return diff.Source{Path: args[0]}, nil
		}
	}
	o, err := rs.wireOptions(cmd, args, tf)
	if err != nil {
		return diff.Source{}, err
	}
	return diff.Source{Live: &o}, nil
}

func (rs *runState) snapshotCommand() *cli.Command {
	return &cli.Command{
		Name:      "snapshot",
		Before:    rs.before,
		Usage:     "pin today's definitions in a lock file (diff --ref it later)",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME",
		Flags:     flags(nil, targetFlags(), boundFlags(), without(outputFlags(), "verbose")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			tf, err := rs.openTrace(cmd)
			if err != nil {
				return err
			}
			defer tf.close()
			var o snapshot.Options
			if o.Options, err = rs.wireOptions(cmd, rs.targetArgs(cmd), tf); err != nil {
				return err
			}
			r, err := snapshot.Run(ctx, o)
			if err != nil {
				return rs.failure(err)
			}
			return rs.emit(cmd, reports.NewSnapshot(r))
		},
	}
}
