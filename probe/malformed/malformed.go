package malformed

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Options say which server to send malformed calls to: the embedded Spec
// (each start a fresh process or HTTP session), and the tools to derive
// cases from.
type Options struct {
	dial.Spec
	// Tools name the tools whose input schemas cases are derived from:
	// naming one is consent to call it. None means every tool the consent
	// rule allows (args.Choose: readOnlyHint true, no destructiveHint,
	// every hint a plain boolean), since a malformed call that a server
	// accepts anyway must not write.
	Tools []string
	// NoToolCalls calls no real tool: only the cases that need none are
	// sent (an unknown tool, bad frames, unknown methods).
	NoToolCalls bool
	// Listed, when not nil, is the server's whole tools list as a session
	// of the same version got it (check's): the cases' session is then
	// the only one opened before them, where otherwise a first one lists
	// the tools.
	Listed [][]byte
	// Started, when not nil, is a server already started (dial.Start,
	// with this Spec) for the cases' session: it booted while the caller
	// did other work. Run takes it over, and closes it.
	Started *dial.Session
	// Args, by tool name, are the valid arguments of a named tool's
	// baseline call, where its cases start; a tool without an entry has
	// both built from its schema.
	Args map[string][]byte
	// Progress, if set, hears each case as it is sent: its name, the
	// cases done and the cases planned so far.
	Progress func(name string, done, total int)
}

// Result is a malformed run: every case with the channel that answered
// and the verdict on it.
type Result struct {
	Target   string // as the user typed it, secrets hidden
	Protocol string // negotiated; the cases' expectations follow it
	Cases    []Outcome
	// Tools says of each listed tool whether its cases were sent, and why.
	Tools []args.Choice
}

// Verdicts counts the cases by verdict (baselines left out).
func (r *Result) Verdicts() map[string]int {
	m := map[string]int{Pass: 0, Fail: 0, Warn: 0, Observed: 0, Inconclusive: 0}
	for _, c := range r.Cases {
		if !c.Baseline {
			m[c.Verdict]++
		}
	}
	return m
}

// Unjudged is a tool whose baseline call failed, and how.
type Unjudged struct {
	Tool    string
	Args    []byte // the valid arguments it was called with
	Answer  string // is_error, rpc_error -32603, no_answer, crashed
	Message string
	Cases   int // its cases, each inconclusive
}

// Unjudged lists the tools that could not be judged, in the order called.
func (r *Result) Unjudged() []Unjudged {
	var out []Unjudged
	for _, c := range r.Cases {
		if !c.Baseline || c.Verdict != Inconclusive {
			continue
		}
		u := Unjudged{Tool: c.Tool, Args: c.Args, Answer: c.Answer(), Message: c.Message}
		for _, d := range r.Cases {
			if !d.Baseline && d.Tool == c.Tool && d.Verdict == Inconclusive {
				u.Cases++
			}
		}
		out = append(out, u)
	}
	return out
}

// Answer is the channel, with the code for rpc_error (as sent, when it
// is no integer), and over HTTP the status when it says more than 200:
// "rpc_error -32700 (http 400)", "http_error 400".
func (o Outcome) Answer() string {
	a := o.answer()
	switch {
	case o.Channel == HTTPError:
		return fmt.Sprintf("%s %d", o.Channel, o.HTTPStatus)
	case o.notified != nil && !o.notified.Accepted() && !o.notified.Refused():
		return fmt.Sprintf("%s (http %d)", a, o.notified.Status)
	case o.HTTPStatus >= 300:
		return fmt.Sprintf("%s (http %d)", a, o.HTTPStatus)
	}
	return a
}

func (o Outcome) answer() string {
	switch {
	case o.Channel != RPCError:
		return o.Channel
	case o.RawCode != "" && !probe.IsIntegerCode(o.RawCode):
		return o.Channel + " " + excerpt(o.RawCode)
	case o.RawCode == "":
		return o.Channel + " (no code)"
	}
	return fmt.Sprintf("%s %d", o.Channel, o.Code)
}

// NotificationAnswer is how the POST of a notification case was answered
// over Streamable HTTP; nil over other transports and for other cases.
func (o Outcome) NotificationAnswer() *transport.NotificationAnswer { return o.notified }

// Findings are the cases whose verdict carries a severity, each naming
// what answered, the clause and why; a tool that could not be judged; and
// each error code the text says something of.
func (r *Result) Findings() []findings.Finding {
	var fs []findings.Finding
	for _, c := range r.Cases {
		if c.Baseline || c.Verdict == Inconclusive || c.Severity == "" {
			continue
		}
		msg := fmt.Sprintf("%q answered %s", c.Case, c.Answer())
		if c.Message != "" {
			msg += fmt.Sprintf(" (%q)", c.Message)
		}
		msg += fmt.Sprintf("; %s asks %s: %s; %s", r.Protocol, c.Expected, c.Why, c.Clause)
		if c.SDK != "" {
			msg += "; " + c.SDK
		}
		var f findings.Finding
		switch c.Channel {
		case Crashed:
			f = findings.NewAt(c.Severity, findings.MalformedCrash, "%s", msg)
		case NoAnswer:
			f = findings.NewAt(c.Severity, findings.MalformedUnanswered, "%s", msg)
			if c.notified != nil {
				f = findings.NewAt(c.Severity, findings.MalformedChannel, "%s", msg)
			}
		default:
			f = findings.NewAt(c.Severity, findings.MalformedChannel, "%s", msg)
		}
		if c.Tool != "" {
			f = f.About(c.Tool)
		}
		fs = append(fs, f)
	}
	for _, u := range r.Unjudged() {
		fs = append(fs, findings.New(findings.MalformedInconclusive,
			"the baseline call of %s with valid arguments %s answered %s (%q), so its %d case(s) were not judged: a tool that fails for an outside reason (network, credentials, a missing browser) says nothing about how it refuses bad input",
			u.Tool, excerpt(string(u.Args)), u.Answer, u.Message, u.Cases).About(u.Tool))
	}
	seen := map[string]bool{}
	for _, c := range r.Cases {
		if c.Channel != RPCError || seen[c.RawCode] {
			continue
		}
		seen[c.RawCode] = true
		j := probe.JudgeErrorCode(c.RawCode, r.Protocol)
		if j.Severity == "" {
			continue
		}
		fs = append(fs, findings.NewAt(j.Severity, findings.NonstandardErrorCode,
			"the answer to %q (%q) has %s (%s)", c.Case, c.Message, j.Why, j.URL))
	}
	return fs
}

// Counts is empty: malformed gates only on its findings.
func (r *Result) Counts() map[string]int { return nil }

// Run lists the server's tools on a first connection and picks the tools
// asked for (or the read-only ones). On a second connection it makes a
// valid call to each, then sends the cases derived from the tools that
// answered and the protocol-level ones, restarting the server after a
// case that killed it. A tool the server lacks is a *probe.OptionError; a
// server that cannot be started or probed, a *probe.FatalError.
func Run(ctx context.Context, o Options) (*Result, error) {
	// Each start a trace of its own, or the Recorder's next connection.
	started := o.Started
	defer func() {
		if started != nil {
			started.Close()
		}
	}()
	start := func() (*dial.Session, error) {
		if s := started; s != nil {
			started = nil
			return s, nil
		}
		return dial.Start(ctx, o.Spec.Afresh())
	}
	if o.NoToolCalls && len(o.Tools) > 0 {
		return nil, probe.Optionf("--no-tool-calls and --call %s ask for opposite things", o.Tools[0])
	}
	listed := o.Listed
	var cl *probe.Client
	if listed == nil {
		ss, err := dial.Open(ctx, o.Spec.Afresh())
		if err != nil {
			return nil, err
		}
		cl = ss.Client
		cl.ListTools(ctx)
		ss.Close()
		listed = cl.Capture.Tools.Items
	}
	tools, err := selectTools(listed, o.Tools)
	if err != nil {
		return nil, err
	}
	r := &runner{ctx: ctx, start: start, o: o.Probe, timeout: o.Probe.Timeout, progress: o.Progress}
	defer r.stop()
	if err := r.connect(); err != nil {
		return nil, err
	}
	if cl == nil {
		cl = r.cl
	}
	res := &Result{Target: o.Target.Display(), Protocol: cl.Capture.ProtocolVersion}
	res.Tools = args.Choose(listed, o.Tools, o.NoToolCalls)
	tools = chosen(tools, res.Tools)
	meta, http := cl.Meta(), o.Target.Kind == "http" || o.Target.Kind == "sse"
	if meta == "" {
		// The legacy era has a case for a server that has not shaken
		// hands: started now, it boots while the other cases run.
		defer r.dropEarly()
		r.startEarly()
	}
	valid := map[string][]byte{}
	var baselines []Case
	for _, t := range tools {
		name := gjson.GetBytes(t, "name").String()
		valid[name] = BaselineArgs(t)
		if a, ok := o.Args[name]; ok {
			valid[name] = a
		}
		baselines = append(baselines, BaselineCase(name, valid[name], meta))
	}
	r.total = len(baselines)
	base, err := r.play(baselines, nil)
	if err != nil {
		return nil, err
	}
	over := OverStdio
	if http {
		over = OverStreamable
		if h := r.srv.Server().HTTP(); h != nil && h.Mode() == "sse" {
			over = OverSSE
		}
	}
	cases := plan(tools, valid, base, res.Protocol, meta, over)
	// A tool whose baseline got no answer, or killed the server, would
	// make each of its cases wait out the timeout or restart the server,
	// to no verdict.
	byTool := map[string]Outcome{}
	for _, b := range base {
		byTool[b.Tool] = b
	}
	skip := func(c Case) bool {
		b, ok := byTool[c.Tool]
		return ok && (b.Channel == NoAnswer || b.Channel == Crashed)
	}
	r.total += len(cases)
	rest, err := r.play(cases, skip)
	if err != nil {
		return nil, err
	}
	res.Cases = judgeAll(append(base, rest...), res.Protocol)
	explainSDK(res.Cases, tools)
	return res, nil
}

// chosen keeps the tools the choices call.
func chosen(tools [][]byte, cs []args.Choice) [][]byte {
	ok := map[string]bool{}
	for _, c := range cs {
		if c.Call {
			ok[c.Tool] = true
		}
	}
	var out [][]byte
	for _, raw := range tools {
		if ok[gjson.GetBytes(raw, "name").String()] {
			out = append(out, raw)
		}
	}
	return out
}

// selectTools picks the raw tools named (or, when none is, each tool the
// consent rule allows), in the server's order; a name the server lacks is
// an error.
func selectTools(tools [][]byte, named []string) ([][]byte, error) {
	want, unseen := map[string]bool{}, map[string]bool{}
	for _, n := range named {
		want[n], unseen[n] = true, true
	}
	var out [][]byte
	for _, raw := range tools {
		name := gjson.GetBytes(raw, "name").String()
		if (len(want) > 0 && !want[name]) || (len(want) == 0 && !args.ReadOnly(raw)) {
			continue
		}
		delete(unseen, name)
		out = append(out, raw)
	}
	if len(unseen) > 0 {
		var missing []string
		for n := range unseen {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		return nil, probe.Optionf("the server has no tool %q", missing[0])
	}
	return out, nil
}

// plan derives the cases: from each tool's schema, starting from its
// baseline arguments, then the protocol-level ones, whose big and deep
// arguments go to the cheapest tool whose baseline call worked (fewest
// required arguments, then the smallest schema: args.Cheapest), or, if
// none did, the first tool: its cases will be inconclusive.
func plan(tools [][]byte, valid map[string][]byte, base []Outcome, version, meta, over string) []Case {
	var cases []Case
	first := ""
	for _, t := range tools {
		name := gjson.GetBytes(t, "name").String()
		cases = append(cases, ToolCases(t, valid[name], version, meta)...)
	}
	worked := map[string]bool{}
	for _, b := range base {
		if b.Channel == OK {
			worked[b.Tool] = true
		}
	}
	for _, i := range args.Cheapest(tools) {
		if name := gjson.GetBytes(tools[i], "name").String(); worked[name] {
			first = name
			break
		}
	}
	if first == "" && len(tools) > 0 {
		first = gjson.GetBytes(tools[0], "name").String()
	}
	return append(cases, ProtocolCasesOver(version, meta, first, over)...)
}

// judgeAll gives each outcome its verdict. A case sent to a tool whose
// baseline failed is inconclusive, carrying the baseline's answer; so is
// the unknown tool when no tool answered a valid call, since a server
// that fails every call says nothing of how it looks tools up.
func judgeAll(outs []Outcome, version string) []Outcome {
	failed := map[string]Outcome{}
	baselines, working := 0, 0
	for _, o := range outs {
		if o.Baseline {
			baselines++
			if o.Channel == OK {
				working++
			} else {
				failed[o.Tool] = o
			}
		}
	}
	for i := range outs {
		o := &outs[i]
		if o.notified != nil {
			o.Expected = o.Expected.overHTTP(o.notified, version)
		}
		switch b, bad := failed[o.Tool]; {
		case o.Baseline && o.Channel == OK:
			o.Judgement = Judgement{Verdict: Pass, Why: o.Expected.Why}
		case o.Baseline:
			o.Judgement = Judgement{Verdict: Inconclusive,
				Why: "the valid call failed, so this tool's cases cannot be judged: the failure may have an outside cause (network, credentials, a missing dependency)"}
		case bad:
			o.Judgement = Judgement{Verdict: Inconclusive, Clause: o.Expected.Clause,
				Why: fmt.Sprintf("the baseline call of %s answered %s (%q): its answers say nothing of how it refuses bad input", o.Tool, b.Answer(), b.Message)}
		case o.Case == "unknown tool" && baselines > 0 && working == 0:
			o.Judgement = Judgement{Verdict: Inconclusive, Clause: o.Expected.Clause,
				Why: "no tool answered a valid call, so how the server answers a call of a tool it lacks cannot be told from how it fails every call"}
		default:
			o.Judgement = Judge(o.Channel, o.Code, o.Expected)
		}
		if e := o.Expected; e.Status != 0 && o.HTTPStatus != 0 && o.HTTPStatus != e.Status && o.Channel == RPCError && o.Verdict == Pass {
			d := e.WrongStatus
			o.Judgement = Judgement{Verdict: Fail, Severity: d.Severity, Clause: d.Clause,
				Why: fmt.Sprintf("the right error, but over HTTP %d, not %d: %s", o.HTTPStatus, e.Status, d.Why)}
		}
		if o.Channel == RPCError && o.Verdict != Inconclusive && o.Verdict != Fail {
			o.Judgement = judgeCode(o.Judgement, o.RawCode, version)
		}
		if o.settled {
			o.Why = strings.Replace(o.Why, "within --timeout", SettledWithin, 1)
		}
	}
	return outs
}

// SettledWithin is how long a case settled by the ping behind it was
// waited for, as a verdict's why says it.
var SettledWithin = "before the answer to the ping sent right behind it, plus " + probe.SettleGrace.String() + " (a server that reads in turn answers the case first)"

// judgeCode fails an error reply whose code breaks a MUST of its own (no
// integer; in 2026-07-28 a code that version forbids), whatever the case;
// lesser code findings are reported apart (nonstandard-error-code).
func judgeCode(j Judgement, raw, version string) Judgement {
	cj := probe.JudgeErrorCode(raw, version)
	if cj.Severity != findings.Error {
		return j
	}
	return Judgement{Verdict: Fail, Severity: findings.Error, Why: cj.Why,
		Clause: &Clause{Version: specVersion(version), URL: cj.URL, Keyword: cj.Keyword, Binds: "server", Text: cj.Text}}
}

// Summary says in one line how many cases got each verdict.
func (r *Result) Summary() string {
	v := r.Verdicts()
	var parts []string
	for _, k := range []string{Pass, Fail, Warn, Observed, Inconclusive} {
		parts = append(parts, fmt.Sprintf("%d %s", v[k], k))
	}
	n := 0
	for _, c := range r.Cases {
		if !c.Baseline {
			n++
		}
	}
	return fmt.Sprintf("%d cases: %s", n, strings.Join(parts, ", "))
}
