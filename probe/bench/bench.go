// Package bench measures how fast a server starts and answers, and how
// much of each figure is the probe's own cost: mcpprobe bench, run from
// Options to a Result that reports/ renders.
package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// Options say what to measure. The embedded Spec is the target (A): every
// start of it is a fresh process or HTTP session. The measuring helpers
// (Measure, Startup, Plan) read only the fields they need.
type Options struct {
	dial.Spec
	// Vs is a second target (B), compared with A over Rounds rounds, each
	// a fresh process of A and of B, in an order that cancels drift.
	Vs *dial.Spec
	// Rounds is how many rounds Vs runs (0: DefaultRounds).
	Rounds int
	// Seed, when not 0, shuffles which side goes first in each round
	// (half the rounds each); 0 keeps the ABBA order.
	Seed uint64

	Startup     int // fresh starts for the startup series
	N, Warmup   int // measured and discarded calls per series
	Calls       []args.Call
	AutoCalls   bool // add every read-only tool, with minimal arguments
	Concurrency int  // calls in flight in the closed loop
	// Rate, calls per second, makes an open loop of Duration (or of N
	// calls when Duration is 0).
	Rate     float64
	Duration time.Duration

	// Hosts are the host profiles whose initialize deadlines A's slowest
	// start is held against.
	Hosts []hosts.Host
	// OverheadCalls calibrate the probe's own cost per call (0: 2000).
	OverheadCalls int
	// Budget bounds the whole run without Vs (0: none): once it is spent
	// no series starts, the one under way ends with what it has (Cut),
	// the call in flight is abandoned, and the series left are NotRun.
	Budget time.Duration
	// Progress, if set, is told after each measured step how many of the
	// series under way are done out of its total (one per start for the
	// startup series, -n for a call series; with Vs, of the whole run):
	// a total known before its first step, which never grows. It is
	// called from the measuring goroutines, one at a time.
	Progress func(done, total int)
	// Request, if set, is told of each request as it is sent: what it is
	// ("series 3/14 · tools/call echo"), when it was sent and its bound,
	// for the progress line to show what is in flight. Nil costs nothing.
	Request func(what string, sent time.Time, limit time.Duration)
	// Begin, if set, is called once, when the target has first started
	// and answered its handshake: the CLI announces the budget then, so
	// that a server that cannot start gets its message alone on stderr.
	Begin func()

	deadline time.Time // when Budget runs out (zero: never)
	// allPs: the closed loop keeps every P (Run measured a CPU idle;
	// sched.go); false runs it on one.
	allPs bool
}

// DefaultBudget is the CLI's --budget: a bench with no --call times every
// read-only tool, and one slow tool must not make that minutes long.
const DefaultBudget = 2 * time.Minute

// StopAfterTimeouts is how many timeouts in a row a series may begin with
// before it is stopped: a tool that never answers within --timeout has no
// figures to give, only --timeout × (warmup + n + 1) of waiting.
const StopAfterTimeouts = 2

// Check refuses what cannot be measured as asked. The CLI checks its flags
// first; this guards every other caller.
func (o Options) Check() error {
	switch {
	case o.N < 0 || o.Warmup < 0 || o.Startup < 0:
		return probe.Optionf("-n, --warmup and --startup must be 0 or more")
	case o.Concurrency < 1:
		return probe.Optionf("--concurrency must be 1 or more")
	case o.Rate < 0 || o.Rate > 1e6:
		return probe.Optionf("--rate: want calls per second, up to 1000000")
	case o.Rate > 0 && o.Concurrency > 1:
		return probe.Optionf("--rate and --concurrency %d conflict: an open loop sends on its own schedule, whatever is in flight", o.Concurrency)
	case o.Vs != nil && (o.Rate > 0 || o.Concurrency > 1):
		return probe.Optionf("--vs measures one call at a time, A then B; it does not take --rate or --concurrency")
	case o.Rounds < 0 || o.Rounds == 1 || o.Rounds > MaxRounds:
		return probe.Optionf("--rounds %d: want 2 to %d (each round is a fresh process of A and of B)", o.Rounds, MaxRounds)
	case o.Duration < 0:
		return probe.Optionf("--duration must not be negative")
	case o.Budget < 0:
		return probe.Optionf("--budget must not be negative")
	case o.Budget > 0 && o.Vs != nil:
		return probe.Optionf("--budget bounds a run without --vs; --vs is bounded by its --rounds")
	}
	return nil
}

// Side is one target's series.
type Side struct {
	Target   string // as the user typed it, secrets hidden
	Protocol string // negotiated
	Mode     string // "closed loop, one call in flight", "open loop at 200/s", …
	// Startup holds spawn → first byte, → handshake, → first tools/list,
	// and stdin close → exit, each over the fresh starts.
	Startup []Series
	Ping    *Series // nil in the modern era, which has no ping
	// List is tools/list timed as the baseline request when nothing else
	// would be timed: no ping (the modern era has none; an open loop
	// times the calls only) and no call. ListWhy says why, for the output.
	List    *Series
	ListWhy string
	Calls   []Series
	Skipped []string // tools not called, and why
	// NotRun are the series the budget left no time for, by name
	// ("call echo", "ping", "startup").
	NotRun []string
}

// All is every series in the order they are shown: startup, calls, ping.
func (s Side) All() []Series {
	all := append(append([]Series(nil), s.Startup...), s.Calls...)
	if s.Ping != nil {
		all = append(all, *s.Ping)
	}
	if s.List != nil {
		all = append(all, *s.List)
	}
	return all
}

// Deadline is a host's initialize deadline held against the slowest start.
type Deadline struct {
	Host     string
	Deadline time.Duration
	Series   string  // the startup series it is held against
	Max      float64 // that series' slowest, in ns
	Exceeded bool
}

// Result is a whole bench run.
type Result struct {
	A        Side
	B        *Side        // with Vs
	Compared []Comparison // B against A, series by series, with Vs
	// Overhead is the client's own round trip against an in-process echo
	// peer: the floor under every figure.
	Overhead  Stats
	Deadlines []Deadline
	// Budget is the run's bound (0: none); BudgetSpent that it ran out.
	Budget      time.Duration
	BudgetSpent bool
}

// Findings are what the figures say a host will feel: a cold first call,
// calls that timed out, a start slower than a host waits.
func (r *Result) Findings() []findings.Finding {
	var fs []findings.Finding
	sides := []Side{r.A}
	if r.B != nil {
		sides = append(sides, *r.B)
	}
	for i, side := range sides {
		who := ""
		if i == 1 {
			who = "--vs " + side.Target + ": "
		}
		for _, s := range side.All() {
			var f []findings.Finding
			if s.Stopped > 0 {
				f = append(f, findings.New(findings.CallTimeout, "%s%s", who, StoppedNote(s)))
			}
			if s.FirstSlow {
				f = append(f, findings.New(findings.ColdStart, "%sthe first %s took %s, over 3× its p50 (%s) and over %s: a cold start a host will feel",
					who, s.Name, human(s.First), human(s.P50), human(ColdFloor)))
			}
			if s.Timeouts > 0 && s.Stopped == 0 {
				f = append(f, findings.New(findings.CallTimeout, "%s%s: %d of %d call(s) timed out, and are not in the figures",
					who, s.Name, s.Timeouts, s.N+s.Timeouts))
			}
			if s.Errors > 0 {
				f = append(f, findings.New(findings.CallErrors, "%s%s", who, ErrorNote(s)))
			}
			for _, x := range f {
				if s.Tool != "" {
					x = x.About(s.Tool)
				}
				fs = append(fs, x)
			}
		}
	}
	for _, d := range r.Deadlines {
		if d.Exceeded {
			fs = append(fs, findings.New(findings.StartupOverDeadline, "%s gives up on initialize after %s; the slowest start (%s) took %s",
				d.Host, human(float64(d.Deadline)), d.Series, human(d.Max)))
		}
	}
	return fs
}

// ErrorNote says how many calls of a series failed, and the first
// failure's message; when every one did, that the figures time the error
// path.
func ErrorNote(s Series) string {
	if strings.HasPrefix(s.Name, "startup") {
		// A start that failed has no sample: the starts are n + the failures.
		return fmt.Sprintf("%s: %d of %d starts failed; the first error: %s", s.Name, s.Errors, s.N+s.Errors+s.Timeouts, s.FirstError)
	}
	// A call that failed was answered, and timed: it is among the n.
	total := s.N + s.Timeouts
	if s.Errors >= s.N {
		return fmt.Sprintf("%s: every call failed (%d of %d): the figures time the error path, not the work; the first error: %s",
			s.Name, s.Errors, total, s.FirstError)
	}
	return fmt.Sprintf("%s: %d of %d calls failed; the first error: %s", s.Name, s.Errors, total, s.FirstError)
}

// Short is a length as a person writes it: "2m", "90s", "1h30m".
func Short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// StoppedNote says that a series was stopped for its first calls timing
// out, and after how long each.
func StoppedNote(s Series) string {
	return fmt.Sprintf("%s: stopped: the first %d calls timed out after %s each; not measured further", s.Name, s.Stopped, Short(s.Timeout))
}

// MaxRounds bounds --rounds: each is two fresh processes.
const MaxRounds = 1000

// Counts is empty: bench gates only on its findings.
func (r *Result) Counts() map[string]int { return nil }

// human prints nanoseconds for a finding's message.
func human(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(100 * time.Nanosecond).String()
}

// Run measures A (and B, with Vs): the probe's overhead first, then the
// startup series over fresh starts, then every call series on one long
// session. A target that cannot be started or probed is a
// *probe.FatalError explaining why; what was asked that cannot be done
// (a tool the server lacks) is a *probe.OptionError.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	r := &Result{Budget: o.Budget}
	if o.Vs == nil && o.Budget > 0 {
		o.deadline = time.Now().Add(o.Budget)
	}
	if b := o.Begin; b != nil {
		var once sync.Once
		o.Begin = func() { once.Do(b) }
	}
	n := o.OverheadCalls
	if n <= 0 {
		n = 2000
	}
	r.Overhead, _ = Overhead(ctx, n)
	if o.Rate <= 0 && o.Concurrency <= 1 {
		o.allPs = allPs()
	}
	p := &counter{report: o.Progress}
	if o.Vs != nil {
		a, b, cmp, err := vs(ctx, o, p)
		if err != nil {
			return nil, err
		}
		r.A, r.B, r.Compared = *a, b, cmp
	} else {
		a, err := one(ctx, o, p)
		if err != nil {
			return nil, err
		}
		r.A = *a
	}
	r.Deadlines = deadlines(o.Hosts, r.A.Startup)
	r.BudgetSpent = len(r.A.NotRun) > 0
	for _, s := range r.A.All() {
		r.BudgetSpent = r.BudgetSpent || s.Cut
	}
	return r, nil
}

// one runs the startup series, then every call series on one long-lived
// session, within the budget: the calls run under a context that ends
// with it, so a call in flight when it runs out is abandoned.
func one(ctx context.Context, o Options, p *counter) (*Side, error) {
	res := &Side{Target: o.Target.Display(), Mode: modeName(o)}
	p.begin(o.Startup)
	startup, err := Startup(ctx, o.Spec, o, p.step)
	if err != nil {
		return nil, err
	}
	res.Startup = startup
	if o.Startup > 0 && len(startup) == 0 && o.spent() {
		res.NotRun = append(res.NotRun, "startup")
	}
	ss, err := dial.Open(ctx, o.Spec.Afresh())
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cl := ss.Client
	o.begin()
	res.Protocol = cl.Capture.ProtocolVersion
	cl.ListTools(ctx)
	calls, skipped, err := args.Plan(cl.Capture, o.Calls, o.AutoCalls)
	if err != nil {
		return nil, probe.Optionf("%v", err)
	}
	res.Skipped = skipped
	if o.N == 0 && o.Rate == 0 {
		return res, nil // startup only
	}
	bctx := ctx
	if !o.deadline.IsZero() {
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(ctx, o.deadline)
		defer cancel()
	}
	timeout := o.Probe.Timeout
	type planned struct {
		name, method, tool string
		args               []byte
		ping, list         bool
		do                 Op
	}
	var series []planned
	ping := !cl.Modern() && o.Rate == 0
	if ping {
		series = append(series, planned{name: "ping", method: "ping", ping: true, do: PingFunc(bctx, cl, timeout)})
	}
	for _, c := range calls {
		series = append(series, planned{name: "call " + c.Tool, method: "tools/call " + c.Tool, tool: c.Tool, args: c.Args, do: CallFunc(bctx, cl, c, timeout)})
	}
	if !ping && len(calls) == 0 {
		res.ListWhy = listWhy(cl.Modern(), len(skipped) > 0)
		series = append(series, planned{name: ListSeries, method: ListSeries, list: true, do: ListFunc(bctx, cl, timeout)})
	}
	for i, sp := range series {
		if bctx.Err() != nil {
			if ctx.Err() == nil {
				res.NotRun = append(res.NotRun, sp.name)
			}
			continue
		}
		p.begin(o.N)
		op := announce(o, fmt.Sprintf("series %d/%d · %s", i+1, len(series), sp.method), timeout, sp.do)
		st := Measure(bctx, o, op, p.step)
		s := Series{Name: sp.name, Tool: sp.tool, Args: sp.args, Stats: st, Rounds: 1, Timeout: timeout,
			Cut: bctx.Err() != nil && ctx.Err() == nil}
		switch {
		case sp.ping:
			res.Ping = &s
		case sp.list:
			res.List = &s
		default:
			res.Calls = append(res.Calls, s)
		}
	}
	return res, nil
}

// ListSeries is the name of the tools/list baseline series.
const ListSeries = "tools/list"

// listWhy says why tools/list is the baseline request: which of ping and
// the calls is missing, and for which reason.
func listWhy(modern, noneReadOnly bool) string {
	why := "an open loop times no ping"
	if modern {
		why = "the 2026-07-28 era has no ping"
	}
	if noneReadOnly {
		return why + ", and no tool is annotated read-only"
	}
	return why + ", and the server lists no tool"
}

// begin calls Begin, if set.
func (o Options) begin() {
	if o.Begin != nil {
		o.Begin()
	}
}

// spent reports whether the budget has run out.
func (o Options) spent() bool { return !o.deadline.IsZero() && !time.Now().Before(o.deadline) }

// announce tells o.Request of each request do sends, when it is set.
func announce(o Options, what string, limit time.Duration, op Op) Op {
	if o.Request == nil {
		return op
	}
	tell := func() { o.Request(what, time.Now(), limit) }
	out := Op{Do: func() (bool, error) {
		tell()
		return op.Do()
	}}
	if op.Chain != nil {
		out.Chain = func(k int, before func(), each func(time.Duration, bool, error) bool) error {
			return op.Chain(k, func() {
				tell()
				if before != nil {
					before()
				}
			}, each)
		}
	}
	return out
}

func modeName(o Options) string {
	switch {
	case o.Rate > 0:
		return fmt.Sprintf("open loop at %g/s", o.Rate)
	case o.Concurrency > 1:
		return fmt.Sprintf("closed loop, %d in flight", o.Concurrency)
	}
	return "closed loop, one call in flight"
}

// deadlines holds every host's initialize deadline against the slowest
// start to the handshake.
func deadlines(hosts []hosts.Host, startup []Series) []Deadline {
	var out []Deadline
	for _, h := range hosts {
		if h.InitializeDeadlineMs <= 0 {
			continue
		}
		for _, s := range startup {
			if !strings.Contains(s.Name, "handshake") {
				continue
			}
			d := time.Duration(h.InitializeDeadlineMs) * time.Millisecond
			out = append(out, Deadline{Host: h.Name, Deadline: d, Series: s.Name, Max: s.Max, Exceeded: s.Max > float64(d)})
		}
	}
	return out
}

// counter turns measured steps into the Progress callback's running
// totals.
type counter struct {
	mu          sync.Mutex
	done, total int
	report      func(done, total int)
}

// add adds n steps to the total (with Vs: the whole run, before it).
func (c *counter) add(n int) {
	c.mu.Lock()
	c.total += n
	c.mu.Unlock()
}

// begin starts counting a series of n steps afresh.
func (c *counter) begin(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done, c.total = 0, n
	if c.report != nil && n > 0 {
		c.report(0, n)
	}
}

func (c *counter) step() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	if c.report != nil {
		c.report(c.done, c.total)
	}
}
