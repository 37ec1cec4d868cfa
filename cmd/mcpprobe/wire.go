package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func wireCommand() *cli.Command {
	return &cli.Command{
		Name:      "wire",
		Before:    before(),
		Usage:     "capture everything a server sends, byte for byte",
		ArgsUsage: "./server | -- CMD ARGS… | --config FILE NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "save", Usage: "write the raw bytes of each response into `DIR`, one file per page"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			s, err := probeTarget(ctx, cmd, cmd.Root().ErrWriter)
			if err != nil {
				if s != nil && s.capture != nil && cmd.Bool("json") {
					_ = write(cmd, cmd.Root().Writer, s.redact, reports.CaptureJSON(s.capture, header(s)))
				}
				return err
			}
			if dir := cmd.String("save"); dir != "" {
				if err := save(dir, s.capture, cmd.Root().ErrWriter); err != nil {
					return &exitError{code: exitUsage, msg: "--save: " + err.Error()}
				}
			}
			var out []byte
			if cmd.Bool("json") {
				out = reports.CaptureJSON(s.capture, header(s))
			} else {
				var b bytes.Buffer
				reports.Wire(&b, reports.Terminal, s.capture)
				fmt.Fprintln(&b)
				fmt.Fprintln(&b, "Findings:")
				reports.Findings(&b, reports.Terminal, s.capture.Findings)
				reports.Timings(&b, s.capture)
				out = b.Bytes()
			}
			if err := write(cmd, cmd.Root().Writer, s.redact, out); err != nil {
				return err
			}
			return gate(cmd, s.capture.Findings, nil)
		},
	}
}

func header(s *session) reports.Header {
	return reports.Header{Target: s.target.Display(), Version: version}
}

// save writes each response exactly as received: the handshake, then every
// page of every list, named so that ls shows them in protocol order.
func save(dir string, c *probe.Capture, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var pages []probe.Page
	if c.Handshake != nil {
		pages = append(pages, *c.Handshake)
	}
	for _, l := range []probe.List{c.Tools, c.Prompts, c.Resources, c.Templates} {
		pages = append(pages, l.Pages...)
	}
	if len(pages) == 0 {
		return errors.New("nothing to save")
	}
	for i, p := range pages {
		name := fmt.Sprintf("%02d-%s.%s.json", i, slug(p.Method), strconv.Itoa(p.N))
		raw, redacted := redactor().Bytes(p.Raw)
		if redacted {
			fmt.Fprintf(stderr, "mcpprobe: %s held a secret given with --env or a header; it is saved with *** in its place, so it is no longer the exact bytes\n", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func slug(method string) string {
	b := []byte(method)
	for i, c := range b {
		if c == '/' {
			b[i] = '-'
		}
	}
	return string(b)
}
