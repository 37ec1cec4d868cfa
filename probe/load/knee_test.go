package load

import (
	"testing"
	"time"
)

func step(rate float64, p99 time.Duration, requests, errs int) Step {
	s := &Series{Name: "all", Requests: requests, OK: requests - errs, Errors: errs}
	for i := 0; i < requests-errs; i++ {
		s.SamplesNs = append(s.SamplesNs, int64(p99))
	}
	s.Summarize()
	return Step{Rate: rate, All: s}
}

func TestFindKnee(t *testing.T) {
	b := Bound{MaxP99: 50 * ms, MaxErrors: 0.01}
	for _, tc := range []struct {
		name           string
		steps          []Step
		knee, lastGood int
		why            string
	}{
		{"every step keeps the bound", []Step{step(10, ms, 100, 0), step(20, 2*ms, 100, 0)}, -1, 1, ""},
		{"p99 breaks at the third", []Step{step(10, ms, 100, 0), step(20, 9*ms, 100, 0), step(30, 80*ms, 100, 0)}, 2, 1, "p99 80ms over --max-p99 50ms"},
		{"errors break at the second", []Step{step(10, ms, 100, 1), step(20, ms, 100, 2)}, 1, 0, "error ratio 0.0200 over --max-errors 0.01 (2 errors, 0 timeouts, 0 unsent of 100)"},
		{"the first step breaks", []Step{step(10, 90*ms, 100, 0), step(20, ms, 100, 0)}, 0, -1, "p99 90ms over --max-p99 50ms"},
		{"nothing answered", []Step{step(10, ms, 0, 0)}, 0, -1, "no request answered"},
		{"a step after the knee is not looked at", []Step{step(10, ms, 10, 0), step(20, 60*ms, 10, 0), step(30, ms, 10, 0)}, 1, 0, "p99 60ms over --max-p99 50ms"},
		{"no steps", nil, -1, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := FindKnee(tc.steps, b)
			if k.Knee != tc.knee || k.LastGood != tc.lastGood || k.Why != tc.why {
				t.Fatalf("knee %d last good %d why %q, want %d %d %q", k.Knee, k.LastGood, k.Why, tc.knee, tc.lastGood, tc.why)
			}
			if (k.KneeRate == nil) != (tc.knee < 0) || (k.LastGoodRate == nil) != (tc.lastGood < 0) {
				t.Fatalf("rates %v %v", k.KneeRate, k.LastGoodRate)
			}
			if tc.knee >= 0 && *k.KneeRate != tc.steps[tc.knee].Rate {
				t.Errorf("knee rate %g", *k.KneeRate)
			}
		})
	}
}

func TestBoundNoP99(t *testing.T) {
	// --max-p99 0 bounds errors only.
	if why := (Bound{MaxErrors: 0}).Broken(step(10, time.Hour, 10, 0).All); why != "" {
		t.Fatal(why)
	}
}
