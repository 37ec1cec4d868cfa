package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
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
			hosts, err := selectHosts(cmd)
			if err != nil {
				return err
			}
			o := report.Options{Hosts: hosts.selected, Ref: cmd.String("ref"), Date: cmd.String("date")}
			if o.Date == "" {
				o.Date = time.Now().Format("2006-01-02")
			} else if _, err := time.Parse("2006-01-02", o.Date); err != nil {
				return usageErr("--date %q: want YYYY-MM-DD", o.Date)
			}
			tf, err := openTrace(cmd)
			if err != nil {
				return err
			}
			defer tf.close()
			if o.Options, err = wireOptions(cmd, targetArgs(ctx, cmd), tf); err != nil {
				return err
			}
			o.Extras = reportExtras(cmd, o.Target)
			r, err := report.Run(ctx, o)
			if err != nil {
				return failure(err)
			}
			return emit(cmd, reportOutcome(r))
		},
	}
}

func reportOutcome(r *report.Result) outcome {
	c := r.Wire.Capture
	return outcome{command: "report", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return reports.ReportSection(r) },
		text:    func(w io.Writer) { reports.ReportMarkdown(w, r, version) }}
}

// ---- Interim adapters (issue 10, wave 2) -----------------------------------
//
// report --bench, --faults and --malformed run the analyses of bench, faults
// and malformed, which are being made Options → Run → Result alongside this
// command. Until they land, these adapters call what cmd has today
// (benchForReport, faultScenarios, runMalformed) and wrap each as a
// report.Extra. After the merge, report.Run calls bench.Run, faults.Run and
// malformed.Run itself and everything below goes; nothing else calls it.

// reportExtras are the extra sections the flags ask for, in the report's
// order: latency, faults, malformed calls.
func reportExtras(cmd *cli.Command, t launch.Target) []report.Extra {
	s := &session{target: t, redact: transport.NewRedactor(t.Secrets)}
	var extras []report.Extra
	if cmd.Bool("bench") {
		extras = append(extras, report.Extra{Key: "bench", Run: func(ctx context.Context) (report.Section, error) {
			br, err := benchForReport(ctx, cmd, s)
			if err != nil {
				return report.Section{}, err
			}
			return report.Section{Title: "Latency",
				Markdown: func(w io.Writer) { writeBench(w, reports.Markdown, br) },
				JSON:     bytes.TrimSpace(reports.BenchJSON(br.res, br.overhead, br.vs, br.cmp))}, nil
		}})
	}
	if cmd.Bool("faults") {
		extras = append(extras, report.Extra{Key: "faults", Run: func(ctx context.Context) (report.Section, error) {
			rows, err := faultScenarios(ctx, cmd, s)
			var ee *exitError
			if errors.As(err, &ee) && ee.code == exitUsage {
				// No read-only tool to call: the section says so.
				const why = "the server annotates no tool read-only, and a report calls no other"
				return report.Section{Title: "Faults",
					Markdown: func(w io.Writer) {
						fmt.Fprintln(w, "Not run: "+why+". Run `mcpprobe faults --call NAME` to choose one.")
					},
					JSON: (&reports.Object{}).Set("not_run", why).Set("scenarios", []any{}).Bytes()}, nil
			}
			if err != nil {
				return report.Section{}, err
			}
			header := []string{"fault", "what a client saw (5 calls)", "detected after", "recovered"}
			var scenarios [][]byte
			for _, row := range rows {
				so := &reports.Object{}
				for i, k := range []string{"fault", "seen", "detected_after", "recovered"} {
					// The row is markdown cells; JSON gets the plain text.
					so.Set(k, strings.NewReplacer("`", "", `\|`, "|").Replace(row[i]))
				}
				scenarios = append(scenarios, so.Bytes())
			}
			return report.Section{Title: "Faults",
				Markdown: func(w io.Writer) {
					reports.Table(w, reports.Markdown, header, rows)
					fmt.Fprintln(w)
					fmt.Fprintln(w, "Clients: spec skips stray text and reports it; strict ends the session (the official Go SDK); lenient skips it (mcp-go); ts reports it and goes on (the TypeScript SDK).")
				},
				JSON: (&reports.Object{}).Set("not_run", nil).Raw("scenarios", reports.RawArray(scenarios)).Bytes()}, nil
		}})
	}
	if cmd.Bool("malformed") {
		extras = append(extras, report.Extra{Key: "malformed", Run: func(ctx context.Context) (report.Section, error) {
			mr, err := runMalformed(ctx, cmd)
			if err != nil {
				return report.Section{}, err
			}
			return report.Section{Title: "Malformed calls",
				Markdown: func(w io.Writer) { writeMalformed(w, reports.Markdown, mr) },
				JSON:     bytes.TrimSpace(reports.MalformedJSON(mr.results, mr.version))}, nil
		}})
	}
	return extras
}
