package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/survey"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
)

func (rs *runState) surveyCommand() *cli.Command {
	return &cli.Command{
		Name:   "survey",
		Before: rs.before,
		Usage:  "probe many servers (a fleet's JSON lines, host configs, registry server.json), one JSON line each",
		ArgsUsage: "INPUT… (JSON lines of {id, command, args, env, url, headers}, host config files, server.json)\n" +
			"   mcpprobe survey merge PART… -o FILE\n   mcpprobe survey summary RESULTS",
		// Local: merge and summary read results, and refuse (exit 2)
		// the flags of a run rather than take and ignore them.
		Flags: flags([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Local: true, Aliases: []string{"j"}, Value: survey.DefaultJobs, Usage: "servers probed at once"},
			&cli.BoolFlag{Name: "resume", Local: true, Usage: "skip the servers already in -o FILE (a partial last line is cut away), and append"},
			&cli.StringFlag{Name: "shard", Local: true, Usage: "run shard `I/N` of a partition by server id (FNV-1a of the id mod N, I from 0); /N takes I from JOB_COMPLETION_INDEX"},
			&cli.IntFlag{Name: "shards", Local: true, Usage: "`N` shards, this one's index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)"},
			&cli.DurationFlag{Name: "per-server-timeout", Local: true, Value: survey.DefaultPerServer, Usage: "wall-clock bound on each server's whole probe"},
			&cli.StringFlag{Name: "sandbox", Local: true, Usage: "wrap each server command in `CMD` (split in words, then the server's argv), e.g. 'docker run --rm -i img'; refused for URL entries"},
			&cli.StringSliceFlag{Name: "with", Local: true, Usage: "add `SECTION`s to wire and budget: bench, faults, malformed (repeatable, or comma-separated)"},
			&cli.StringFlag{Name: "hosts", Local: true, Usage: "host profiles `FILE` that replaces or extends the built-in ones"},
		}, only(targetFlags(), "protocol", "transport", "insecure"), boundFlags(), only(outputFlags(), "out", "quiet")),
		Commands: []*cli.Command{rs.surveyMergeCommand(), rs.surveySummaryCommand()},
		Action:   rs.runSurvey,
	}
}

func (rs *runState) runSurvey(ctx context.Context, cmd *cli.Command) error {
	o, err := rs.surveyOptions(ctx, cmd)
	if err != nil {
		return err
	}
	errw := cmd.Root().ErrWriter
	o.Notice = func(s string) { fmt.Fprintf(errw, "mcpprobe: %s\n", s) }
	st := rs.statusFor(cmd)
	if st.On() {
		start := time.Now()
		o.Progress = func(c survey.Tally) {
			st.Step(surveyProgress(c, time.Since(start)))
		}
	}
	res, err := survey.Run(ctx, o)
	rs.clearStatus()
	var ue *survey.UsageError
	var we *survey.WriteError
	switch {
	case errors.Is(err, survey.ErrInterrupted):
		fmt.Fprintf(errw, "mcpprobe: survey interrupted: %s; the servers in flight were not written, and --resume probes them\n", res.Describe())
		return nil // the signal's exit code is run's
	case errors.As(err, &ue):
		return usageErr("%s", ue.Msg)
	case errors.As(err, &we):
		return rs.writeFailed(cmd, we.What, we.Err)
	case err != nil:
		return err
	}
	// The totals are for a person at a terminal; a pipeline gets nothing
	// on stderr but what needs its attention: ids the input gave twice.
	// What only a host config as a whole shows (tools of two of its
	// servers that shadow each other) has no record of its own: it is said
	// here, always, since it needs a person's attention.
	for _, f := range res.Shadowing {
		fmt.Fprintf(errw, "mcpprobe: survey: %s: %s %s: %s\n", terminal.Escape(f.Config), f.Severity, f.Code, terminal.Escape(f.Message))
	}
	if st.On() {
		fmt.Fprintf(errw, "mcpprobe: survey: %s\n", res.Describe())
	} else if res.Dup > 0 {
		fmt.Fprintf(errw, "mcpprobe: survey: %d duplicate ids left out (the first of each was probed): %s\n", res.Dup, strings.Join(res.Duplicates, ", "))
	}
	return nil
}

// surveyOptions reads the flags of a run; survey.Run checks what they
// ask together.
func (rs *runState) surveyOptions(ctx context.Context, cmd *cli.Command) (survey.Options, error) {
	o := survey.Options{
		Inputs: rs.targetArgs(cmd), Jobs: int(cmd.Int("jobs")), PerServer: cmd.Duration("per-server-timeout"),
		With: splitList(cmd.StringSlice("with")), Launch: rs.launchOptions(cmd), Probe: probeOptions(cmd),
		Out: cmd.String("out"), Resume: cmd.Bool("resume"), Stdout: cmd.Root().Writer,
		Encode: func(r *survey.Record) []byte { return reports.SurveyLine(version, r) },
	}
	if len(o.Inputs) == 0 {
		return o, usageErr("survey needs at least one input: a JSON-lines file of servers, a host config file, or a server.json")
	}
	if o.Jobs < 1 {
		return o, usageErr("--jobs %d: give at least 1", o.Jobs)
	}
	if o.PerServer <= 0 {
		return o, usageErr("--per-server-timeout %v: give a positive duration", o.PerServer)
	}
	var err error
	if o.Shard, err = survey.ParseShard(cmd.String("shard"), int(cmd.Int("shards")), rs.getenv("JOB_COMPLETION_INDEX")); err != nil {
		return o, usageErr("%v", err)
	}
	if cmd.IsSet("sandbox") {
		if o.Sandbox, err = survey.ParseSandbox(cmd.String("sandbox")); err != nil {
			return o, usageErr("%v", err)
		}
	}
	hc, err := hostChoice(cmd)
	if err != nil {
		return o, err
	}
	o.Hosts = hc.Known
	if o.Out == "-" {
		o.Out = ""
	}
	o.Probe.MaxPages = int(cmd.Int("max-pages"))
	if !cmd.IsSet("max-bytes") {
		// What a server sent is kept whole until the record is written,
		// so --jobs servers at --max-bytes each is the survey's memory:
		// 256 MiB each would let eight floods hold 2 GiB.
		o.Launch.MaxBytes = survey.DefaultMaxBytes
	}
	return o, nil
}

// surveyProgress is the progress line's text: counts, rate and, once the
// input has been read to its end, the time left.
func surveyProgress(c survey.Tally, elapsed time.Duration) string {
	s := fmt.Sprintf("%d done · %d failed · %d in flight", c.Done, c.Failed, c.InFlight)
	if c.Done > 0 && elapsed > 0 {
		rate := float64(c.Done) / elapsed.Seconds()
		s += fmt.Sprintf(" · %.1f/s", rate)
		if left := c.Total - c.Done; c.Total > 0 && left > 0 {
			// Servers are still running: "ETA 0s" would say they are not.
			eta := max(time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second), time.Second)
			s += fmt.Sprintf(" · ETA %s", eta)
		}
	}
	if c.Total > 0 {
		s = fmt.Sprintf("%d/%d · ", c.Done, c.Total) + strings.TrimPrefix(s, fmt.Sprintf("%d done · ", c.Done))
	}
	return s
}

func (rs *runState) surveyMergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Before:    rs.before,
		Usage:     "combine the parts of a sharded survey into one file, refusing overlaps and gaps",
		Flags:     only(outputFlags(), "out", "quiet"),
		ArgsUsage: "PART… -o FILE",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			parts := rs.targetArgs(cmd)
			if len(parts) == 0 {
				return usageErr("survey merge needs the part files: survey merge part-*.jsonl -o results.jsonl")
			}
			path := cmd.String("out")
			if path == "" || path == "-" {
				// Merge checks every part before it writes a byte, so
				// stdout gets all of it or nothing.
				res, err := survey.Merge(parts, cmd.Root().Writer)
				if err != nil {
					return rs.mergeErr(cmd, err)
				}
				mergeDone(cmd, res)
				return nil
			}
			var res survey.MergeResult
			var merr error
			err := writeOutputWith(path, func(w io.Writer) error {
				res, merr = survey.Merge(parts, w)
				return merr
			})
			switch {
			case merr != nil:
				return rs.mergeErr(cmd, merr)
			case err != nil:
				return rs.writeFailed(cmd, "-o "+path, err)
			}
			mergeDone(cmd, res)
			return nil
		},
	}
}

// mergeDone tells what the merge took in, unless --quiet: a script that
// merges has the file, and may want nothing on stderr.
func mergeDone(cmd *cli.Command, res survey.MergeResult) {
	if !cmd.Bool("quiet") {
		fmt.Fprintf(cmd.Root().ErrWriter, "mcpprobe: survey merge: %s\n", res.Describe())
	}
}

// mergeErr: parts that cannot be merged are the user's to fix (exit 2);
// a write that failed is exit 4, as for every output.
func (rs *runState) mergeErr(cmd *cli.Command, err error) error {
	var me *survey.MergeError
	var pe *os.PathError
	if errors.As(err, &me) || errors.As(err, &pe) && pe.Op != "write" {
		return usageErr("survey merge: %v", err)
	}
	return rs.writeFailed(cmd, "the output", err)
}

func (rs *runState) surveySummaryCommand() *cli.Command {
	return &cli.Command{
		Name:      "summary",
		Before:    rs.before,
		Usage:     "a markdown census of a survey's results",
		Flags:     only(outputFlags(), "out"),
		ArgsUsage: "RESULTS… (> SURVEY.md, or -o SURVEY.md)",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			files := rs.targetArgs(cmd)
			if len(files) == 0 {
				return usageErr("survey summary needs a results file: survey summary results.jsonl > SURVEY.md")
			}
			c, err := survey.Summarize(files)
			if err != nil {
				return usageErr("survey summary: %v", err)
			}
			var b bytes.Buffer
			reports.SurveySummary(&b, c)
			return rs.write(cmd, cmd.Root().Writer, nil, b.Bytes())
		},
	}
}
