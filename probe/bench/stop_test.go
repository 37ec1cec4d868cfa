package bench

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

// A series that begins with StopAfterTimeouts timeouts in a row is
// stopped there; one that was answered first counts later timeouts and
// runs to its end; an error that is not a timeout is an answer.
func TestMeasureStopsOnLeadingTimeouts(t *testing.T) {
	timeout := &probe.TimeoutError{Method: "tools/call"}
	tests := []struct {
		name          string
		outcomes      string // per call: t timeout, o ok, e error; the last repeats
		warmup, n     int
		concurrency   int
		calls         int // do() calls made
		stopped, errs int
		timeouts      int // -1: not asserted
		firstTimedOut bool
	}{
		// A stopped series counts every timeout that happened, the first
		// call's and the warm-up's included: there is no measured n for
		// the count to be "of".
		{"all time out", "t", 3, 5, 1, 2, 2, 0, 2, true},
		{"no warmup: the second is measured", "t", 0, 5, 1, 2, 2, 0, 2, true},
		{"answered first, then timeouts", "ott", 0, 4, 1, 5, 0, 0, 4, false},
		{"one timeout, then answers", "to", 1, 4, 1, 6, 0, 0, 0, true},
		{"an error is an answer", "etttt", 0, 4, 1, 5, 0, 0, 4, false},
		{"concurrent", "t", 0, 8, 2, 0, 2, 0, -1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			do := func() (bool, error) {
				mu.Lock()
				i := min(calls, len(tc.outcomes)-1)
				calls++
				mu.Unlock()
				switch tc.outcomes[i] {
				case 't':
					return true, timeout
				case 'e':
					return true, &answerError{"no"}
				}
				return false, nil
			}
			s := Measure(context.Background(), Options{N: tc.n, Warmup: tc.warmup, Concurrency: tc.concurrency}, Op{Do: do}, nil)
			if s.Stopped != tc.stopped || s.Errors != tc.errs {
				t.Errorf("stopped %d, errors %d; want %d, %d", s.Stopped, s.Errors, tc.stopped, tc.errs)
			}
			if tc.timeouts >= 0 && s.Timeouts != tc.timeouts {
				t.Errorf("timeouts %d, want %d", s.Timeouts, tc.timeouts)
			}
			if tc.timeouts < 0 && s.Stopped > 0 && s.Timeouts < s.Stopped {
				t.Errorf("timeouts %d of a series stopped after %d timeouts", s.Timeouts, s.Stopped)
			}
			if s.FirstTimedOut != tc.firstTimedOut {
				t.Errorf("first timed out: %v, want %v", s.FirstTimedOut, tc.firstTimedOut)
			}
			// With two callers, each may have one call under way when the
			// second timeout stops the series: at most 2 + 1.
			if tc.calls > 0 && calls != tc.calls || tc.calls == 0 && calls > StopAfterTimeouts+1 {
				t.Errorf("%d calls made, want %d", calls, tc.calls)
			}
		})
	}
}

// A call abandoned because the run ended (its budget) is no failure of
// the server's: neither counted nor timed.
func TestMeasureDropsAbandonedCalls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	do := func() (bool, error) {
		calls++
		if calls == 4 {
			cancel()
			return true, context.Canceled
		}
		return false, nil
	}
	s := Measure(ctx, Options{N: 10, Concurrency: 1}, Op{Do: do}, nil)
	if s.N != 2 || s.Errors != 0 || s.Stopped != 0 {
		t.Errorf("n %d, errors %d, stopped %d: want the 2 measured calls before the end, no error", s.N, s.Errors, s.Stopped)
	}
	if !errors.Is(ctx.Err(), context.Canceled) || calls != 4 {
		t.Errorf("%d calls", calls)
	}
}
