package faults

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
)

// Options are one faults run as the user asked for it: the target, what to
// inject, and how the client behaves.
type Options struct {
	// Spec is the target and how to start and speak to it. Every server
	// of the run (the one that picks the calls, one per start and restart
	// under each policy, the two that measure shutdown) is started with
	// Spec.Launch: a trace of the run would be given there.
	Spec     dial.Spec
	Plan     Plan
	Policies []Policy // one run per client policy, in this order; none: Spec alone
	// Calls are the tools to call, round robin; a call without Args gets
	// minimal valid arguments from the tool's input schema. None: every
	// tool annotated read-only.
	Calls   []Call
	N       int  // calls per run; 0 only starts the server and measures shutdown
	Restart bool // respawn on a closed connection and retry the failed call once
	// Progress, if set, is told each step as it starts.
	Progress func(step string)
}

// Result is a faults run: what each client policy saw, and how the server
// took being shut down.
type Result struct {
	ProtocolVersion string // negotiated by the probe that picked the calls
	Plan            string // the faults, described
	Restart         bool
	N               int
	Runs            []ClientRun // one per policy, in the order asked
	// Shutdown is measured for a command only; nil for a URL, or when
	// the server would not start for it.
	Shutdown *Shutdown
	Grace    time.Duration // what Shutdown waited at each step
}

// Findings are the run's judgements of the server: how it takes a host
// shutting it down, and a restart that did not bring it back. What the
// injected faults did is the run's data, not a finding.
func (r *Result) Findings() []findings.Finding {
	fs := restartFindings(r.Runs)
	if r.Shutdown != nil {
		fs = append(fs, r.Shutdown.Findings(r.Grace)...)
	}
	return fs
}

// Counts are the gates faults counts outside findings: none.
func (r *Result) Counts() map[string]int { return nil }

// Findings judge a measured shutdown: a host closes stdin and expects an
// exit, then sends SIGTERM, then SIGKILL.
func (sd Shutdown) Findings(grace time.Duration) []findings.Finding {
	var fs []findings.Finding
	switch sd.StdinCloseSignal {
	case "SIGTERM":
		fs = append(fs, findings.New(findings.IgnoresStdinClose, "the server was still running %v after its stdin closed and needed SIGTERM; hosts expect it to exit when stdin closes", grace))
	case "SIGKILL":
		fs = append(fs, findings.New(findings.NeedsSigkill, "the server ignored stdin closing and SIGTERM (%v each) and had to be killed with SIGKILL", grace))
	}
	// SIGKILL after stdin closed already says SIGTERM was not enough.
	if !sd.SigtermExited && sd.StdinCloseSignal != "SIGKILL" {
		fs = append(fs, findings.New(findings.IgnoresSigterm, "the server, sent SIGTERM with its stdin open, was still running %v later; only SIGKILL ends it", grace))
	}
	return fs
}

// restartFindings says where a restart did not bring the server back.
func restartFindings(runs []ClientRun) []findings.Finding {
	var fs []findings.Finding
	seen := map[string]bool{}
	for _, r := range runs {
		for _, f := range r.Failures {
			if f.RestartError == "" || seen[f.RestartError] {
				continue
			}
			seen[f.RestartError] = true
			at := fmt.Sprintf("after call %d", f.Call)
			if f.Call == 0 {
				at = "after its handshake failed"
			}
			fs = append(fs, findings.New(findings.RestartFailed, "restarted %s, the server did not come back: %s", at, f.RestartError))
		}
	}
	return fs
}

// ErrNoCall is why a run has nothing to call: the server annotates no
// tool read-only, and none was named. It is a *probe.OptionError, and
// errors.Is finds it.
var ErrNoCall error = &probe.OptionError{Msg: "no tool to call: the server annotates none read-only; name one with --call"}

// Run picks the calls with one clean probe, makes them under the plan as
// a client of each policy, and, for a command, measures how it takes
// being shut down. A plan or a call that cannot be had is a
// *probe.OptionError; a server that cannot be probed, a
// *probe.FatalError.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Plan.Check(InShim); err != nil {
		return nil, probe.Optionf("%v", err)
	}
	if isURL(o.Spec) {
		if err := o.Plan.CheckURL(o.Restart); err != nil {
			return nil, probe.Optionf("%v", err)
		}
	}
	policies := o.Policies
	if len(policies) == 0 {
		policies = []Policy{Spec}
	}
	if o.N < 0 {
		return nil, probe.Optionf("%d calls: want 0 or more", o.N)
	}
	res := &Result{Plan: o.Plan.String(), Restart: o.Restart, N: o.N, Grace: grace(o.Spec)}
	o.progress("picking the calls")
	calls, version, err := pickCalls(ctx, o.Spec, o.Calls)
	if err != nil {
		return nil, err
	}
	res.ProtocolVersion = version
	start := LaunchStarter(o.Spec)
	for i, pol := range policies {
		o.progress(fmt.Sprintf("run %d of %d: %s client", i+1, len(policies), pol))
		r, err := Drive(ctx, start, DriveOptions{Plan: o.Plan, Policy: pol, Calls: calls, N: o.N,
			Timeout: o.Spec.Probe.Timeout, Restart: o.Restart, Probe: o.Spec.Probe})
		// A server that failed its handshake with no fault at the opening
		// to explain it is one that cannot be probed; with one, that is
		// the outcome.
		if err != nil && len(r.Calls) == 0 && !o.Plan.ActsAtStart() {
			return nil, err
		}
		res.Runs = append(res.Runs, r)
	}
	if k := o.Spec.Target.Kind; k == "stdio" || k == "" {
		o.progress("measuring shutdown")
		sd, err := MeasureShutdown(ctx, o.Spec, res.Grace)
		if err == nil {
			res.Shutdown = &sd
		}
	}
	return res, nil
}

func (o Options) progress(step string) {
	if o.Progress != nil {
		o.Progress(step)
	}
}

// grace is the grace period the launcher gives the spec's servers.
func grace(s dial.Spec) time.Duration {
	if s.Launch.Grace > 0 {
		return s.Launch.Grace
	}
	return launch.DefaultGrace
}

// isURL: the target is a server mcpprobe reaches over HTTP and did not
// start, so it has no process to kill or restart.
func isURL(s dial.Spec) bool { return s.Target.Kind == "http" || s.Target.Kind == "sse" }

// LaunchStarter starts the target afresh each time, through the launcher;
// a crash kills a command's process group (Run refuses one for a URL).
func LaunchStarter(s dial.Spec) Starter {
	return func() (Server, error) {
		ss, err := dial.Start(context.Background(), s)
		if err != nil {
			return Server{}, err
		}
		return Server{Conn: ss.Conn(), Kill: ss.Server().Kill, Stop: func() { ss.Close() }, Explain: ss.Explain}, nil
	}
}

// pickCalls finds the calls with one clean probe: those named, with
// minimal arguments where none were given, or every tool annotated
// read-only. It returns the protocol version the probe negotiated.
func pickCalls(ctx context.Context, s dial.Spec, named []Call) ([]Call, string, error) {
	ss, err := dial.Open(ctx, s)
	if err != nil {
		return nil, "", err
	}
	defer ss.Close()
	cl := ss.Client
	cl.ListTools(ctx)
	asked := make([]args.Call, len(named))
	for i, c := range named {
		asked[i] = args.Call{Tool: c.Tool, Args: c.Args}
	}
	planned, _, err := args.Plan(cl.Capture, asked, len(named) == 0)
	if err != nil {
		return nil, "", probe.Optionf("%v", err)
	}
	if len(planned) == 0 {
		return nil, "", ErrNoCall
	}
	calls := make([]Call, len(planned))
	for i, c := range planned {
		calls[i] = Call{Tool: c.Tool, Args: c.Args}
	}
	return calls, cl.Capture.ProtocolVersion, nil
}

// ScenarioOptions are the report's fault scenarios: only the target; the
// scenarios and their calls are fixed.
type ScenarioOptions struct {
	Spec     dial.Spec
	Progress func(step string)
}

// Scenario is one fixed fault scenario and what a client saw of it.
type Scenario struct {
	Name    string
	Plan    string
	Restart bool
	Run     ClientRun
}

// ScenarioResult is the report's fault section.
type ScenarioResult struct {
	ProtocolVersion string
	N               int // calls per scenario
	Scenarios       []Scenario
	// NotRun names the scenarios left out for a URL target, whose faults
	// act on a process mcpprobe did not start, and why; "" when all ran.
	NotRun string
}

// Findings are the restarts that did not bring the server back.
func (r *ScenarioResult) Findings() []findings.Finding {
	var runs []ClientRun
	for _, s := range r.Scenarios {
		runs = append(runs, s.Run)
	}
	return restartFindings(runs)
}

// Counts are the gates the scenarios count outside findings: none.
func (r *ScenarioResult) Counts() map[string]int { return nil }

// scenario is one of the report's fixed fault scenarios.
type scenario struct {
	name    string
	faults  Values
	restart bool
	policy  Policy
	timeout time.Duration
}

// scenarios are the report's: a crash, with and without a restart, a
// reply slower than the client waits, and stray stdout text under each
// client policy.
func scenarios() []scenario {
	scs := []scenario{
		{"crash during call 3", Values{"crash-at": "3"}, false, Spec, 5 * time.Second},
		{"crash during call 3, client restarts", Values{"crash-at": "3"}, true, Spec, 5 * time.Second},
		{"call 2 held 2 s, client timeout 1 s", Values{"slow-at": "2", "delay": "2s"}, false, Spec, time.Second},
	}
	for _, p := range Policies {
		scs = append(scs, scenario{"stray stdout text glued to reply 2, " + string(p) + " client", Values{"pollute": "partial", "pollute-at": "2"}, false, p, time.Second})
	}
	return scs
}

// ScenarioCalls is how many calls each of the report's scenarios makes.
const ScenarioCalls = 5

// Scenarios runs the report's fault scenarios against the target, calling
// the tools annotated read-only (ErrNoCall, in a *probe.OptionError, when
// there is none).
func Scenarios(ctx context.Context, o ScenarioOptions) (*ScenarioResult, error) {
	calls, version, err := pickCalls(ctx, o.Spec, nil)
	if err != nil {
		return nil, err
	}
	res := &ScenarioResult{ProtocolVersion: version, N: ScenarioCalls}
	start := LaunchStarter(o.Spec)
	var left []string
	for i, sc := range scenarios() {
		plan, err := ParsePlan(sc.faults.Get, 1)
		if err != nil {
			panic(err) // the scenarios are fixed; a test parses them all
		}
		if isURL(o.Spec) && plan.CheckURL(sc.restart) != nil {
			left = append(left, sc.name)
			continue
		}
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("fault scenario %d of %d: %s", i+1, len(scenarios()), sc.name))
		}
		r, err := Drive(ctx, start, DriveOptions{Plan: plan, Policy: sc.policy, Calls: calls, N: ScenarioCalls,
			Timeout: sc.timeout, Restart: sc.restart, Probe: o.Spec.Probe})
		if err != nil && len(r.Calls) == 0 {
			return nil, err
		}
		res.Scenarios = append(res.Scenarios, Scenario{Name: sc.name, Plan: r.Plan, Restart: sc.restart, Run: r})
	}
	if len(left) > 0 {
		res.NotRun = fmt.Sprintf("not run for a URL target, whose process mcpprobe did not start (a crash would only end mcpprobe's own session, stray stdout text has no stdout to come from): %s", strings.Join(left, "; "))
	}
	return res, nil
}
