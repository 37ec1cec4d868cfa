package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Outcomes of one call, as a client sees them.
const (
	OK           = "ok"
	IsError      = "is_error"      // a result with isError: true; reaches the model
	RPCError     = "rpc_error"     // a JSON-RPC error; never reaches the model
	Timeout      = "timeout"       // no reply within the client's timeout
	Closed       = "closed"        // the connection dropped during this call
	NotConnected = "not_connected" // the server was already gone
)

// Call is one tool call to make.
type Call struct {
	Tool string
	Args []byte
}

// CallOutcome is what the client saw of one call.
type CallOutcome struct {
	N       int
	Tool    string
	Outcome string
	Code    int64 // for rpc_error
	// Ms is how long the caller waited for this outcome. For a retried
	// call that is the whole wait: the first attempt, the restart and the
	// retry, as a host that restarts makes its caller wait.
	Ms      float64
	Retried bool // after a restart, this is the retry's outcome
	// RestartMs is the part of Ms spent starting the server again and
	// re-initializing it; 0 unless Retried.
	RestartMs float64
	Note      string // what the shim did to this call, if anything
	// replyT is when its answer arrived, on the trace's clock; 0 for none.
	replyT time.Duration
}

// Server is one started server: its connection, a way to kill it as a
// crash does, and a way to stop it cleanly.
type Server struct {
	Conn transport.Conn
	Kill func()
	Stop func()
	// Explain, if set, turns a failed handshake into what happened, what
	// was received and what to try (dial.Session.Explain).
	Explain func(error) error
}

// Starter starts a fresh server.
type Starter func() (Server, error)

// DriveOptions drive one run of calls under one client policy.
type DriveOptions struct {
	Plan    Plan
	Policy  Policy
	Calls   []Call // made in turn, round robin
	N       int    // how many calls
	Timeout time.Duration
	Restart bool // respawn on a closed connection and retry the failed call once
	Probe   probe.Options
}

// Failure is one call whose answer did not come: a timeout, a dropped
// connection, a server already gone. An answer that is an error (rpc_error,
// is_error) is the call's outcome, not a failure: the server answered.
type Failure struct {
	Call       int    // as the table numbers it; 0 for the handshake
	Outcome    string // what the call itself got first
	DetectedMs float64
	// Recovered says the server (restarted or not) answered a request
	// after the failure: the retry, a later call, or a ping after the last
	// call. What that answer said is its call's outcome, reported apart.
	Recovered   bool
	RecoveryMs  float64 // from learning of the failure to that first answer
	RecoveredBy string  // "the retry", "call 4", "a ping after the last call"
	// Retry is the outcome of the retry after a restart; "" when there
	// was none.
	Retry string
	// RestartError says why the server could not be had again when a
	// restart was tried: it would not start, or not answer its handshake.
	RestartError string
}

// ClientRun is what a client of one policy saw of one run of calls.
type ClientRun struct {
	Policy      Policy
	Plan        string
	Calls       []CallOutcome
	Counts      map[string]int
	Failures    []Failure
	LateReplies int // replies that came after the client gave up, dropped
	// Events are what the faults did and the stray output the server
	// wrote, each with the call it concerns (stray output: the call it
	// disturbed; 0: before the first call), and Server, the start it
	// happened on (0 the first, 1 after a restart …).
	Events   []RunEvent
	Restarts int
}

// RunEvent is an event of a run, placed: the call it belongs to, and the
// server it happened on.
type RunEvent struct {
	Event
	Server int
}

type live struct {
	srv    Server
	shim   *Shim
	client *probe.Client
	gone   bool
	// ready is when its handshake ended, on its trace's clock.
	ready time.Duration
}

func (l *live) late() int {
	n := 0
	if l.client != nil {
		for _, e := range l.client.Session.Events() {
			if e.Kind == "late_reply" {
				n++
			}
		}
	}
	return n
}

// attempt is one try of a call: its number, the server it went to, and
// when it ended, on that server's trace clock and on the wall clock.
type attempt struct {
	n      int
	server int
	end    time.Duration
	at     time.Time
}

// answered reports whether an outcome is an answer from the server,
// whatever it said.
func answered(outcome string) bool {
	return outcome == OK || outcome == IsError || outcome == RPCError
}

// Drive makes the calls against a server under the plan, as a client of
// the given policy.
func Drive(ctx context.Context, start Starter, o DriveOptions) (res ClientRun, err error) {
	r := ClientRun{Policy: o.Policy, Plan: o.Plan.String(), Counts: map[string]int{}}
	var servers []*live
	var attempts []attempt
	var detected []time.Time // when each failure was learnt of
	if err := o.Plan.Check(InShim); err != nil {
		return r, err
	}
	calls := new(Counter)
	connect := func(plan Plan) (*live, error) {
		srv, err := start()
		if err != nil {
			return nil, err
		}
		shim, err := NewShim(srv.Conn, srv.Kill, plan, o.Policy, calls)
		if err != nil {
			srv.Stop()
			return nil, err
		}
		l := &live{srv: srv, shim: shim}
		servers = append(servers, l)
		cl, err := probe.Connect(ctx, l.shim, o.Probe)
		l.client = cl
		l.ready = shim.Trace().Since()
		if err != nil {
			l.gone = true
			return l, err
		}
		return l, nil
	}
	// try makes one attempt of call n on the current server.
	var cur *live
	try := func(n int, call Call, retry bool) CallOutcome {
		calls.plan(n, retry)
		out := callOnce(ctx, cur, call, o.Timeout)
		a := attempt{n: n, server: len(servers) - 1, end: out.replyT, at: time.Now()}
		if a.end == 0 {
			a.end = cur.shim.Trace().Since()
		}
		attempts = append(attempts, a)
		return out
	}
	defer func() {
		for i, l := range servers {
			if l.shim.Holding() {
				// Give held replies their chance to arrive late.
				l.shim.Settle(500 * time.Millisecond)
				time.Sleep(50 * time.Millisecond)
			}
			r.LateReplies += l.late()
			l.srv.Stop()
			l.shim.Finish(time.Second)
			r.Events = append(r.Events, place(l.shim.Events(), i, l.ready, attempts)...)
		}
		for _, e := range r.Events {
			for k := range r.Calls { // N 0 is the handshake's row, when it failed
				if r.Calls[k].N == e.Call {
					r.Calls[k].Note = joinNotes(r.Calls[k].Note, e.What)
				}
			}
		}
		res = r
	}()
	cur, err = connect(o.Plan)
	if err != nil {
		if cur == nil {
			return r, err
		}
		note := err.Error()
		var fe *probe.FatalError
		if errors.As(err, &fe) {
			note = fe.What
		}
		r.Calls = append(r.Calls, CallOutcome{Tool: "(handshake)", Outcome: Closed, Note: note})
		r.Counts[Closed]++
		r.Failures = append(r.Failures, Failure{Outcome: Closed})
		detected = append(detected, time.Now())
	}
	if err != nil && !o.Restart {
		for i := 1; i <= o.N; i++ {
			r.Calls = append(r.Calls, CallOutcome{N: i, Tool: o.Calls[(i-1)%len(o.Calls)].Tool, Outcome: NotConnected})
			r.Counts[NotConnected]++
		}
		return r, nil
	}
	if err != nil {
		// The server died at startup; a host that restarts tries once more.
		r.Restarts++
		next, err := connect(o.Plan.Restarted())
		if err != nil {
			r.Failures[len(r.Failures)-1].RestartError = whyNoRestart(ctx, next, err)
			return r, err
		}
		cur = next
	}
	lost := false // the connection's loss is already a failure
	for i := 1; i <= o.N && ctx.Err() == nil; i++ {
		call := o.Calls[(i-1)%len(o.Calls)]
		out := try(i, call, false)
		out.N, out.Tool = i, call.Tool
		gone := out.Outcome == Closed || out.Outcome == NotConnected
		if gone {
			cur.gone = true
		}
		switch {
		case gone && o.Restart:
			f := Failure{Call: i, Outcome: out.Outcome, DetectedMs: out.Ms}
			detected = append(detected, time.Now())
			t0 := time.Now()
			next, err := connect(o.Plan.Restarted())
			if err == nil {
				r.Restarts++
				cur = next
				restart := ms(time.Since(t0))
				retry := try(i, call, true)
				retry.N, retry.Tool, retry.Retried = i, call.Tool, true
				retry.RestartMs, retry.Ms = restart, out.Ms+restart+retry.Ms
				retry.Note = joinNotes(out.Outcome+" first, then restarted", retry.Note)
				f.Retry = retry.Outcome
				out = retry
				lost = false
			} else {
				f.RestartError = whyNoRestart(ctx, next, err)
				lost = true
			}
			r.Failures = append(r.Failures, f)
		case gone && lost:
			// The loss was learnt of at an earlier call.
		case !answered(out.Outcome):
			r.Failures = append(r.Failures, Failure{Call: i, Outcome: out.Outcome, DetectedMs: out.Ms})
			detected = append(detected, time.Now())
			lost = gone
		}
		r.Calls = append(r.Calls, out)
		r.Counts[out.Outcome]++
	}
	markRecovered(ctx, &r, detected, attempts, cur, o.Timeout)
	return r, nil
}

// markRecovered marks each failure recovered when the server answered a
// request after it: the retry, a later call, or, when no call came after
// to tell, a ping on the connection still open.
func markRecovered(ctx context.Context, r *ClientRun, detected []time.Time, attempts []attempt, cur *live, timeout time.Duration) {
	// when is the wall time the final try of each row ended.
	when := map[int]time.Time{}
	for _, a := range attempts {
		when[a.n] = a.at
	}
	var pinged *time.Time
	for k := range r.Failures {
		f := &r.Failures[k]
		for _, c := range r.Calls {
			if c.N < f.Call || (c.N == f.Call && !c.Retried) || !answered(c.Outcome) {
				continue
			}
			f.Recovered, f.RecoveredBy = true, fmt.Sprintf("call %d", c.N)
			if c.N == f.Call {
				f.RecoveredBy = "the retry"
			}
			f.RecoveryMs = ms(when[c.N].Sub(detected[k]))
			break
		}
		if f.Recovered || f.RestartError != "" || cur == nil || cur.gone || ctx.Err() != nil {
			continue
		}
		if pinged == nil {
			// Nothing after the failure answered, nor failed for
			// another reason: ask the open connection once.
			t := time.Time{}
			if _, err := cur.client.Ping(ctx, timeout); err == nil || isRPCError(err) {
				t = time.Now()
			}
			pinged = &t
		}
		if !pinged.IsZero() {
			f.Recovered, f.RecoveredBy, f.RecoveryMs = true, "a ping after the last call", ms(pinged.Sub(detected[k]))
		}
	}
}

func isRPCError(err error) bool {
	var re *probe.RPCError
	return errors.As(err, &re)
}

// place gives each of a server's events its call: a fault's event has
// it already (Drive numbers the calls for the engine); stray output gets
// it from when it was written: the first call on that server whose answer
// came after it (the call it was written during, or the next),
// the last call made on it when it came after, or 0 (before the first
// call) when it came during the first server's handshake.
func place(evs []Event, server int, ready time.Duration, attempts []attempt) []RunEvent {
	out := make([]RunEvent, 0, len(evs))
	for _, e := range evs {
		re := RunEvent{Event: e, Server: server}
		if e.Call > 0 {
			out = append(out, re)
			continue
		}
		last := 0
		for _, a := range attempts {
			if a.server != server {
				continue
			}
			last = a.n
			if a.end > e.T && (server > 0 || e.T >= ready) {
				re.Call = a.n
				break
			}
		}
		if re.Call == 0 && last > 0 && (server > 0 || e.T >= ready) {
			re.Call = last
			re.What = "after the call, " + re.What
		}
		out = append(out, re)
	}
	return out
}

// whyNoRestart says why a restart failed, in the launcher's words where
// the server got as far as starting: what happened and what was received.
// A run cut short (ctx done) is no failure of the server's, and says "".
func whyNoRestart(ctx context.Context, l *live, err error) string {
	if ctx.Err() != nil {
		return ""
	}
	if l != nil && l.srv.Explain != nil {
		err = l.srv.Explain(err)
	}
	var fe *probe.FatalError
	if !errors.As(err, &fe) {
		return err.Error()
	}
	why := fe.What
	if first, _, _ := strings.Cut(fe.Received, "\n"); first != "" {
		why += "; received " + strings.TrimSpace(first)
	}
	return why
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func callOnce(ctx context.Context, l *live, call Call, timeout time.Duration) CallOutcome {
	if l.gone || l.client == nil {
		return CallOutcome{Outcome: NotConnected}
	}
	select {
	case <-l.client.Session.Done():
		return CallOutcome{Outcome: NotConnected}
	default:
	}
	t0 := time.Now()
	resp, err := l.client.CallTool(ctx, call.Tool, call.Args, timeout)
	out := CallOutcome{Ms: ms(time.Since(t0)), replyT: resp.T}
	var re *probe.RPCError
	var te *probe.TimeoutError
	var ce *probe.ClosedError
	switch {
	case err == nil && gjson.GetBytes(resp.Result, "isError").Bool():
		out.Outcome = IsError
	case err == nil:
		out.Outcome = OK
	case errors.As(err, &re):
		out.Outcome, out.Code = RPCError, re.Code
	case errors.As(err, &te):
		out.Outcome = Timeout
	case errors.As(err, &ce):
		out.Outcome = Closed
	default:
		out.Outcome, out.Note = Closed, err.Error()
	}
	return out
}
