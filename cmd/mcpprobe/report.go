package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/diff"

	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Before:    before("cut", "schema-drop", "lint-error", "lint-warning"),
		Usage:     "write the markdown report a team commits beside its server",
		ArgsUsage: "./server | -- CMD ARGS… | --config FILE NAME",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "host", Usage: "`ID` or ID=CUT for the delivery section (repeatable); default every known host and all"},
			&cli.StringFlag{Name: "ref", Usage: "reference `FILE` (or wire --save directory): adds a diff section"},
			&cli.BoolFlag{Name: "faults", Usage: "add a faults section (a crash, with and without restart, a slow reply, stray stdout text under each client policy; takes a few seconds)"},
			&cli.BoolFlag{Name: "malformed", Usage: "add a malformed-calls section"},
			&cli.BoolFlag{Name: "bench", Usage: "add a latency section (startup over 5 fresh processes, 100 calls per read-only tool); its figures vary run to run"},
			&cli.StringFlag{Name: "hosts", Usage: "host profiles `FILE` that replaces or extends the built-in ones"},
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
			hosts, err := selectHosts(cmd)
			if err != nil {
				return err
			}
			br := analyseBudget(s.capture, hosts)
			all := append(append(append([]probe.Finding(nil), s.capture.Findings...), br.findings...), br.lint...)
			var sections []reports.Section
			if ref := cmd.String("ref"); ref != "" {
				refSide, err := diff.LoadPath(ref)
				if err != nil {
					return usageErr("--ref: %v", err)
				}
				d := diff.Compare(refSide, diff.FromCapture(s.capture, s.target.Display()))
				sections = append(sections, reports.Section{
					Title: "Diff against " + reports.Code(ref),
					Write: func(w io.Writer) { reports.Diff(w, reports.Markdown, d, ref, "the server") },
				})
			}
			if cmd.Bool("bench") {
				br, err := benchForReport(ctx, cmd, s)
				if err != nil {
					return err
				}
				sections = append(sections, reports.Section{
					Title: "Latency",
					Write: func(w io.Writer) { writeBench(w, reports.Markdown, br) },
				})
			}
			if cmd.Bool("faults") {
				rows, err := faultScenarios(ctx, cmd, s)
				var ee *exitError
				if errors.As(err, &ee) && ee.code == exitUsage {
					// No read-only tool to call: say so in the section.
					sections = append(sections, reports.Section{Title: "Faults", Write: func(w io.Writer) {
						fmt.Fprintln(w, "Not run: the server annotates no tool read-only, and a report calls no other. Run `mcpprobe faults --call NAME` to choose one.")
					}})
				} else if err != nil {
					return err
				} else {
					sections = append(sections, reports.Section{
						Title: "Faults",
						Write: func(w io.Writer) {
							reports.Table(w, reports.Markdown, []string{"fault", "what a client saw (5 calls)", "detected after", "recovered"}, rows)
							fmt.Fprintln(w)
							fmt.Fprintln(w, "Clients: spec skips stray text and reports it; strict ends the session (the official Go SDK); lenient skips it (mcp-go); ts reports it and goes on (the TypeScript SDK).")
						},
					})
				}
			}
			if cmd.Bool("malformed") {
				mr, err := runMalformed(ctx, cmd)
				if err != nil {
					return err
				}
				sections = append(sections, reports.Section{
					Title: "Malformed calls",
					Write: func(w io.Writer) { writeMalformed(w, reports.Markdown, mr) },
				})
			}
			var b bytes.Buffer
			if cmd.Bool("json") {
				b.Write(reports.CaptureJSON(s.capture, h))
			} else {
				delivery := reports.Section{
					Title: "Delivery by host",
					Write: func(w io.Writer) {
						reports.Delivery(w, reports.Markdown, br.result, s.capture)
						fmt.Fprintln(w)
						if br.tokens != nil {
							reports.Tokens(w, reports.Markdown, s.capture, *br.tokens)
						}
						fmt.Fprintf(w, "Host profiles measured %s; lengths in UTF-16 units; \"deferred\": the tool reaches the model only after a tool search.\n", hostsMeasured(br.result))
					},
				}
				reports.Report(&b, s.capture, h, reports.SortFindings(all), append([]reports.Section{delivery}, sections...)...)
			}
			if err := write(cmd, cmd.Root().Writer, s.redact, b.Bytes()); err != nil {
				return err
			}
			return gate(cmd, br.all(s.capture), nil)
		},
	}
}

// hostsMeasured is the range of dates the host profiles were measured on.
func hostsMeasured(r budget.Result) string {
	lo, hi := "", ""
	for _, hr := range r.Hosts {
		m := hr.Host.MeasuredOn
		if m == "" {
			continue
		}
		if lo == "" || m < lo {
			lo = m
		}
		if m > hi {
			hi = m
		}
	}
	if lo == hi {
		return lo
	}
	return lo + " to " + hi
}
