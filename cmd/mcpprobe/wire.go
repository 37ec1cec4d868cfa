package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func wireCommand() *cli.Command {
	return &cli.Command{
		Name:      "wire",
		Before:    before(),
		Usage:     "capture everything a server sends, byte for byte",
		ArgsUsage: "./server | -- CMD ARGS… | --config FILE NAME | --config FILE --all",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "save", Usage: "write the raw bytes of each response into `DIR`, one file per page"},
		}, wholeConfigFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			all, err := wantsAll(ctx, cmd)
			if err != nil {
				return err
			}
			if all {
				return runAll(ctx, cmd, nil, "")
			}
			if dir := cmd.String("save"); cmd.IsSet("save") {
				if st, err := os.Stat(dir); dir == "" || (err == nil && !st.IsDir()) {
					return usageErr("--save %s: want a folder to write the responses into", dir)
				}
			}
			tf, err := openTrace(cmd)
			if err != nil {
				return err
			}
			o, err := wireOptions(cmd, targetArgs(ctx, cmd), tf)
			if err != nil {
				tf.close()
				return err
			}
			r, err := wire.Run(ctx, o)
			tf.close()
			if err != nil {
				// With --json, a server that could not be probed still
				// gets what was received before it failed.
				ferr := failure(err)
				if r != nil && cmd.Bool("json") {
					o := wireOutcome(r)
					o.fail = failureOf(ferr)
					_ = emit(cmd, o)
				}
				return ferr
			}
			if dir := cmd.String("save"); dir != "" {
				if len(r.Pages()) == 0 {
					return usageErr("--save: nothing to save")
				}
				if err := save(dir, r.Pages(), cmd.Root().ErrWriter); err != nil {
					return writeFailed(cmd, "--save "+dir, err)
				}
			}
			return emit(cmd, wireOutcome(r))
		},
	}
}

func wireOutcome(r *wire.Result) outcome {
	c := r.Capture
	return outcome{command: "wire", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return reports.WireSection(c) },
		text:    func(w io.Writer) { reports.WireText(w, r) }}
}

// save writes each response into dir exactly as received (wire.Result's
// Pages), but for a secret of the run, which is hidden, and said so.
func save(dir string, pages []wire.SavedPage, stderr io.Writer) error {
	if len(pages) == 0 {
		return errors.New("nothing to save")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range pages {
		raw, redacted := redactor().Bytes(p.Raw)
		if redacted {
			fmt.Fprintf(stderr, "mcpprobe: %s held a secret given with --env or a header; it is saved with *** in its place, so it is no longer the exact bytes\n", p.Name)
		}
		if err := writeOutput(filepath.Join(dir, p.Name), raw); err != nil {
			return err
		}
	}
	return nil
}
