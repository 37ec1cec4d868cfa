// Package load drives many sessions against one server at a rate you
// choose: mcpprobe load. It opens --sessions sessions (HTTP sessions, or
// a process each for a stdio target), timing each one's phases
// (handshake, first tools/list), then sends tool calls on an open-loop
// schedule, each timed from when it was due (coordinated-omission
// correct), per method. A ramp of rates finds the knee, the first rate
// whose p99 or error ratio breaks a bound. A shard runs every N-th
// request of the whole schedule, so N machines together send the whole
// run, and Merge combines their samples into exact percentiles. For a
// stateless (2026-07-28) server, replicas spread one logical client's
// requests over several URLs and answers that depend on the replica are
// reported. The server's own resource use (CPU, peak RSS) is read from
// /proc where mcpprobe started it.
package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/tidwall/gjson"
)

// Caps are the largest values a run takes without Options.Unbounded (the
// CLI's --i-know): a load tool aimed by mistake is a denial of service.
const (
	MaxRate        = 2000    // requests per second
	MaxSessions    = 256     // HTTP sessions
	MaxProcesses   = 32      // stdio processes
	MaxRequests    = 200_000 // requests per step, whatever the flags: every sample is kept
	MaxSteps       = 50      // ramp steps
	MaxReplicas    = 16
	HardMaxRequest = 2_000_000 // per step even with Unbounded
	// MaxStartWait bounds how far ahead --start-at may be.
	MaxStartWait = time.Hour
)

// Options say what load to make.
type Options struct {
	dial.Spec
	// Replicas are more URLs of the same stateless server: each logical
	// client (a worker) opens one client per URL (Spec's first) and
	// spreads its requests over them.
	Replicas []dial.Spec
	Sessions int
	// Rates are the steps' rates (requests per second, of the whole run
	// across shards): one rate, or a ramp.
	Rates []float64
	// Duration of each step; or Requests, when above 0: the requests per
	// step (of the whole run).
	Duration time.Duration
	Requests int
	Calls    []args.Call
	// AutoCalls adds every tool annotated read-only.
	AutoCalls bool
	Bound     Bound
	Shard     Shard
	// Unbounded lifts the caps (the CLI's --i-know).
	Unbounded bool
	// Clock is the scheduler's (nil: the real monotonic clock).
	Clock Clock
	// StartAt, when not zero, is the wall-clock time the first step
	// starts, once the sessions are open: shards on several machines
	// started at different moments then send their interleaved shares
	// together. A time already past starts at once.
	StartAt time.Time
	// Progress, if set, is told after each step how many steps are done.
	Progress func(done, total int)
}

// Shard is part I (from 0) of N of a run's schedule: request k of each
// step belongs to shard k mod N.
type Shard struct {
	I int `json:"index"`
	N int `json:"count"`
}

// Check refuses what cannot be run as asked. The CLI checks its flags
// first; this guards every other caller.
func (o Options) Check() error {
	switch {
	case o.Sessions < 1:
		return probe.Optionf("--sessions must be 1 or more")
	case len(o.Rates) == 0:
		return probe.Optionf("give --rate or --ramp")
	case len(o.Rates) > MaxSteps:
		return probe.Optionf("--ramp has %d steps; at most %d", len(o.Rates), MaxSteps)
	case o.Duration <= 0 && o.Requests <= 0:
		return probe.Optionf("give --duration or --requests above 0")
	case o.Shard.N < 1 || o.Shard.I < 0 || o.Shard.I >= o.Shard.N:
		return probe.Optionf("--shard %d/%d: want i/n with 0 ≤ i < n", o.Shard.I, o.Shard.N)
	case len(o.Replicas)+1 > MaxReplicas:
		return probe.Optionf("at most %d replicas", MaxReplicas)
	case !o.StartAt.IsZero() && time.Until(o.StartAt) > MaxStartWait:
		return probe.Optionf("--start-at %s is more than %s away", o.StartAt.Format(time.RFC3339), MaxStartWait)
	case o.Bound.MaxErrors < 0 || o.Bound.MaxErrors > 1:
		return probe.Optionf("--max-errors %g: want a ratio from 0 to 1", o.Bound.MaxErrors)
	}
	for _, r := range o.Rates {
		if r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return probe.Optionf("rate %g: want requests per second above 0", r)
		}
		if n := o.total(r); n > HardMaxRequest || (!o.Unbounded && n > MaxRequests) {
			return probe.Optionf("a step at %g/s for %s is %d requests, over the cap of %d (every sample is kept); shorten it, or give --i-know (up to %d)",
				r, o.Duration, n, MaxRequests, HardMaxRequest)
		}
		if !o.Unbounded && r > MaxRate {
			return probe.Optionf("rate %g/s is over the cap of %d/s; give --i-know to go past it", r, MaxRate)
		}
	}
	if !o.Unbounded {
		capN, what := MaxSessions, "sessions"
		if o.Target.Kind == "stdio" {
			capN, what = MaxProcesses, "stdio processes"
		}
		if o.Sessions > capN {
			return probe.Optionf("--sessions %d is over the cap of %d %s; give --i-know to go past it", o.Sessions, capN, what)
		}
	}
	return nil
}

// total is how many requests a step at rate r has in the whole run.
func (o Options) total(r float64) int {
	if o.Requests > 0 {
		return o.Requests
	}
	return int(math.Ceil(o.Duration.Seconds()*r - 1e-9))
}

// plan is this shard's part of a step at rate r: every N-th request of
// the whole schedule, from the shard's index.
func (o Options) plan(r float64) Plan {
	all := o.total(r)
	n := o.Shard.N
	mine := 0
	if all > o.Shard.I {
		mine = (all - o.Shard.I + n - 1) / n
	}
	iv := time.Duration(float64(time.Second) / r)
	return Plan{Total: mine, Interval: time.Duration(n) * iv, Offset: time.Duration(o.Shard.I) * iv, Drain: o.Probe.Timeout}
}

// Step is one rate's run: its requests all together and per method.
type Step struct {
	Rate float64 `json:"rate"`
	// Scheduled is this shard's requests (Requests of All).
	All     *Series   `json:"all"`
	Methods []*Series `json:"methods"`
	// Broken is why the step broke the bound ("" if it kept it).
	Broken string `json:"broken"`
}

// Result is a load run, or shards merged.
type Result struct {
	Target    string   `json:"-"`
	Protocol  string   `json:"-"`
	Transport string   `json:"transport"`
	Sessions  int      `json:"sessions"`
	Replicas  []string `json:"replicas"`
	// Shards are the shards the result holds: one for a run, every one
	// of the run's for a merge.
	Shards     []Shard `json:"shards"`
	ShardsOf   int     `json:"shard_count"`
	Requests   int     `json:"requests_per_step"`
	DurationNs int64   `json:"duration_ns"`
	Bound      struct {
		MaxP99Ns  int64   `json:"max_p99_ns"`
		MaxErrors float64 `json:"max_errors"`
	} `json:"bound"`
	Calls []CallPlan `json:"calls"`
	// Skipped are the tools not called, and why.
	Skipped []string `json:"skipped"`
	// Phases are each session's handshake and first tools/list.
	Phases []*Series `json:"phases"`
	Steps  []Step    `json:"steps"`
	// NotRun are the ramp's rates left once a step broke the bound, or
	// the run was interrupted.
	NotRun    []float64  `json:"not_run"`
	Knee      Knee       `json:"knee"`
	Resources *Resources `json:"resources"`
	// Generator is mcpprobe's own CPU over the steps (null where the OS
	// does not say).
	Generator    *Generator    `json:"generator"`
	ReplicaCheck *ReplicaCheck `json:"replica_check"`
	// Interrupted: the run was cut short (Ctrl-C); what it has is here.
	Interrupted bool `json:"interrupted"`
}

// CallPlan is one tool the load calls, with the arguments sent.
type CallPlan struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// worker is one logical client: a session per replica.
type worker struct {
	sessions []*dial.Session
}

// Run opens the sessions, runs each step, and closes them.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	clk := o.Clock
	if clk == nil {
		clk = newRealClock()
	}
	r := &Result{Target: o.Target.Display(), Sessions: o.Sessions, Shards: []Shard{o.Shard}, ShardsOf: o.Shard.N,
		Requests: o.Requests, DurationNs: durationOf(o), Replicas: []string{}, NotRun: []float64{}, Skipped: []string{}, Calls: []CallPlan{}, Steps: []Step{}}
	r.Bound.MaxP99Ns, r.Bound.MaxErrors = int64(o.Bound.MaxP99), o.Bound.MaxErrors
	r.Transport = "stdio"
	if o.Target.Kind != "stdio" {
		r.Transport = "http"
	}
	specs := append([]dial.Spec{o.Spec}, o.Replicas...)
	if len(o.Replicas) > 0 {
		for _, s := range specs {
			r.Replicas = append(r.Replicas, s.Target.Display())
		}
	}
	workers, phases, err := openAll(ctx, clk, o, specs)
	defer closeAll(workers)
	r.Phases = phases
	if err != nil {
		return nil, err
	}
	first := workers[0].sessions[0].Client
	r.Protocol = first.Capture.ProtocolVersion
	if len(o.Replicas) > 0 && !first.Modern() {
		return nil, probe.Optionf("--replica spreads requests of a stateless server (2026-07-28) over its replicas; %s speaks %s, whose sessions live on one server", r.Target, r.Protocol)
	}
	first.ListTools(ctx)
	calls, skipped, err := args.Plan(first.Capture, o.Calls, o.AutoCalls)
	if err != nil {
		return nil, probe.Optionf("%v", err)
	}
	r.Skipped = append(r.Skipped, skipped...)
	for _, c := range calls {
		r.Calls = append(r.Calls, CallPlan{Tool: c.Tool, Args: c.Args})
	}
	reqs := requests(calls, o.Probe.Timeout)
	var rc *replicaRecorder
	if len(o.Replicas) > 0 {
		rc = newReplicaRecorder(r.Replicas)
	}
	if !o.StartAt.IsZero() {
		waitUntil(ctx, o.StartAt)
	}
	cpu0 := selfCPU()
	for i, rate := range o.Rates {
		if ctx.Err() != nil {
			r.NotRun = append(r.NotRun, o.Rates[i:]...)
			break
		}
		st := runStep(ctx, clk, o, rate, workers, reqs, rc)
		r.Steps = append(r.Steps, st)
		if o.Progress != nil {
			o.Progress(i+1, len(o.Rates))
		}
		if st.Broken != "" && i+1 < len(o.Rates) {
			r.NotRun = append(r.NotRun, o.Rates[i+1:]...)
			break
		}
	}
	if cpu1 := selfCPU(); cpu0 >= 0 && cpu1 >= cpu0 {
		r.Generator = &Generator{CPUNs: cpu1 - cpu0}
		for _, st := range r.Steps {
			r.Generator.Requests += st.All.Requests - st.All.Unsent
		}
	}
	r.Interrupted = ctx.Err() != nil
	r.Knee = FindKnee(r.Steps, o.Bound)
	r.Resources = resourcesOf(workers)
	if rc != nil {
		r.ReplicaCheck = rc.check()
	}
	return r, nil
}

// request is one kind of request the load sends.
type request struct {
	method string // its series' name: "tools/call echo", "tools/list"
	do     func(ctx context.Context, cl *probe.Client) (Outcome, string, []byte)
}

// requests are the calls, or tools/list when there is none to make.
func requests(calls []args.Call, timeout time.Duration) []request {
	var out []request
	for _, c := range calls {
		c := c
		out = append(out, request{method: "tools/call " + c.Tool, do: func(ctx context.Context, cl *probe.Client) (Outcome, string, []byte) {
			resp, err := cl.CallTool(ctx, c.Tool, c.Args, timeout)
			return judge(resp, err)
		}})
	}
	if len(out) == 0 {
		out = append(out, request{method: "tools/list", do: func(ctx context.Context, cl *probe.Client) (Outcome, string, []byte) {
			resp, err := cl.Request(ctx, "tools/list", "", timeout)
			return judge(resp, err)
		}})
	}
	return out
}

// judge is how a response ended: an isError result and a JSON-RPC error
// are failures, still timed.
func judge(resp probe.Response, err error) (Outcome, string, []byte) {
	var te *probe.TimeoutError
	var re *probe.RPCError
	switch {
	case errors.As(err, &te):
		return Timeout, "", nil
	case errors.As(err, &re):
		return Failed, bounded(fmt.Sprintf("JSON-RPC error %d: %s", re.Code, re.Message)), resp.Raw
	case err != nil:
		return Failed, bounded(err.Error()), nil
	case gjson.GetBytes(resp.Result, "isError").Bool():
		return Failed, bounded("an isError result: " + gjson.GetBytes(resp.Result, "content.#(type==\"text\").text").String()), resp.Result
	}
	return OK, "", resp.Result
}

// maxErr bounds a message the server wrote.
const maxErr = 200

func bounded(s string) string {
	if len(s) <= maxErr {
		return s
	}
	cut := maxErr
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// runStep runs one rate on the open sessions. Request k is the call k mod
// C (C calls), sent to replica (k div C) mod R, so every call reaches
// every replica.
func runStep(ctx context.Context, clk Clock, o Options, rate float64, ws []*worker, reqs []request, rc *replicaRecorder) Step {
	p := o.plan(rate)
	// The plan's clock starts now: its offsets count from here.
	base := clk.Now()
	p.Offset += base
	samples := Schedule(ctx, clk, p, len(ws), func(ctx context.Context, w, k int) (Outcome, string) {
		g := o.Shard.I + k*o.Shard.N // the request's index in the whole run
		rq := reqs[g%len(reqs)]
		rep := (g / len(reqs)) % len(ws[w].sessions)
		oc, msg, body := rq.do(ctx, ws[w].sessions[rep].Client)
		if rc != nil && (oc == OK || oc == Failed) {
			rc.see(rq.method, rep, body)
		}
		return oc, msg
	})
	st := Step{Rate: rate, All: &Series{Name: "all"}, Methods: []*Series{}}
	per := map[string]*Series{}
	for _, rq := range reqs {
		if per[rq.method] == nil {
			s := &Series{Name: rq.method}
			per[rq.method] = s
			st.Methods = append(st.Methods, s)
		}
	}
	for _, s := range samples {
		g := o.Shard.I + s.K*o.Shard.N
		st.All.add(s)
		per[reqs[g%len(reqs)].method].add(s)
	}
	st.All.Summarize()
	for _, s := range st.Methods {
		s.Summarize()
	}
	st.Broken = o.Bound.Broken(st.All)
	return st
}

// openAll opens every worker's sessions, at most openers at a time, and
// times each one's handshake and first tools/list. The first failure to
// open ends the run (explained); sessions opened are closed by the
// caller.
func openAll(ctx context.Context, clk Clock, o Options, specs []dial.Spec) ([]*worker, []*Series, error) {
	hs := &Series{Name: "session: handshake"}
	ls := &Series{Name: "session: first tools/list"}
	ws := make([]*worker, o.Sessions)
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, openers)
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = &worker{sessions: make([]*dial.Session, len(specs))}
		for j, s := range specs {
			sem <- struct{}{}
			mu.Lock()
			failed := firstErr != nil
			mu.Unlock()
			if failed || ctx.Err() != nil {
				<-sem
				break // one failure ends the run: open no more
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				sp := s.Afresh()
				if i > 0 || j > 0 {
					// Only the first session's list plans the calls; the
					// others' frames need not be held.
					sp.Launch.KeepBytes = min(sp.Launch.KeepBytes, keepBytes)
					if sp.Launch.KeepBytes == 0 {
						sp.Launch.KeepBytes = keepBytes
					}
				}
				t0 := clk.Now()
				ss, err := dial.Open(ctx, sp)
				t1 := clk.Now()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					hs.addDuration(t1-t0, Failed, bounded(err.Error()))
					if firstErr == nil {
						firstErr = err
					}
					return
				}
				hs.addDuration(t1-t0, OK, "")
				ws[i].sessions[j] = ss
				mu.Unlock()
				t2 := clk.Now()
				_, lerr := ss.Client.Request(ctx, "tools/list", "", o.Probe.Timeout)
				oc, msg, _ := judge(probe.Response{}, lerr)
				t3 := clk.Now()
				mu.Lock()
				ls.addDuration(t3-t2, oc, msg)
			}()
		}
	}
	wg.Wait()
	hs.Summarize()
	ls.Summarize()
	phases := []*Series{hs, ls}
	if firstErr != nil {
		return ws, phases, firstErr
	}
	return ws, phases, nil
}

// openers is how many sessions are opened at once.
const openers = 8

// keepBytes bounds the frames held in memory for every session but the
// first: hundreds of sessions at 32 MiB each would be gigabytes.
const keepBytes = 1 << 20

func closeAll(ws []*worker) {
	var wg sync.WaitGroup
	for _, w := range ws {
		if w == nil {
			continue
		}
		for _, ss := range w.sessions {
			if ss == nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ss.Close()
			}()
		}
	}
	wg.Wait()
}

// durationOf is the steps' length, 0 when they are counted in requests.
func durationOf(o Options) int64 {
	if o.Requests > 0 {
		return 0
	}
	return int64(o.Duration)
}

// waitUntil sleeps until the wall-clock time t, or ctx ends.
func waitUntil(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
	case <-tm.C:
	}
}
