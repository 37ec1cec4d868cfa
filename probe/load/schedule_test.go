package load

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock moves only when told: a sleep jumps to its end, a request
// moves it by its service time. With one worker every run is the same.
type fakeClock struct {
	mu  sync.Mutex
	now time.Duration
}

func (c *fakeClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(_ context.Context, t time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now < t {
		c.now = t
	}
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	c.mu.Unlock()
}

const ms = time.Millisecond

func TestScheduleCoordinatedOmission(t *testing.T) {
	for _, tc := range []struct {
		name     string
		service  func(k int) time.Duration
		want     []time.Duration // latency from due, per request
		service0 []time.Duration // service times
	}{
		{
			name:     "a server that keeps up: latency is the service time",
			service:  func(int) time.Duration { return 2 * ms },
			want:     []time.Duration{2 * ms, 2 * ms, 2 * ms, 2 * ms, 2 * ms},
			service0: []time.Duration{2 * ms, 2 * ms, 2 * ms, 2 * ms, 2 * ms},
		},
		{
			// Request 0 stalls 1 s; 1..4 were due at 10, 20, 30, 40 ms and
			// queue behind it. Each is sent at once when the worker is
			// free and is charged its wait: a closed loop would have
			// timed them at 2 ms each.
			name: "a stalled server: the queued requests carry their wait",
			service: func(k int) time.Duration {
				if k == 0 {
					return time.Second
				}
				return 2 * ms
			},
			want:     []time.Duration{1000 * ms, 992 * ms, 984 * ms, 976 * ms, 968 * ms},
			service0: []time.Duration{1000 * ms, 2 * ms, 2 * ms, 2 * ms, 2 * ms},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{}
			p := Plan{Total: 5, Interval: 10 * ms, Drain: 10 * time.Second}
			got := Schedule(context.Background(), clk, p, 1, func(_ context.Context, w, k int) (Outcome, string) {
				clk.advance(tc.service(k))
				return OK, ""
			})
			if len(got) != 5 {
				t.Fatalf("%d samples, want 5", len(got))
			}
			for k, s := range got {
				if s.K != k || s.Due != time.Duration(k)*10*ms {
					t.Errorf("sample %d: k %d due %s", k, s.K, s.Due)
				}
				if s.Latency() != tc.want[k] || s.Service() != tc.service0[k] {
					t.Errorf("request %d: latency %s service %s, want %s and %s", k, s.Latency(), s.Service(), tc.want[k], tc.service0[k])
				}
			}
			var sr Series
			for _, s := range got {
				sr.add(s)
			}
			sr.Summarize()
			if tc.want[0] == time.Second && sr.P99Ns < float64(900*ms) {
				t.Errorf("p99 %v hides the stall", time.Duration(sr.P99Ns))
			}
		})
	}
}

func TestScheduleUnsentPastDrain(t *testing.T) {
	clk := &fakeClock{}
	// Request 0 takes 5 s; the plan ends 1 s after the last due time
	// (40 ms): requests 1–4 are never sent, and counted.
	p := Plan{Total: 5, Interval: 10 * ms, Drain: time.Second}
	got := Schedule(context.Background(), clk, p, 1, func(_ context.Context, w, k int) (Outcome, string) {
		clk.advance(5 * time.Second)
		return OK, ""
	})
	var sr Series
	for _, s := range got {
		sr.add(s)
	}
	sr.Summarize()
	if sr.OK != 1 || sr.Unsent != 4 || sr.Requests != 5 || sr.N != 1 {
		t.Fatalf("ok %d unsent %d requests %d n %d, want 1 4 5 1", sr.OK, sr.Unsent, sr.Requests, sr.N)
	}
	if r := sr.ErrorRatio(); r != 0.8 {
		t.Errorf("error ratio %g, want 0.8", r)
	}
}

func TestScheduleOutcomesAndOrder(t *testing.T) {
	clk := &fakeClock{}
	p := Plan{Total: 6, Interval: ms, Drain: time.Second}
	got := Schedule(context.Background(), clk, p, 1, func(_ context.Context, w, k int) (Outcome, string) {
		return []Outcome{OK, Failed, Timeout, OK, Failed, OK}[k], "boom"
	})
	var sr Series
	for _, s := range got {
		sr.add(s)
	}
	sr.Summarize()
	if sr.OK != 3 || sr.Errors != 2 || sr.Timeouts != 1 || sr.N != 5 || sr.FirstError != "boom" {
		t.Fatalf("%+v", sr)
	}
}

func TestPlanShards(t *testing.T) {
	// Three shards of 10 requests at 100/s cover the whole schedule once.
	o := Options{Requests: 10, Shard: Shard{N: 3}}
	seen := map[time.Duration]int{}
	total := 0
	for i := 0; i < 3; i++ {
		o.Shard.I = i
		p := o.plan(100)
		total += p.Total
		for k := 0; k < p.Total; k++ {
			seen[p.Due(k)]++
		}
	}
	if total != 10 || len(seen) != 10 {
		t.Fatalf("%d requests at %d due times, want 10 and 10", total, len(seen))
	}
	for k := 0; k < 10; k++ {
		if seen[time.Duration(k)*10*ms] != 1 {
			t.Errorf("due %s: %d shards, want 1", time.Duration(k)*10*ms, seen[time.Duration(k)*10*ms])
		}
	}
}

func durationNs(ns int64) time.Duration { return time.Duration(ns) }

func TestScheduleInterrupted(t *testing.T) {
	// Cancelled during request 2: it and the rest are abandoned, not
	// counted as the server's failures.
	clk := &fakeClock{}
	ctx, cancel := context.WithCancel(context.Background())
	p := Plan{Total: 6, Interval: ms, Drain: time.Second}
	got := Schedule(ctx, clk, p, 1, func(ctx context.Context, w, k int) (Outcome, string) {
		if k == 2 {
			cancel()
			return Failed, "context canceled"
		}
		return OK, ""
	})
	var sr Series
	for _, s := range got {
		sr.add(s)
	}
	if sr.Requests != 2 || sr.OK != 2 || sr.Errors != 0 || sr.Unsent != 0 {
		t.Fatalf("requests %d ok %d errors %d unsent %d, want 2 2 0 0", sr.Requests, sr.OK, sr.Errors, sr.Unsent)
	}
}
