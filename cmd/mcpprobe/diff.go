package main

import (
	"bytes"
	"context"
	"os"

	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:   "diff",
		Before: before("drift"),
		Usage:  "compare what a server sends with reference definitions, or two servers",
		ArgsUsage: "--ref FILE TARGET | A -- B   (TARGET, A, B: a command, a URL, or a reference file:\n" +
			"   an MCP tools/list result or response, MCP tools, Anthropic or OpenAI tools,\n" +
			"   an mcpprobe snapshot, wire --json output, or a wire --save directory)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "reference `FILE` (or wire --save directory)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			refSide, liveSide, err := diffSides(ctx, cmd)
			if err != nil {
				return err
			}
			r := diff.Compare(refSide, liveSide)
			var out bytes.Buffer
			if cmd.Bool("json") {
				out.Write(reports.DiffJSON(r, refSide.Label, liveSide.Label))
			} else {
				reports.Diff(&out, reports.Terminal, r, refSide.Label, liveSide.Label)
			}
			if err := write(cmd, cmd.Root().Writer, nil, out.Bytes()); err != nil {
				return err
			}
			cats := map[string]int{}
			if r.Drift() {
				cats["drift"] = len(r.Changes) + len(r.ToolsAdded) + len(r.ToolsRemoved)
			}
			return gate(cmd, nil, cats)
		},
	}
}

// diffSides resolves what to compare: --ref FILE against the target, or
// A -- B, each of which may be a reference file or a live target.
func diffSides(ctx context.Context, cmd *cli.Command) (diff.Side, diff.Side, error) {
	head := cmd.Args().Slice()
	tail, dashes := afterDashes(ctx)
	if ref := cmd.String("ref"); ref != "" {
		refSide, err := diff.LoadPath(ref)
		if err != nil {
			return diff.Side{}, diff.Side{}, usageErr("--ref: %v", err)
		}
		live, err := side(ctx, cmd, append(head, tail...))
		return refSide, live, err
	}
	if !dashes && len(head) == 2 {
		head, tail = head[:1], head[1:]
	} else if !dashes || len(head) == 0 || len(tail) == 0 {
		return diff.Side{}, diff.Side{}, usageErr("diff needs --ref FILE TARGET, or A -- B (two targets or reference files)")
	}
	a, err := side(ctx, cmd, head)
	if err != nil {
		return diff.Side{}, diff.Side{}, err
	}
	b, err := side(ctx, cmd, tail)
	return a, b, err
}

// side is a reference file when args is one existing path that reads as
// one, and a live target otherwise.
func side(ctx context.Context, cmd *cli.Command, args []string) (diff.Side, error) {
	if len(args) == 1 {
		if st, err := os.Stat(args[0]); err == nil && (st.IsDir() || st.Mode()&0o111 == 0) {
			s, err := diff.LoadPath(args[0])
			if err != nil {
				return diff.Side{}, usageErr("%v", err)
			}
			return s, nil
		}
	}
	s, err := probeArgs(ctx, cmd, cmd.Root().ErrWriter, args)
	if err != nil {
		return diff.Side{}, err
	}
	return diff.FromCapture(s.capture, s.target.Display()), nil
}

func snapshotCommand() *cli.Command {
	return &cli.Command{
		Name:      "snapshot",
		Before:    beforeNoGates,
		Usage:     "pin today's definitions in a lock file (diff --ref it later)",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			s, err := probeTarget(ctx, cmd, cmd.Root().ErrWriter)
			if err != nil {
				return err
			}
			return write(cmd, cmd.Root().Writer, s.redact, diff.Snapshot(s.capture))
		},
	}
}
