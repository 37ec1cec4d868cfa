package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
)

// specFromFlags fills a dial.Spec from the target words (or --config)
// and the global flags, refusing what cannot apply to the target's kind.
func (rs *runState) specFromFlags(cmd *cli.Command, args []string) (dial.Spec, error) {
	t, err := rs.resolveTarget(cmd, args)
	if err != nil {
		return dial.Spec{}, err
	}
	if t.Kind == "stdio" && len(t.Headers) > 0 {
		return dial.Spec{}, usageErr("headers (-H, --header-env) apply to URL targets; a command gets --env")
	}
	if t.Kind == "stdio" {
		for _, f := range []string{"transport", "insecure"} {
			if cmd.IsSet(f) {
				return dial.Spec{}, usageErr("--%s applies to URL targets; %s is a command", f, t.Display())
			}
		}
	}
	if t.Kind != "stdio" && len(cmd.StringSlice("env")) > 0 {
		return dial.Spec{}, usageErr("--env applies to commands; a URL target gets headers (-H, --header-env)")
	}
	if t.Kind != "stdio" && cmd.Bool("inherit-env") {
		return dial.Spec{}, usageErr("--inherit-env applies to commands: it is the environment a spawned server gets")
	}
	host, err := rs.oauthHost(cmd, t)
	if err != nil {
		return dial.Spec{}, err
	}
	rs.intr.target.Store(t.Display())
	po := probeOptions(cmd)
	po.MaxPages = int(cmd.Int("max-pages"))
	po.Phase = rs.probePhase(cmd)
	return dial.Spec{Target: t, Launch: rs.launchOptions(cmd), Probe: po, OAuth: host}, nil
}

// emit is the one output path of every command: --json gets the envelope
// with the command's section, anything else the text; then --fail-on is
// applied, and a tripped gate is listed in the JSON it exits 1 for.
func (rs *runState) emit(cmd *cli.Command, res reports.Result) error {
	// What the launcher found when it let servers go that no analysis
	// reported (a process that escaped a server's group, a server past
	// --max-bytes, in a command that drives servers without a capture):
	// findings of this run like any other.
	extra := rs.letGo(res.Findings())
	fs := append(append([]findings.Finding(nil), res.Findings()...), extra...)
	gates := splitList(cmd.StringSlice("fail-on"))
	tripped := findings.Trip(gates, fs, res.Counts())
	var out []byte
	fail := res.Failure()
	if sig := rs.interruptedBy(); sig != "" {
		fail = rs.interruptedFailure(sig, "what this envelope holds was gathered before the interrupt, and is partial")
	}
	if cmd.Bool("json") {
		out = envelopeOf(res, fs, gates, tripped, fail)
	} else {
		var b bytes.Buffer
		if sig := rs.interruptedBy(); sig != "" {
			fmt.Fprintf(&b, "INTERRUPTED (%s): what follows is partial.\n\n", sig)
		}
		s := rs.screenFor(cmd, &b)
		if res.Markdown() {
			s = &terminal.Screen{W: &b, Verbose: cmd.Bool("verbose")} // markdown is for a file, whatever the terminal
		}
		res.Text(s)
		if len(extra) > 0 {
			st := terminal.Terminal
			if res.Command() == "report" {
				st = terminal.Markdown
			}
			writeLetGo(&b, st, extra)
		}
		out = terminal.Fit(b.Bytes(), s.Width)
	}
	rs.clearStatus() // the progress line goes before the output comes
	if !rs.intr.printing.CompareAndSwap(false, true) {
		return nil // the interrupt printed the failure envelope first
	}
	if err := rs.write(cmd, cmd.Root().Writer, nil, out); err != nil {
		return err
	}
	rs.intr.emitted.Store(true)
	if len(tripped) > 0 {
		return &exitError{code: exitGate, msg: "--fail-on tripped: " + findings.Describe(tripped)}
	}
	return nil
}

// letGo is what the launcher found when it let the run's servers go that
// the run's own findings lack.
func (rs *runState) letGo(have []findings.Finding) []findings.Finding {
	codes := map[findings.Code]bool{}
	for _, f := range have {
		codes[f.Code] = true
	}
	var extra []findings.Finding
	for _, f := range rs.launched.Findings() {
		if !codes[f.Code] {
			extra = append(extra, f)
		}
	}
	return extra
}

// writeLetGo writes letGo's findings after a command's output; report
// --check writes them the same way, so a report that has them stays
// current.
func writeLetGo(w io.Writer, st terminal.Style, extra []findings.Finding) {
	fmt.Fprintln(w, "\nFound when the servers were let go:")
	reports.Findings(w, st, findings.Sorted(extra))
}

// envelopeOf is what --json prints: the envelope of res, with fs as its
// findings and fail as its error member, then res's section.
func envelopeOf(res reports.Result, fs []findings.Finding, gates []string, tripped []findings.Tripped, fail *jsonout.Failure) []byte {
	env := jsonout.Envelope{Version: version, Command: res.Command(), Target: res.Target(), ProtocolVersion: res.Protocol(),
		Findings: findings.Sorted(fs), Gates: gates, Tripped: tripped, Error: fail}
	return env.JSON(res.Section())
}

// failure maps a domain error to the CLI's exit codes: what the user asked
// for is a usage error (2), a server that could not be probed is 3.
func (rs *runState) failure(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	var oe *probe.OptionError
	if errors.As(err, &oe) {
		return usageErr("%s", oe.Msg)
	}
	return rs.cannotProbe(err, nil)
}

// before is every command's Before: the run notes which command it is
// in, then makes the checks no one flag's Validator can: a combination of
// values that cannot hold, an output path that is an input.
func (rs *runState) before(ctx context.Context, cmd *cli.Command) (context.Context, error) {
	rs.intr.command.Store(cmd.Name)
	rs.intr.leaf.Store(cmd)
	if err := checkValues(cmd); err != nil {
		return ctx, err
	}
	return ctx, checkPaths(rs.targetArgs(cmd), cmd)
}
