// Package call makes one request of a server, tools/call, resources/read
// or prompts/get, and keeps everything about it: the response's raw bytes
// as the transport delivered them, when it came, and every notification
// and server request that arrived meanwhile, in order. Long calls get a
// progress timeline, a cancellation and the server's reaction to it; a
// task-augmented call is followed to its end. What the result is, and
// what each host makes of it, is probe/result's.
package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/mrtr"
	"github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Options say what to call and how.
type Options struct {
	dial.Spec
	Kind result.Kind
	// Name is the tool or prompt name, or the resource URI.
	Name string
	// Args is --args, raw JSON (nil for none); Pairs are --arg key=value,
	// typed by the tool's inputSchema (a prompt's arguments are strings).
	Args  []byte
	Pairs []string
	// NoValidate sends arguments that fail the inputSchema anyway.
	NoValidate bool
	// Progress sends _meta.progressToken with the call.
	Progress bool
	// CancelAfter, if set, cancels the call that long after it was sent
	// (notifications/cancelled; tasks/cancel for a task).
	CancelAfter time.Duration
	// CancelWait bounds the watch after a cancellation; 0 is the smaller
	// of --timeout and 3 s.
	CancelWait time.Duration
	// Task makes a task-augmented tools/call and follows it.
	Task bool
	// Skill reads a resource as a host loading a skill does (SEP-2640):
	// skills/list first, then the read verified against the entry that
	// lists the URI.
	Skill bool
	// Replies say how to answer the server's requests during the call;
	// the client declares exactly the capabilities they enable.
	Replies Replies
	// Policies are the user's timeout policies, judged after the known ones.
	Policies []result.Policy
	// Hosts whose delivery of the result is worked out; nil is every known.
	Hosts []hosts.Host
	// Announce, when set, hears the target's display name as the server
	// starts and "" when the call is done, for a progress line (as
	// wire.Options.Progress does).
	Announce func(target string)
}

// Result is one call and everything seen of it.
type Result struct {
	Target   string // as the user typed it, secrets hidden
	Protocol string
	Era      string
	Kind     result.Kind
	Method   string
	Name     string
	// Args are the arguments sent, raw; nil when none were.
	Args []byte
	// Definition is the tool's or prompt's raw definition from its list,
	// nil for a resource or when the list lacks it.
	Definition []byte
	// Request is the frame mcpprobe sent, from the trace.
	Request []byte
	// RequestID is the JSON-RPC id of the call.
	RequestID int64
	// Token is the progressToken sent, "" without --progress.
	Token string

	// Times on the trace's clock (since the connection started): Sent is
	// when the request went out. Times below are since Sent.
	Sent       time.Duration
	FirstFrame time.Duration // the first frame from the server after it; 0: none
	Answered   time.Duration // the response (for a task: tasks/result's)
	Completed  bool          // a response arrived (for a task: its result)
	// Watched is how long the probe watched the call, answered or not.
	Watched time.Duration

	// Response is the whole response message as received, and Result its
	// "result" member, a slice of it; ResponseSeq its trace frame.
	Response    []byte
	Result      []byte
	ResponseSeq int
	Error       *probe.RPCError
	// Unanswered says why no response came, "" when one did.
	Unanswered string

	// Events are the notifications, server requests and stray replies
	// that arrived from Sent to the end of the call (health check
	// included), in order.
	Events []Event
	// Progress is every notifications/progress among them.
	Progress []Progress
	// ProgressSeen counts every notifications/progress the session read,
	// kept or not: past the session's first 10,000 events a flood is
	// counted, not kept, and Progress has only the kept ones.
	ProgressSeen int
	// KnownUntil, when the session stopped keeping messages during the
	// call, is the last kept one's time: the timeline ends there.
	KnownUntil time.Duration

	Cancel *Cancel
	Task   *Task
	// Rounds are the input_required round trips (2026-07-28
	// basic/patterns/mrtr), in order: what the server asked for and what
	// mcpprobe answered, then the retry's answer. The call's Response and
	// Result are the last retry's.
	Rounds []Round

	// Skill is read --skill's verification; nil without it.
	Skill *SkillLoad

	Analysis   result.Analysis
	Deliveries []result.Delivery
	Verdicts   []result.Verdict

	findings []findings.Finding
}

// Event is one message from the server during the call.
type Event struct {
	Kind   string // notification, request, unknown_id, late_reply, invalid, batch
	Method string
	Raw    []byte
	Seq    int
	At     time.Duration // since the request was sent
	// Answer is what mcpprobe answered a server request.
	Answer string
	Note   string
}

// Progress is one notifications/progress.
type Progress struct {
	At       time.Duration
	Seq      int
	Token    string // the progressToken as sent (raw JSON), "" when absent
	Ours     bool   // it names the call's token
	Progress float64
	Total    *float64
	Message  string
	// Invalid says what of progress or total is not a number, with the
	// value as sent (clipped); "" when both are.
	Invalid string
}

// Cancel is what a cancellation did.
type Cancel struct {
	Via    string        // notifications/cancelled or tasks/cancel
	At     time.Duration // since the request was sent
	Reason string
	// Answer is tasks/cancel's raw response; nil for a notification.
	Answer []byte
	// ProgressBefore and ProgressAfter count the call's progress
	// notifications before and after the cancellation; LastProgress is
	// the last one after it, since the cancellation (-1: none).
	ProgressBefore, ProgressAfter int
	LastProgress                  time.Duration
	// Outcome: "result" (the server still answered: late, counted),
	// "stopped" (its progress stopped, no result), "went on" (progress
	// kept coming for the whole wait, no result), "nothing" (no progress
	// to watch, and no result within the wait), "ended" (the server's
	// stream ended: it exited or closed its output). For tasks/cancel,
	// what the answer said.
	Outcome string
	// ProgressState is what the call's progress did after the
	// cancellation, result or not: "stopped", "went on" or "none" (no
	// progress before or after it).
	ProgressState string
	// LateAt is when the late result came, since the cancellation.
	LateAt time.Duration
	// EndedAt is when the server's stream ended, since the cancellation
	// (outcome "ended": it exited or closed its output on it).
	EndedAt time.Duration
	Waited  time.Duration // the bounded wait after the cancellation
	// Healthy: the health call after it got an answer.
	Healthy      bool
	HealthMethod string
	HealthNote   string
}

// Task is a task-augmented call followed.
type Task struct {
	ID      string
	Created []byte // the raw CreateTaskResult (the tools/call result)
	Support string // the tool's execution.taskSupport as declared, "" when absent
	// Capability: the server declared tasks.requests.tools.call.
	Capability bool
	Polls      []Poll
	Final      string // the last status seen
	Terminal   bool
}

// Round is one input_required result answered and the retry it led to.
type Round struct {
	N int
	// Asked is the input_required result answered, raw; AskedSeq its frame.
	Asked    []byte
	AskedSeq int
	Answers  []mrtr.Answer
	// StateEchoed: the result carried a requestState, and the retry
	// echoed it byte for byte.
	StateEchoed bool
	RequestID   int64
	// Response is the retry's raw response (nil when none came), and
	// ResultType its result's resultType ("" for an error or none).
	Response   []byte
	ResultType string
	Err        string
}

// Poll is one tasks/get (or tasks/result, tasks/cancel) exchange.
type Poll struct {
	Method       string
	At           time.Duration // the answer, since the call was sent
	Status       string
	Message      string
	PollInterval int64 // ms, as the server gave it when HasPollInterval
	// HasPollInterval: the answer carried a numeric pollInterval (which
	// may be 0 or negative: a server's number, shown as sent).
	HasPollInterval bool
	Raw             []byte
	Seq             int
	Err             string
}

// Findings are the call's: the session's, the result's, and the call's own.
func (r *Result) Findings() []findings.Finding { return r.findings }

// Counts is empty: call gates only on its findings.
func (r *Result) Counts() map[string]int { return nil }

func (r *Result) add(code findings.Code, format string, args ...any) {
	r.findings = findings.Add(r.findings, findings.New(code, format, args...).About(r.Name))
}

func (r *Result) addAt(sev findings.Severity, code findings.Code, format string, args ...any) {
	r.findings = findings.Add(r.findings, findings.NewAt(sev, code, format, args...).About(r.Name))
}

// methods per kind.
var methods = map[result.Kind]string{result.KindTool: "tools/call", result.KindResource: "resources/read", result.KindPrompt: "prompts/get"}

// Run starts the server, shakes hands, lists what the call needs (the
// tool's definition, the prompt's), checks the arguments and makes the
// call. Bad input is a *probe.OptionError (an unknown tool or prompt,
// arguments that are not JSON or fail the inputSchema); a server that
// cannot be started or probed, a *probe.FatalError. A server answering
// the call with a JSON-RPC error is the call's result, not an error.
func Run(ctx context.Context, o Options) (*Result, error) {
	method, ok := methods[o.Kind]
	if !ok {
		return nil, probe.Optionf("unknown kind %q", o.Kind)
	}
	if o.Task && o.Kind != result.KindTool {
		return nil, probe.Optionf("--task applies to tools/call")
	}
	if o.Skill && o.Kind != result.KindResource {
		return nil, probe.Optionf("--skill applies to resources/read")
	}
	spec := o.Spec
	spec.Probe.Capabilities = o.Replies.Capabilities()
	spec.Probe.Answer = o.Replies.Answerer()
	if o.Announce != nil {
		o.Announce(o.Target.Display())
		defer o.Announce("")
	}
	ss, err := dial.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cl := ss.Client
	r := &Result{Target: o.Target.Display(), Protocol: cl.Capture.ProtocolVersion, Era: cl.Capture.Era,
		Kind: o.Kind, Method: method, Name: o.Name}
	if err := r.prepare(ctx, cl, o); err != nil {
		return nil, err
	}
	c := &caller{ctx: ctx, cl: cl, o: o, r: r, timeout: spec.Probe.Timeout, trace: ss.Trace()}
	if c.timeout <= 0 {
		c.timeout = 10 * time.Second
	}
	if err := c.run(); err != nil {
		return nil, err
	}
	if r.Skill != nil {
		r.verifySkill()
	}
	cl.Finish()
	// Closed before its streams are judged, so that a log line written
	// after the answer (a tool that logs on stdout) is read by then.
	ss.ExitFindings(cl.Capture, ss.Close(), nil)
	for _, f := range cl.Capture.Findings {
		r.findings = findings.Add(r.findings, f)
	}
	r.analyse(o)
	return r, nil
}

// prepare finds the definition, builds the arguments and validates them.
func (r *Result) prepare(ctx context.Context, cl *probe.Client, o Options) error {
	switch o.Kind {
	case result.KindTool:
		cl.ListTools(ctx)
		l := cl.Capture.Tools
		r.Definition = find(l.Items, "name", o.Name)
		if r.Definition == nil {
			if l.Error != "" {
				return &probe.FatalError{What: "tools/list failed, so " + o.Name + " cannot be found: " + l.Error, Try: "run mcpprobe wire on the server to see its lists"}
			}
			return probe.Optionf("the server has no tool %q; it has %s", o.Name, names(l.Items, "name"))
		}
		built, err := args.BuildArgs(o.Args, o.Pairs, []byte(gjson.GetBytes(r.Definition, "inputSchema").Raw))
		if err != nil {
			return err
		}
		r.Args = built
		if !o.NoValidate {
			// A schema mcpprobe cannot compile does not stop the call:
			// the server judges the arguments then.
			v, _ := args.Validate([]byte(gjson.GetBytes(r.Definition, "inputSchema").Raw), built)
			if len(v) > 0 {
				return probe.Optionf("the arguments do not match %s's inputSchema (send them anyway with --no-validate):\n  %s", o.Name, strings.Join(v, "\n  "))
			}
		}
	case result.KindPrompt:
		cl.ListPrompts(ctx)
		l := cl.Capture.Prompts
		r.Definition = find(l.Items, "name", o.Name)
		if r.Definition == nil {
			if l.Error != "" {
				return &probe.FatalError{What: "prompts/list failed, so " + o.Name + " cannot be found: " + l.Error, Try: "run mcpprobe wire on the server to see its lists"}
			}
			return probe.Optionf("the server has no prompt %q; it has %s", o.Name, names(l.Items, "name"))
		}
		// Prompt arguments are strings, whatever they look like.
		built, err := args.BuildArgs(o.Args, o.Pairs, nil)
		if err != nil {
			return err
		}
		r.Args = built
		if !o.NoValidate {
			var missing []string
			for _, a := range gjson.GetBytes(r.Definition, "arguments").Array() {
				n := a.Get("name").String()
				if a.Get("required").Bool() && !gjson.GetBytes(built, gjson.Escape(n)).Exists() {
					missing = append(missing, n)
				}
			}
			if len(missing) > 0 {
				return probe.Optionf("prompt %s requires the argument(s) %s (give them with --arg NAME=VALUE, or send anyway with --no-validate)", o.Name, strings.Join(missing, ", "))
			}
		}
	case result.KindResource:
		if o.Args != nil || len(o.Pairs) > 0 {
			return probe.Optionf("read takes no arguments: the URI says it all")
		}
		if o.Skill {
			load, err := listedSkillFile(ctx, cl, o.Name)
			if err != nil {
				return err
			}
			r.Skill = load
		}
	}
	return nil
}

func find(items [][]byte, key, name string) []byte {
	for _, it := range items {
		if gjson.GetBytes(it, key).String() == name {
			return it
		}
	}
	return nil
}

func names(items [][]byte, key string) string {
	if len(items) == 0 {
		return "none"
	}
	var n []string
	for i, it := range items {
		if i == 20 {
			n = append(n, fmt.Sprintf("… (%d in all)", len(items)))
			break
		}
		n = append(n, strconv.Quote(gjson.GetBytes(it, key).String()))
	}
	return strings.Join(n, ", ")
}

// caller makes the call and watches it.
type caller struct {
	ctx     context.Context
	cl      *probe.Client
	o       Options
	r       *Result
	timeout time.Duration
	trace   *transport.Trace
	p       *probe.Pending
}

// params builds the call's params: members, then _meta with extra
// members (the progress token) merged into what the era sends.
func (c *caller) params(members, extraMeta string) []byte {
	// In 2026-07-28 a server may ask for input only as the request's
	// capabilities allow (basic/patterns/mrtr, MUST NOT), and mcpprobe
	// answers elicitation, sampling and roots in every round: the call
	// declares them.
	meta := c.cl.MetaWith(inputCaps)
	switch {
	case meta != "" && extraMeta != "":
		meta = "{" + extraMeta + "," + meta[1:]
	case extraMeta != "":
		meta = "{" + extraMeta + "}"
	}
	if meta != "" {
		if members != "" {
			members += ","
		}
		members += `"_meta":` + meta
	}
	return []byte("{" + members + "}")
}

func (c *caller) run() error {
	r, o := c.r, c.o
	var members string
	switch o.Kind {
	case result.KindTool, result.KindPrompt:
		members = `"name":` + quote(o.Name)
		if r.Args != nil {
			members += `,"arguments":` + string(r.Args)
		}
	case result.KindResource:
		members = `"uri":` + quote(o.Name)
	}
	if o.Task {
		members += `,"task":{"ttl":` + strconv.FormatInt(max(c.timeout, time.Minute).Milliseconds(), 10) + `}`
	}
	extra := ""
	if o.Progress {
		r.Token = "mcpprobe-progress-1"
		extra = `"progressToken":` + quote(r.Token)
	}
	var before time.Duration
	if c.trace != nil {
		before = c.trace.Since()
	}
	p, err := c.cl.Session.Begin(c.ctx, r.Method, c.params(members, extra))
	if err != nil {
		var ce *probe.ClosedError
		if errors.As(err, &ce) || c.ctx.Err() != nil {
			return callErr(r.Method, err)
		}
		// Over HTTP the POST carries the answer: a server that never
		// answers it fails the send (bounded by --timeout), after a
		// handshake that worked. The call is unanswered, not the server
		// unreachable.
		r.Sent = before
		r.Unanswered = err.Error()
		r.add(findings.CallUnanswered, "%s `%s` got no answer: %v", r.Method, r.Name, err)
		r.Watched = c.now()
		c.window()
		return nil
	}
	c.p, r.Sent, r.RequestID = p, p.Sent, p.ID
	if ph := o.Probe.Phase; ph != nil {
		// A long call is seen being waited for on the progress line.
		ph("waiting for "+r.Method+" "+o.Name, time.Now(), c.timeout)
	}
	resp, ok, err := c.wait()
	if ok && err != nil && r.Era == "modern" && !o.Task && c.ctx.Err() == nil && c.cl.RetryVersion(r.Method, err) {
		// -32022 after the handshake, naming a version mcpprobe speaks:
		// the request once more, its _meta built for it (the finding
		// says so, with the clause).
		if p2, berr := c.cl.Session.Begin(c.ctx, r.Method, c.params(members, extra)); berr == nil {
			c.p, r.RequestID = p2, p2.ID
			resp, ok, err = c.wait()
		}
		r.Protocol = c.cl.Capture.ProtocolVersion
	}
	if o.Task && ok && err == nil {
		c.follow(resp)
	} else {
		c.take(resp, ok, err)
		c.requiredWithoutTask()
		if r.Era == "modern" && c.ctx.Err() == nil {
			c.inputRounds(members, extra)
		}
	}
	r.Watched = c.now()
	if r.Completed {
		c.settle()
	}
	if r.Cancel != nil && c.ctx.Err() == nil {
		c.health()
	}
	c.window()
	// Interrupted, what was seen so far is still the result: partial,
	// as the output says.
	return nil
}

// inputCaps are the client capabilities a 2026-07-28 call declares.
const inputCaps = `{"elicitation":{},"roots":{},"sampling":{}}`

// inputRounds answers input_required results (2026-07-28
// basic/patterns/mrtr: "the client retries the original request with
// inputResponses" and the requestState echoed), at most mrtr.MaxRounds
// times: from the user's replies where they answer the method (--elicit,
// --sampling-reply, --root), else with values mcpprobe builds.
func (c *caller) inputRounds(members, extra string) {
	r := c.r
	answerer := c.o.Replies.Answerer()
	for n := 1; r.Completed && r.Error == nil; n++ {
		in, ok := mrtr.Read(r.Result)
		if !ok {
			return
		}
		if n > mrtr.MaxRounds {
			r.add(findings.InputRequiredRounds, "%s `%s` still answered input_required after %d rounds answered; mcpprobe stopped there", r.Method, r.Name, mrtr.MaxRounds)
			return
		}
		responses, answers := mrtr.Responses(in.Requests, answerer, c.o.Replies.Describe)
		round := Round{N: n, Asked: r.Result, AskedSeq: r.ResponseSeq, Answers: answers, StateEchoed: in.State != ""}
		p, err := c.cl.Session.Begin(c.ctx, r.Method, c.params(in.Retry(members, responses), extra))
		if err != nil {
			round.Err = err.Error()
			r.Rounds = append(r.Rounds, round)
			r.Completed, r.Unanswered = false, "the retry answering input_required could not be sent: "+err.Error()
			return
		}
		round.RequestID = p.ID
		resp, err := p.Wait(c.ctx, c.timeout)
		var te *probe.TimeoutError
		answered := !errors.As(err, &te)
		r.Error, r.Completed, r.Response, r.Result = nil, false, nil, nil
		c.take(resp, answered, err)
		round.Response = resp.Raw
		if r.Error != nil {
			round.Err = fmt.Sprintf("JSON-RPC error %s: %s", rawCodeOr(r.Error), r.Error.Message)
		} else if r.Completed {
			round.ResultType = gjson.GetBytes(r.Result, "resultType").String()
		} else {
			round.Err = r.Unanswered
		}
		r.Rounds = append(r.Rounds, round)
	}
}

// settleFor is how long the probe still reads after the answer, so that
// what a server sends right behind it (a second answer to the same id,
// progress after the response) is in the call's window, not lost.
const settleFor = 100 * time.Millisecond

func (c *caller) settle() {
	t := time.NewTimer(settleFor)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.cl.Session.Done():
	case <-c.ctx.Done():
	}
}

// callErr is a failure to send at all.
func callErr(method string, err error) error {
	var ce *probe.ClosedError
	if errors.As(err, &ce) {
		return &probe.FatalError{What: "the server's stream ended before " + method + " could be sent", Received: err.Error(), Err: err}
	}
	return err
}

// wait waits for the call's response, cancelling it after CancelAfter
// (not for a task: its cancellation is tasks/cancel, once it exists).
func (c *caller) wait() (probe.Response, bool, error) {
	o := c.o
	if o.CancelAfter <= 0 || o.Task {
		resp, err := c.p.Wait(c.ctx, c.timeout)
		var te *probe.TimeoutError
		if errors.As(err, &te) {
			return resp, false, nil
		}
		return resp, true, err
	}
	// Counted from the request's sending: over HTTP, Send may return only
	// once the server has begun its answer.
	resp, ok, err := c.p.Within(c.ctx, max(o.CancelAfter-c.now(), 0))
	if ok {
		return resp, ok, err // answered before the cancellation was due
	}
	cn := &Cancel{Via: "notifications/cancelled", Reason: "mcpprobe --cancel-after " + o.CancelAfter.String(), LastProgress: -1}
	cn.At = c.now()
	params := `"requestId":` + strconv.FormatInt(c.p.ID, 10) + `,"reason":` + quote(cn.Reason)
	_ = c.cl.Session.Notify("notifications/cancelled", c.params(params, ""))
	c.r.Cancel = cn
	cn.Waited = c.cancelWait()
	resp, ok, err = c.p.Within(c.ctx, cn.Waited)
	if !ok {
		c.p.Abandon()
	}
	var ce *probe.ClosedError
	if errors.As(err, &ce) {
		// Not "stopped": the server is gone, and the health call says so.
		cn.Outcome, cn.EndedAt = "ended", c.now()-cn.At
	}
	return resp, ok, err
}

func (c *caller) cancelWait() time.Duration {
	if c.o.CancelWait > 0 {
		return c.o.CancelWait
	}
	return min(c.timeout, 3*time.Second)
}

// now is the trace clock, since the request was sent.
func (c *caller) now() time.Duration {
	if c.trace == nil {
		return 0
	}
	return c.trace.Since() - c.r.Sent
}

// take records the call's answer.
func (c *caller) take(resp probe.Response, ok bool, err error) {
	r := c.r
	var re *probe.RPCError
	switch {
	case !ok:
		r.Unanswered = fmt.Sprintf("no response within %v", c.timeout)
		if r.Cancel != nil {
			r.Unanswered = fmt.Sprintf("no response within %v of the cancellation", r.Cancel.Waited)
		} else {
			r.add(findings.CallUnanswered, "%s `%s` got no response within --timeout %v", r.Method, r.Name, c.timeout)
		}
		return
	case errors.As(err, &re):
		r.Error = re
	case err != nil:
		r.Unanswered = err.Error()
		if errors.Is(err, context.Canceled) {
			r.Unanswered = "interrupted before the answer came"
			return
		}
		r.add(findings.CallUnanswered, "%s `%s`: %v", r.Method, r.Name, err)
		return
	}
	r.Completed = true
	r.Response, r.Result, r.ResponseSeq = resp.Raw, resp.Result, resp.Seq
	r.Answered = resp.T - r.Sent
	if r.Error != nil {
		what := r.Method + " `" + r.Name + "`"
		if r.Task != nil && r.Task.ID != "" {
			what = "tasks/result for task " + r.Task.ID + " of `" + r.Name + "`"
		}
		r.add(findings.CallRPCError, "%s was answered with JSON-RPC error %s: %s", what, rawCodeOr(r.Error), r.Error.Message)
	}
	// A tasks/result after tasks/cancel is expected: it returns what the
	// cancelled call would have.
	if cn := r.Cancel; cn != nil && cn.Via == "notifications/cancelled" {
		cn.LateAt = r.Answered - cn.At
		cn.Outcome = "result"
		r.add(findings.CancelResultAfter, "the server answered `%s` %v after notifications/cancelled", r.Name, cn.LateAt.Round(time.Millisecond))
	}
}

func rawCodeOr(e *probe.RPCError) string {
	if e.RawCode != "" {
		return e.RawCode
	}
	return strconv.FormatInt(e.Code, 10)
}

// health checks that the session survived a cancellation: ping, or
// tools/list in the modern era, which has no ping.
func (c *caller) health() {
	cn := c.r.Cancel
	var err error
	if c.cl.Modern() {
		cn.HealthMethod = "tools/list"
		_, err = c.cl.Request(c.ctx, "tools/list", "", c.timeout)
	} else {
		cn.HealthMethod = "ping"
		_, err = c.cl.Ping(c.ctx, c.timeout)
	}
	var re *probe.RPCError
	cn.Healthy = err == nil || errors.As(err, &re)
	switch {
	case err == nil:
		cn.HealthNote = "answered"
	case cn.Healthy:
		cn.HealthNote = "answered with an error: " + err.Error()
	default:
		cn.HealthNote = err.Error()
		c.r.add(findings.CancelSessionUnusable, "after cancelling `%s`, %s failed: %v", c.r.Name, cn.HealthMethod, err)
	}
}

// window keeps the session's events from the call's sending on, and reads
// the progress timeline and the cancellation's effect from them.
func (c *caller) window() {
	r := c.r
	replies := c.o.Replies
	for _, e := range c.cl.Session.Events() {
		if e.T < r.Sent {
			continue
		}
		ev := Event{Kind: e.Kind, Method: e.Method, Raw: e.Raw, Seq: e.Seq, At: e.T - r.Sent, Note: e.Note}
		if e.Kind == "request" {
			ev.Answer = replies.DescribeRequest(e.Method, e.Raw)
		}
		if e.Kind == "unknown_id" && r.Completed && e.Seq > r.ResponseSeq {
			if id := gjson.GetBytes(e.Raw, "id"); id.Type == gjson.Number && id.Raw == strconv.FormatInt(r.RequestID, 10) {
				ev.Note = "a second response to the call (id " + id.Raw + "): JSON-RPC 2.0 answers a request once; the first was kept"
			}
		}
		r.Events = append(r.Events, ev)
		if e.Kind == "notification" && e.Method == "notifications/progress" {
			r.Progress = append(r.Progress, progressOf(ev, r.Token))
		}
	}
	counts, notKept := c.cl.Session.EventCounts()
	r.ProgressSeen = max(counts["notification\x00notifications/progress"], len(r.Progress))
	if notKept > 0 && len(r.Events) > 0 {
		r.KnownUntil = max(r.Events[len(r.Events)-1].At, 1)
	}
	if c.trace != nil {
		for _, f := range c.trace.FramesFrom(0) {
			if f.T < r.Sent {
				continue
			}
			if f.Dir == transport.DirSend && r.Request == nil && gjson.GetBytes(f.Raw, "id").Int() == r.RequestID && gjson.GetBytes(f.Raw, "method").String() == r.Method {
				r.Request = f.Raw
			}
			if f.Dir == transport.DirRecv && r.FirstFrame == 0 {
				r.FirstFrame = max(f.T-r.Sent, 1)
			}
		}
	}
	if cn := r.Cancel; cn != nil && cn.Via == "notifications/cancelled" {
		for _, p := range r.Progress {
			if !p.Ours {
				continue
			}
			if p.At < cn.At {
				cn.ProgressBefore++
				continue
			}
			cn.ProgressAfter++
			cn.LastProgress = p.At - cn.At
		}
		switch {
		case cn.ProgressAfter > 0 && cn.LastProgress > cn.Waited*2/3 && cn.Outcome == "":
			cn.ProgressState = "went on"
			r.add(findings.CancelProgressGoesOn, "progress for `%s` kept coming after notifications/cancelled: %d notification(s), the last %v after it (watched %v)", r.Name, cn.ProgressAfter, cn.LastProgress.Round(time.Millisecond), cn.Waited)
		case cn.ProgressBefore+cn.ProgressAfter > 0:
			cn.ProgressState = "stopped"
		default:
			cn.ProgressState = "none"
		}
		if cn.Outcome == "" {
			cn.Outcome = cn.ProgressState
			if cn.Outcome == "none" {
				cn.Outcome = "nothing"
			}
		}
	}
}

func progressOf(ev Event, token string) Progress {
	v := gjson.GetBytes(ev.Raw, "params")
	p := Progress{At: ev.At, Seq: ev.Seq, Progress: v.Get("progress").Float(), Message: v.Get("message").String()}
	if t := v.Get("progressToken"); t.Exists() {
		p.Token = t.Raw
		p.Ours = token != "" && t.Type == gjson.String && t.Str == token
	}
	if t := v.Get("total"); t.Exists() && t.Type == gjson.Number {
		f := t.Float()
		p.Total = &f
	}
	var bad []string
	if pv := v.Get("progress"); pv.Type != gjson.Number {
		bad = append(bad, "progress "+orAbsent(clip(pv.Raw, 40)))
	}
	if t := v.Get("total"); t.Exists() && t.Type != gjson.Number {
		bad = append(bad, "total "+clip(t.Raw, 40))
	}
	if len(bad) > 0 {
		p.Invalid = strings.Join(bad, ", ") + ": not a number"
	}
	return p
}

// progressEvents are the call's progress notifications as probe/result
// checks them: each token raw, and whether it came after the response
// (in the order the probe read them).
func (r *Result) progressEvents() []result.ProgressEvent {
	evs := make([]result.ProgressEvent, 0, len(r.Progress))
	for _, p := range r.Progress {
		e := result.ProgressEvent{At: p.At, Progress: p.Progress, Message: p.Message,
			AfterResponse: r.Completed && p.Seq > r.ResponseSeq, Invalid: p.Invalid}
		if p.Total != nil {
			e.HasTotal, e.Total = true, *p.Total
		}
		if p.Token != "" {
			e.Token = []byte(p.Token)
		}
		evs = append(evs, e)
	}
	return evs
}

// analyse reads the result and judges it against each host and policy.
func (r *Result) analyse(o Options) {
	in := result.Input{Kind: r.Kind, Result: r.Result, Version: r.Protocol}
	if r.Kind == result.KindTool {
		in.Tool = r.Definition
	}
	if r.Result != nil && r.Era == "modern" && r.Error == nil {
		if why := probe.LegacyShape(r.Method, r.Result); why != "" {
			r.add(findings.LegacyShapedResult, "the %s result has %s on this 2026-07-28 connection: %s", r.Method, why, probe.ShapeClause)
		}
	}
	if r.Result != nil {
		r.Analysis = result.Analyse(in)
		r.addAll(r.Analysis.Findings)
		hs := o.Hosts
		if hs == nil {
			hs = hosts.Known()
		}
		r.Deliveries = result.Deliver(hs, in, r.Analysis)
		r.addAll(result.DeliveryFindings(r.Deliveries))
	}
	// The progress timeline held to the spec (basic/utilities/progress).
	var sent []byte
	if r.Token != "" {
		sent = []byte(quote(r.Token))
	}
	end := r.Answered
	if !r.Completed {
		end = r.Watched
	}
	checkEnd := end
	if r.KnownUntil > 0 {
		// No silence is judged where nothing was kept.
		checkEnd = min(end, r.KnownUntil)
	}
	r.addAll(result.CheckProgress(sent, r.progressEvents(), checkEnd, r.Completed && checkEnd == end, 0))
	tl := result.Timeline{Duration: r.Answered, Completed: r.Completed, KnownUntil: r.KnownUntil}
	if !r.Completed {
		tl.Duration = r.Watched
	}
	for _, p := range r.Progress {
		if p.Ours {
			tl.Progress = append(tl.Progress, p.At)
		}
	}
	r.Verdicts = result.JudgeAll(append(result.Policies(), o.Policies...), tl)
	r.addAll(result.VerdictFindings(r.Verdicts))
}

// addAll adds probe/result's findings as the call's, about its tool.
func (r *Result) addAll(fs []findings.Finding) {
	for _, f := range fs {
		if r.Kind == result.KindTool && f.Tool == "" {
			f = f.About(r.Name)
		}
		r.findings = findings.Add(r.findings, f)
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
