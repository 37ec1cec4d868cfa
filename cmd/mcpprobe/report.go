package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/call"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/report"
	callresult "github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
)

func (rs *runState) reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Before:    rs.before,
		Usage:     "write the markdown report a team commits beside its server",
		ArgsUsage: "./server | -- CMD ARGS… | --config FILE NAME | --config FILE --all",
		Flags: flags(append(append(hostFlags(),
			&cli.StringFlag{Name: "ref", Usage: "reference `FILE` (or wire --save directory): adds a diff section"},
			&cli.BoolFlag{Name: "faults", Usage: "add a faults section (a crash, with and without restart, a slow reply, stray stdout text under each client policy; takes a few seconds)"},
			&cli.BoolFlag{Name: "malformed", Usage: "add a malformed-calls section"},
			&cli.BoolFlag{Name: "bench", Usage: "add a latency section (startup over 5 fresh processes, 100 calls per read-only tool); its figures vary run to run"},
			&cli.StringFlag{Name: "date", Usage: "the `YYYY-MM-DD` the report is dated (default today), for reproducible reports"},
			&cli.GenericFlag{Name: "call", Value: &repeatedFlag{}, Usage: "`NAME=ARGS`: call tool NAME with the JSON arguments ARGS (or NAME alone: none) and add a Calls section (repeatable)"},
			&cli.BoolFlag{Name: "auth", Usage: "add an Authorization section for a URL target: the auth audit's table when the endpoint answers 401 without a token, a not-protected line otherwise (on when an Authorization header is given)"},
			&cli.StringFlag{Name: "check", Usage: "compare a fresh report with the committed `FILE`, ignoring the date and the version of mcpprobe that wrote it; exit 1 with a unified diff when it is stale"},
		), wholeConfigFlags()...), targetFlags(), boundFlags(), without(outputFlags(), "no-color", "wide"), gateFlags("report", "cut", "schema-drop", "lint-error", "lint-warning")),
		Action: rs.runReport,
	}
}

// runReport is report's Action: the probe, the sections asked for, then
// the report printed, written or checked against the committed one.
func (rs *runState) runReport(ctx context.Context, cmd *cli.Command) error {
	hc, err := hostChoice(cmd)
	if err != nil {
		return err
	}
	all, err := rs.wantsAll(ctx, cmd)
	if err != nil {
		return err
	}
	o := report.Options{Hosts: hc.Selected, Ref: cmd.String("ref"), Date: cmd.String("date"), Filter: rs.configFilter(ctx, cmd)}
	if wd, err := os.Getwd(); err == nil {
		o.Root, o.WorkDir = launch.RepositoryRoot(wd), wd
	}
	committed, err := reportDate(cmd, &o)
	if err != nil {
		return err
	}
	if all {
		if cmd.Bool("auth") {
			return usageErr("--auth audits one URL target: drop --all, or name one server of the config")
		}
		return rs.runAll(ctx, cmd, hc.Selected, o.Date)
	}
	tf, err := rs.openTraces(cmd)
	if err != nil {
		return err
	}
	defer tf.close()
	if o.Options, err = rs.wireOptions(cmd, rs.targetArgs(cmd), tf); err != nil {
		return err
	}
	// The probe is connection 1; each server the optional sections
	// start takes the next number.
	o.Spec.Launch.Record = tf.recorder()
	done, err := rs.reportSections(cmd, &o, hc)
	defer done()
	if err != nil {
		return err
	}
	r, err := report.Run(ctx, o)
	if err != nil {
		return rs.failure(err)
	}
	if committed != nil {
		return rs.checkReport(cmd, r, committed)
	}
	return rs.emit(cmd, reports.NewReport(r, version))
}

// reportDate sets the date the report is dated: --date, else that of the
// committed report --check reads (returned), else today.
func reportDate(cmd *cli.Command, o *report.Options) ([]byte, error) {
	var committed []byte
	if file := cmd.String("check"); file != "" {
		if cmd.Bool("json") || cmd.String("out") != "" {
			return nil, usageErr("--check compares the markdown report: drop --json and --out")
		}
		var err error
		if committed, err = inputfile.Read(file, inputfile.MaxReport); err != nil {
			return nil, usageErr("--check: %v", err)
		}
		// A fresh report dated like the committed one compares equal.
		if o.Date == "" {
			o.Date = reports.ReportDate(committed)
		}
	}
	if o.Date == "" {
		o.Date = time.Now().Format("2006-01-02")
	} else if _, err := time.Parse("2006-01-02", o.Date); err != nil {
		return nil, usageErr("--date %q: want YYYY-MM-DD", o.Date)
	}
	return committed, nil
}

// reportSections adds the optional sections asked for; done ends the
// progress of a bench section.
func (rs *runState) reportSections(cmd *cli.Command, o *report.Options, hc hosts.Choice) (done func(), err error) {
	done = func() {}
	if cmd.Bool("bench") {
		prog := rs.progressBar(cmd)
		done = prog.Done
		o.Bench = &bench.Options{Startup: 5, N: 100, Warmup: 10, Concurrency: 1, AutoCalls: true,
			Hosts: hc.Each(), Progress: prog.Report}
	}
	if cmd.Bool("faults") {
		o.Faults = &faults.ScenarioOptions{Progress: rs.newFaultsProgress(cmd).step}
	}
	if cmd.Bool("malformed") {
		o.Malformed = &malformed.Options{Progress: rs.caseProgress(cmd, cmd.Duration("timeout"))}
	}
	if o.Calls, err = reportCalls(cmd); err != nil {
		return done, err
	}
	o.Auth, err = rs.auditOptions(cmd, o.Spec.Target, true)
	return done, err
}

// auditOptions are the authorization audit's options for a URL target
// (report's Authorization section, check --auth): asked with --auth, or,
// when auto, as soon as the target carries an Authorization header; its
// bearer token is the audit's baseline. nil when not asked; --auth on a
// command target is refused.
func (rs *runState) auditOptions(cmd *cli.Command, t launch.Target, auto bool) (*authz.Options, error) {
	bearer, hasAuth := "", false
	for _, h := range t.Headers {
		name, value, _ := strings.Cut(h, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Authorization") {
			hasAuth = true
			if scheme, tok, ok := strings.Cut(strings.TrimSpace(value), " "); ok && strings.EqualFold(scheme, "bearer") {
				bearer = strings.TrimSpace(tok)
			}
		}
	}
	switch {
	case t.URL == "" && cmd.Bool("auth"):
		return nil, usageErr("--auth audits a URL target's authorization; this target is a command")
	case t.URL == "" || (!cmd.Bool("auth") && !(auto && hasAuth)):
		return nil, nil
	}
	o := &authz.Options{URL: t.URL, Token: bearer, Timeout: cmd.Duration("timeout"), Insecure: cmd.Bool("insecure"), UserAgent: "mcpprobe/" + version,
		Classify: rs.classify}
	if st := rs.statusFor(cmd); st.On() {
		o.Progress = func(id string) { st.Step("auth probe " + id) }
	}
	return o, nil
}

// reportCalls are the tools --call asks the Calls section to call.
func reportCalls(cmd *cli.Command) ([]call.Options, error) {
	var calls []call.Options
	for _, c := range repeated(cmd, "call") {
		name, args, _ := strings.Cut(c, "=")
		if strings.TrimSpace(name) == "" {
			return nil, usageErr("--call %q: want NAME=ARGS, such as 'search_orders={\"q\":\"late\"}'", c)
		}
		co := call.Options{Kind: callresult.KindTool, Name: name}
		if args != "" {
			if !jsonObject(args) {
				return nil, usageErr("--call %s: the arguments %q are not a JSON object", name, args)
			}
			co.Args = []byte(args)
		}
		calls = append(calls, co)
	}
	return calls, nil
}

// What report --check prints of a stale report's diff at most: enough to
// see what changed, since the fix is to regenerate the file anyway.
const (
	checkLineRunes = 2000
	checkLines     = 2000
)

// checkReport prints a unified diff and exits 1 when the committed report
// is stale. When it is current it prints nothing, or, when another
// version of mcpprobe wrote it, a note saying so on stderr: the version
// in the header is not content, and an upgrade alone must not fail CI.
func (rs *runState) checkReport(cmd *cli.Command, r *report.Result, committed []byte) error {
	var fresh bytes.Buffer
	reports.ReportMarkdown(&terminal.Screen{W: &fresh, Verbose: cmd.Bool("verbose")}, r, version)
	if extra := rs.letGo(r.Findings()); len(extra) > 0 {
		writeLetGo(&fresh, terminal.Markdown, extra)
	}
	d := reports.Check(committed, fresh.Bytes())
	if d == "" {
		if was := reports.ReportVersion(committed); was != "" && was != version {
			fmt.Fprintf(cmd.Root().ErrWriter, "%s: content unchanged; written by mcpprobe %s, this is %s\n", cmd.String("check"), was, version)
		}
		return nil
	}
	d = strings.Replace(d, "--- committed\n", "--- "+cmd.String("check")+" (committed)\n", 1)
	d = strings.Replace(d, "+++ fresh\n", "+++ "+cmd.String("check")+" (fresh)\n", 1)
	// The diff quotes the committed file, which a pull request controls:
	// escaped, so that its lines cannot drive the terminal, and bounded.
	d = terminal.TerminalLines(d, checkLineRunes, checkLines)
	d = reports.FitDiff(d, rs.screenFor(cmd, cmd.Root().Writer).Width) // on a terminal, to its width
	if _, err := io.WriteString(cmd.Root().Writer, d); err != nil {
		return err
	}
	return &exitError{code: exitGate, msg: fmt.Sprintf("%s is stale: regenerate it with the same arguments and --out %s instead of --check", cmd.String("check"), cmd.String("check"))}
}
