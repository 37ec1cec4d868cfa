package faults

import (
	"context"
	"errors"
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
	Ms      float64
	Retried bool   // after a restart, this is the retry's outcome
	Note    string // what the shim did to this call, if anything
}

// Server is one started server: its connection, a way to kill it as a
// crash does, and a way to stop it cleanly.
type Server struct {
	Conn transport.Conn
	Kill func()
	Stop func()
	// Explain, if set, turns a failed handshake into what happened, what
	// was received and what to try (launch.Server.Explain).
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

// Failure is one failed call and what came of it.
type Failure struct {
	Call       int
	Outcome    string
	DetectedMs float64 // how long the client took to learn of it
	Recovered  bool
	RecoveryMs float64 // from learning of it to the retry's answer
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
	Events      []Event
	Restarts    int
}

type live struct {
	srv    Server
	shim   *Shim
	client *probe.Client
	gone   bool
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

// Drive makes the calls against a server under the plan, as a client of
// the given policy.
func Drive(ctx context.Context, start Starter, o DriveOptions) (res ClientRun, err error) {
	r := ClientRun{Policy: o.Policy, Plan: o.Plan.String(), Counts: map[string]int{}}
	var servers []*live
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
		if err != nil {
			l.gone = true
			return l, err
		}
		return l, nil
	}
	defer func() {
		res = r
		for _, l := range servers {
			if l.shim.Holding() {
				// Give held replies their chance to arrive late.
				l.shim.Settle(500 * time.Millisecond)
				time.Sleep(50 * time.Millisecond)
			}
			res.LateReplies += l.late()
			res.Events = append(res.Events, l.shim.Events()...)
			l.srv.Stop()
		}
	}()
	cur, err := connect(o.Plan)
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
	for i := 1; i <= o.N && ctx.Err() == nil; i++ {
		call := o.Calls[(i-1)%len(o.Calls)]
		out := callOnce(ctx, cur, call, o.Timeout)
		out.N, out.Tool = i, call.Tool
		if out.Outcome == Closed || out.Outcome == NotConnected {
			cur.gone = true
		}
		if (out.Outcome == Closed || out.Outcome == NotConnected) && o.Restart {
			f := Failure{Call: i, Outcome: out.Outcome, DetectedMs: out.Ms}
			t0 := time.Now()
			next, err := connect(o.Plan.Restarted())
			if err == nil {
				r.Restarts++
				cur = next
				retry := callOnce(ctx, cur, call, o.Timeout)
				retry.N, retry.Tool, retry.Retried = i, call.Tool, true
				retry.Note = joinNotes(out.Outcome+" first, then restarted", retry.Note)
				out = retry
				f.Recovered = retry.Outcome == OK || retry.Outcome == IsError
				f.RecoveryMs = ms(time.Since(t0))
			} else {
				f.RestartError = whyNoRestart(ctx, next, err)
			}
			r.Failures = append(r.Failures, f)
		} else if out.Outcome != OK && out.Outcome != IsError && out.Outcome != NotConnected {
			r.Failures = append(r.Failures, Failure{Call: i, Outcome: out.Outcome, DetectedMs: out.Ms})
		}
		r.Calls = append(r.Calls, out)
		r.Counts[out.Outcome]++
	}
	for _, l := range servers {
		for _, e := range l.shim.Events() {
			for k := range r.Calls {
				if r.Calls[k].N == e.Call && e.Call > 0 && !r.Calls[k].Retried {
					r.Calls[k].Note = joinNotes(r.Calls[k].Note, e.What)
				}
			}
		}
	}
	return r, nil
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
	out := CallOutcome{Ms: ms(time.Since(t0))}
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
