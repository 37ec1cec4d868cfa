package main

import (
	"bytes"
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write the markdown report a team commits beside its server",
		ArgsUsage: "./server | -- CMD ARGS… | --config FILE NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "date", Usage: "the `YYYY-MM-DD` the report is dated (default today), for reproducible reports"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			s, err := probeTarget(ctx, cmd, cmd.Root().ErrWriter)
			if err != nil {
				return err
			}
			h := header(s)
			h.Date = cmd.String("date")
			if h.Date == "" {
				h.Date = time.Now().Format("2006-01-02")
			}
			var b bytes.Buffer
			if cmd.Bool("json") {
				b.Write(reports.CaptureJSON(s.capture, h))
			} else {
				reports.Report(&b, s.capture, h)
			}
			if err := write(cmd, cmd.Root().Writer, s.redact, b.Bytes()); err != nil {
				return err
			}
			return gate(cmd, s.capture.Findings)
		},
	}
}
