package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/tidwall/gjson"
)

// Series is one measured series.
type Series struct {
	Name string
	Tool string
	Args []byte
	Stats
	// Rounds is how many processes (or HTTP sessions) its samples come
	// from: 1 for a call series measured alone (one session), one per
	// start for a startup series, the rounds with --vs.
	Rounds int
	// RoundP50s, with --vs, is each round's median (ns; 0 for a round
	// with no sample): what the test compares.
	RoundP50s []float64
	// Timeout is each call's bound (--timeout), for a call or ping series.
	Timeout time.Duration
	// Cut: the budget ran out while the series was under way; its
	// figures are the calls made until then.
	Cut bool
}

// startupNames are the startup phases, in the order they happen.
var startupNames = []string{"spawn → first byte", "spawn → handshake", "spawn → first tools/list", "stdin close → exit"}

// Startup measures o.Startup fresh starts of the target s: each a new
// process (or HTTP session) with a trace of its own.
func Startup(ctx context.Context, s dial.Spec, o Options, progress func()) ([]Series, error) {
	samples := make([][]int64, len(startupNames))
	var errs, timeouts int
	var firstErr string
	cut := false
	for i := 0; i < o.Startup; i++ {
		if o.spent() {
			cut = true
			break
		}
		srv, err := dial.Start(ctx, s.Afresh())
		if err != nil {
			return nil, err
		}
		err = srv.Connect(ctx)
		if err == nil {
			cl := srv.Client
			o.begin()
			cl.ListTools(ctx)
			samples[1] = append(samples[1], int64(cl.Capture.Timings.Handshake))
			if len(cl.Capture.Tools.Pages) > 0 {
				samples[2] = append(samples[2], int64(cl.Capture.Tools.Pages[0].T))
			}
		} else if isTimeout(err) {
			timeouts++
		} else {
			errs++
			if firstErr == "" {
				firstErr = errText(srv.Explain(err))
			}
		}
		if fb := srv.FirstByte(); fb > 0 {
			samples[0] = append(samples[0], int64(fb))
		}
		if exit := srv.Close(); exit.Timed() {
			samples[3] = append(samples[3], int64(exit.After))
		}
		if progress != nil {
			progress()
		}
		if errs+timeouts == o.Startup {
			return nil, notStarted(srv.Explain(err), o.Startup)
		}
	}
	var out []Series
	for i, n := range startupNames {
		if len(samples[i]) == 0 {
			continue
		}
		s := Series{Name: "startup: " + n, Stats: Summarize(samples[i]), Rounds: len(samples[i])}
		if i == 3 {
			// A slow first exit is no cold start of anything.
			s.Name, s.FirstSlow = "exit: "+n, false
		}
		if i == 1 || i == 2 {
			s.Errors, s.Timeouts, s.FirstError = errs, timeouts, firstErr
		}
		s.Cut = cut
		out = append(out, s)
	}
	return out, nil
}

// notStarted says the server never came up, with the last try's
// explanation of why.
func notStarted(err error, tries int) error {
	var fe *probe.FatalError
	if !errors.As(err, &fe) {
		return fmt.Errorf("the server could not be started and initialized in %d tries: %v", tries, err)
	}
	cp := *fe
	cp.What = fmt.Sprintf("the server could not be started and initialized in %d tries: %s", tries, fe.What)
	return &cp
}

func isTimeout(err error) bool {
	var te *probe.TimeoutError
	var fe *probe.FatalError
	if errors.As(err, &fe) {
		return errors.As(fe.Err, &te)
	}
	return errors.As(err, &te)
}

// Op is the request a series repeats. Do makes one and reports whether
// it failed. Chain, where the connection allows it (Session.CanChain),
// makes k of them back to back from the goroutine that reads the
// answers, calling before ahead of each (if set) and each with every
// outcome, which says whether to go on; it is nil elsewhere.
type Op struct {
	Do    func() (failed bool, err error)
	Chain func(k int, before func(), each func(d time.Duration, failed bool, err error) bool) error
}

// Measure times one series of calls on an open client: op is made
// warmup+n+1 times in the closed loop (the first call reported on its
// own). The closed loop with one call in flight chains its calls where
// op can (Op.Chain): no hand-off between goroutines per call, so neither
// the machine's load nor its idle CPUs add a thread's wake-up to what is
// measured. Elsewhere it loops on Do.
func Measure(ctx context.Context, o Options, op Op, progress func()) Stats {
	do := op.Do
	// One caller waits at a time: on one P or on all of them, whichever
	// the warm-up measured faster (calibrate), or, with too short a
	// warm-up to tell, by whether Run found a CPU idle (allPs). sched.go
	// says why and what was measured.
	all := runtime.GOMAXPROCS(0)
	chained := op.Chain != nil && o.Rate <= 0 && o.Concurrency <= 1
	closed := !chained && o.Rate <= 0 && o.Concurrency <= 1 && all > 1
	if closed {
		defer runtime.GOMAXPROCS(all)
		if !o.allPs {
			runtime.GOMAXPROCS(1)
		}
	}
	// The first call is reported on its own; errors and timeouts are
	// counted over the measured calls, as n is. A series that begins with
	// StopAfterTimeouts timeouts in a row, first call and warmup included,
	// is stopped there.
	lead := &leading{}
	first := time.Now()
	_, err := do()
	firstNs := time.Since(first)
	firstTimedOut := isTimeout(err)
	lead.see(err)
	errs, timeouts := 0, 0
	firstErr := ""
	count := func(failed bool, err error) {
		switch {
		case isTimeout(err):
			timeouts++
		case err != nil || failed:
			errs++
			if firstErr == "" {
				firstErr = errText(err)
			}
		}
	}
	warm := o.Warmup
	if closed && warm >= 2*calBlock {
		warm -= calibrate(ctx, do, lead, all, warm, !o.allPs)
	}
	if chained && warm > 0 && !lead.stopped() {
		_ = op.Chain(warm, nil, func(_ time.Duration, _ bool, err error) bool {
			lead.see(err)
			return !lead.stopped()
		})
		warm = 0
	}
	for i := 0; i < warm && !lead.stopped() && ctx.Err() == nil; i++ {
		_, err := do()
		lead.see(err)
	}
	var samples []int64
	var mu sync.Mutex
	record := func(d time.Duration, failed bool, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && ctx.Err() != nil && !isTimeout(err) {
			return // abandoned: the run ended (its budget, an interrupt), the server did not fail
		}
		lead.see(err)
		count(failed, err)
		if !isTimeout(err) && !isClosed(err) {
			samples = append(samples, int64(d))
		}
		if progress != nil {
			progress()
		}
	}
	switch {
	case lead.stopped():
	case o.Rate > 0:
		openLoop(ctx, o, do, record, lead.stopped)
	case chained:
		_ = op.Chain(o.N, nil, func(d time.Duration, failed bool, err error) bool {
			record(d, failed, err)
			return ctx.Err() == nil && !lead.stopped()
		})
	default:
		k := max(o.Concurrency, 1)
		var wg sync.WaitGroup
		next := make(chan struct{}, o.N)
		for i := 0; i < o.N; i++ {
			next <- struct{}{}
		}
		close(next)
		for w := 0; w < k; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range next {
					if ctx.Err() != nil || lead.stopped() {
						return
					}
					t0 := time.Now()
					failed, err := do()
					record(time.Since(t0), failed, err)
				}
			}()
		}
		wg.Wait()
	}
	s := Summarize(samples)
	s.Errors, s.Timeouts, s.FirstError = errs, timeouts, firstErr
	if lead.stopped() {
		s.Stopped = lead.n
		// Nothing was measured: the timeouts that happened are the
		// figure, not the measured calls' share of them.
		s.Timeouts = lead.timeouts()
	}
	s.First = float64(firstNs)
	s.FirstTimedOut = firstTimedOut
	s.FirstSlow = s.N >= 5 && coldFirst(s.First, s.P50)
	return s
}

// leading watches the calls a series begins with: StopAfterTimeouts
// timeouts in a row, before any answer, stop it. Once one call is
// answered (or fails otherwise), later timeouts are counted as usual.
type leading struct {
	mu       sync.Mutex
	n        int
	answered bool
	all      int // every timeout seen, the first call's and warm-up's included
}

func (l *leading) see(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if isTimeout(err) {
		l.all++
	}
	switch {
	case l.answered || l.n >= StopAfterTimeouts:
	case isTimeout(err):
		l.n++
	default:
		l.answered = true
	}
}

func (l *leading) timeouts() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all
}

func (l *leading) stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.answered && l.n >= StopAfterTimeouts
}

// errText is a failure's message for FirstError: what the server said,
// bounded, never empty.
func errText(err error) string {
	if err == nil {
		return "a failure with no message"
	}
	msg := err.Error()
	var fe *probe.FatalError
	if errors.As(err, &fe) && fe.What != "" {
		msg = fe.What
	}
	if len(msg) > MaxErrorLen {
		cut := MaxErrorLen
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// answerError is an answer that says the call failed: a JSON-RPC error,
// or an isError result. It is timed like any answer.
type answerError struct{ msg string }

func (e *answerError) Error() string { return e.msg }

func isClosed(err error) bool {
	var ce *probe.ClosedError
	return errors.As(err, &ce)
}

// openLoop sends on a fixed schedule and times each call from the moment
// it was due, so a server that stalls pays for every call it delayed
// (no coordinated omission).
func openLoop(ctx context.Context, o Options, do func() (bool, error), record func(time.Duration, bool, error), stopped func() bool) {
	interval := time.Duration(float64(time.Second) / o.Rate)
	total := int(o.Duration / interval)
	if o.Duration <= 0 {
		total = o.N
	}
	start := time.Now()
	var wg sync.WaitGroup
	inFlight := make(chan struct{}, 4096)
	for i := 0; i < total && ctx.Err() == nil && !stopped(); i++ {
		due := start.Add(time.Duration(i) * interval)
		waitUntil(due)
		inFlight <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-inFlight }()
			failed, err := do()
			record(time.Since(due), failed, err)
		}()
	}
	wg.Wait()
}

// CallFunc makes a tool call into a Measure function: an isError result
// or a JSON-RPC error is a failure, still timed, its message kept.
func CallFunc(ctx context.Context, cl *probe.Client, call args.Call, timeout time.Duration) Op {
	return opOf(ctx, cl, "tools/call", cl.CallParams(call.Tool, call.Args), timeout, callOutcome)
}

func callOutcome(r probe.Response, err error) (bool, error) {
	if err != nil {
		return true, answered(err)
	}
	if gjson.GetBytes(r.Result, "isError").Bool() {
		text := gjson.GetBytes(r.Result, "content.#(type==\"text\").text").String()
		return true, &answerError{"an isError result: " + text}
	}
	return false, nil
}

func plainOutcome(_ probe.Response, err error) (bool, error) { return err != nil, answered(err) }

// opOf is the Op of one request, judged by outcome; it chains where the
// session can and the timeout is a bound (Chain needs one).
func opOf(ctx context.Context, cl *probe.Client, method string, params []byte, timeout time.Duration, outcome func(probe.Response, error) (bool, error)) Op {
	op := Op{Do: func() (bool, error) {
		return outcome(cl.Session.Call(ctx, method, params, timeout))
	}}
	if cl.Session.CanChain() && timeout > 0 {
		op.Chain = func(k int, before func(), each func(time.Duration, bool, error) bool) error {
			return cl.Session.Chain(ctx, method, params, timeout, k, before, func(d time.Duration, r probe.Response, err error) bool {
				failed, err := outcome(r, err)
				return each(d, failed, err)
			})
		}
	}
	return op
}

// answered turns a JSON-RPC error into an answerError; other errors (a
// timeout, a closed connection) stay as they are.
func answered(err error) error {
	var re *probe.RPCError
	if errors.As(err, &re) {
		return &answerError{fmt.Sprintf("JSON-RPC error %d: %s", re.Code, re.Message)}
	}
	return err
}

// PingFunc makes a ping into a Measure Op.
func PingFunc(ctx context.Context, cl *probe.Client, timeout time.Duration) Op {
	return opOf(ctx, cl, "ping", cl.Params(""), timeout, plainOutcome)
}

// ListFunc makes one tools/list request (its first page) into a Measure
// function: the baseline request of an era without ping.
func ListFunc(ctx context.Context, cl *probe.Client, timeout time.Duration) Op {
	return opOf(ctx, cl, "tools/list", cl.Params(""), timeout, plainOutcome)
}

// SortSeries keeps a stable order: startup, ping, then calls by name.
func SortSeries(s []Series) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}

// waitUntil sleeps until t, spinning through the last half millisecond:
// a sleep can overshoot by that much, and the overshoot would be charged
// to the server.
func waitUntil(t time.Time) {
	if d := time.Until(t) - 500*time.Microsecond; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
}
