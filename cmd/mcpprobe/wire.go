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

func (rs *runState) wireCommand() *cli.Command {
	return &cli.Command{
		Name:      "wire",
		Before:    rs.before,
		Usage:     "capture everything a server sends, byte for byte",
		ArgsUsage: "./server | -- CMD ARGS… | --config FILE NAME | --config FILE --all",
		Flags: flags(append([]cli.Flag{
			&cli.StringFlag{Name: "save", Usage: "write the raw bytes of each response into `DIR`, one file per page"},
		}, wholeConfigFlags()...), probing("wire")...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			all, err := rs.wantsAll(ctx, cmd)
			if err != nil {
				return err
			}
			if all {
				return rs.runAll(ctx, cmd, nil, "")
			}
			if dir := cmd.String("save"); cmd.IsSet("save") {
				if st, err := os.Stat(dir); dir == "" || (err == nil && !st.IsDir()) {
					return usageErr("--save %s: want a folder to write the responses into", dir)
				}
			}
			tf, err := rs.openTrace(cmd)
			if err != nil {
				return err
			}
			o, err := rs.wireOptions(cmd, rs.targetArgs(cmd), tf)
			if err != nil {
				tf.close()
				return err
			}
			o.Cards = true
			r, err := wire.Run(ctx, o)
			tf.close()
			if err != nil {
				// With --json, a server that could not be probed still
				// gets what was received before it failed.
				ferr := rs.failure(err)
				if r != nil && cmd.Bool("json") {
					_ = rs.emit(cmd, reports.WithFailure(reports.NewWire(r), failureOf(ferr)))
				}
				return ferr
			}
			if dir := cmd.String("save"); dir != "" {
				if len(r.Pages()) == 0 {
					return usageErr("--save: nothing to save")
				}
				if err := rs.save(dir, r.Pages(), cmd.Root().ErrWriter); err != nil {
					return rs.writeFailed(cmd, "--save "+dir, err)
				}
			}
			return rs.emit(cmd, reports.NewWire(r))
		},
	}
}

// save writes each response into dir exactly as received (wire.Result's
// Pages), but for a secret of the run, which is hidden, and said so.
func (rs *runState) save(dir string, pages []wire.SavedPage, stderr io.Writer) error {
	if len(pages) == 0 {
		return errors.New("nothing to save")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range pages {
		raw, redacted := rs.redactor().Bytes(p.Raw)
		if redacted {
			fmt.Fprintf(stderr, "mcpprobe: %s held a secret given with --env or a header; it is saved with *** in its place, so it is no longer the exact bytes\n", p.Name)
		}
		if err := writeOutput(filepath.Join(dir, p.Name), raw); err != nil {
			return err
		}
	}
	return nil
}
