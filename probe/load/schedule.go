package load

import (
	"context"
	"sync"
	"time"
)

// Clock is the scheduler's time: the real monotonic clock in a run, a
// fake one in tests (a stalled server without waiting for it).
type Clock interface {
	// Now is the time since the clock's start.
	Now() time.Duration
	// SleepUntil waits until Now() >= t, or ctx is done.
	SleepUntil(ctx context.Context, t time.Duration)
}

// realClock is the monotonic clock from its creation.
type realClock struct{ start time.Time }

func newRealClock() *realClock { return &realClock{start: time.Now()} }

func (c *realClock) Now() time.Duration { return time.Since(c.start) }

// SleepUntil sleeps on a timer until t. It used to spin through the last
// half millisecond, as a timer can fire late: at a thousand requests a
// second that spin was most of the generator's CPU (1.2–3× vegeta's per
// request). A timer's lateness (Sent − Due, tens of microseconds;
// scripts/bench-load.sh prints it) stays in the latency, counted from the
// due time, and out of the service time, counted from the send.
func (c *realClock) SleepUntil(ctx context.Context, t time.Duration) {
	d := t - c.Now()
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	select {
	case <-ctx.Done():
		tm.Stop()
	case <-tm.C:
	}
}

// Plan is one open-loop schedule: request k (0 ≤ k < Total) is due at
// Offset + k × Interval on the clock. A shard's plan is every N-th
// request of the whole run's, starting at its index.
type Plan struct {
	Total    int
	Interval time.Duration
	Offset   time.Duration
	// Drain is how long after the last request's due time a request may
	// still be sent: one not sent by then is Unsent (counted, not timed).
	Drain time.Duration
}

// Due is when request k is due.
func (p Plan) Due(k int) time.Duration { return p.Offset + time.Duration(k)*p.Interval }

// end is the last moment a request may be sent.
func (p Plan) end() time.Duration { return p.Due(max(p.Total-1, 0)) + p.Drain }

// Outcome is how one request ended.
type Outcome int

const (
	OK      Outcome = iota // answered with a result
	Failed                 // a JSON-RPC error, an isError result, a closed session
	Timeout                // no answer within --timeout
	Unsent                 // never sent: its time ran past the schedule's end
	// Abandoned: the run was interrupted before it was sent or answered;
	// it is not counted at all (the server did not fail it).
	Abandoned
)

func (o Outcome) String() string {
	return [...]string{"ok", "error", "timeout", "unsent", "abandoned"}[o]
}

// Sample is one request of the schedule: when it was due, sent and done
// (on the scheduler's clock), and how it ended. Latency is Done − Due: a
// request queued behind a stalled server carries its wait (no
// coordinated omission); Service is Done − Sent.
type Sample struct {
	K       int
	Worker  int
	Due     time.Duration
	Sent    time.Duration
	Done    time.Duration
	Outcome Outcome
	Err     string
}

// Latency is the time from when the request was due to its answer.
func (s Sample) Latency() time.Duration { return s.Done - s.Due }

// Service is the time from when it was sent to its answer.
func (s Sample) Service() time.Duration { return s.Done - s.Sent }

// Do sends request k on worker w and says how it ended.
type Do func(ctx context.Context, w, k int) (Outcome, string)

// Schedule runs the plan on workers, each one request in flight: a free
// worker takes the next request in schedule order, waits until it is due
// if it is early, and sends it at once if it is late. A request's latency
// counts from when it was due, so a server that stalls pays for every
// request its stall delayed, as an open-loop client that never waits
// would see. Requests still unsent at the plan's end (Drain after the
// last due time) are Unsent; those ctx ended (an interrupt) before their
// answer are Abandoned. The samples come back in schedule order.
func Schedule(ctx context.Context, clk Clock, p Plan, workers int, do Do) []Sample {
	out := make([]Sample, p.Total)
	for k := range out {
		out[k] = Sample{K: k, Due: p.Due(k), Worker: -1, Outcome: Unsent}
	}
	var mu sync.Mutex
	next := 0
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if next >= p.Total {
			return -1
		}
		k := next
		next++
		return k
	}
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := take()
				if k < 0 || ctx.Err() != nil {
					return
				}
				clk.SleepUntil(ctx, out[k].Due)
				now := clk.Now()
				switch {
				case ctx.Err() != nil:
					out[k].Outcome = Abandoned
					continue
				case now > p.end():
					continue // left Unsent; the ones after it are later still
				}
				oc, msg := do(ctx, w, k)
				done := clk.Now()
				if ctx.Err() != nil && oc != OK {
					out[k].Outcome = Abandoned // by the interrupt, not failed by the server
					continue
				}
				out[k] = Sample{K: k, Worker: w, Due: out[k].Due, Sent: now, Done: done, Outcome: oc, Err: msg}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		for k := range out {
			if out[k].Outcome == Unsent && out[k].Worker < 0 {
				out[k].Outcome = Abandoned // never taken: the run ended first
			}
		}
	}
	return out
}
