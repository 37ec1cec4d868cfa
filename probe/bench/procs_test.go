package bench

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
)

// TestMeasureOneProcessorForOneCaller: the closed loop with one call in
// flight runs on one processor, so a response wakes its caller on the
// thread that read it; more in flight, or an open loop, keep them all;
// and the setting is restored afterwards either way.
func TestMeasureOneProcessorForOneCaller(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if before < 2 {
		runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(before)
		before = 2
	}
	for _, tc := range []struct {
		name string
		o    Options
		want int
	}{
		{"closed loop, one in flight", Options{N: 5}, 1},
		{"closed loop, two in flight", Options{N: 5, Concurrency: 2}, before},
		{"open loop", Options{N: 5, Rate: 1000}, before},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := -1
			Measure(context.Background(), tc.o, Op{Do: func() (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				seen = max(seen, runtime.GOMAXPROCS(0))
				return false, nil
			}}, nil)
			if seen != tc.want {
				t.Errorf("GOMAXPROCS during the loop %d, want %d", seen, tc.want)
			}
			if got := runtime.GOMAXPROCS(0); got != before {
				t.Errorf("GOMAXPROCS after %d, want %d restored", got, before)
			}
		})
	}
}

// fakeChain is an Op whose Chain answers at once, counting what Measure
// asked of it.
type fakeChain struct {
	mu     sync.Mutex
	dos    int
	chains []int // k of each Chain call
	procs  int   // the most GOMAXPROCS seen in a chain
	fail   func(i int) error
	made   int
}

func (f *fakeChain) op() Op {
	return Op{
		Do: func() (bool, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.dos++
			var err error
			if f.fail != nil {
				err = f.fail(f.made)
			}
			f.made++
			return err != nil, err
		},
		Chain: func(k int, before func(), each func(time.Duration, bool, error) bool) error {
			f.mu.Lock()
			f.chains = append(f.chains, k)
			f.procs = max(f.procs, runtime.GOMAXPROCS(0))
			f.mu.Unlock()
			for i := 0; i < k; i++ {
				if before != nil {
					before()
				}
				var err error
				if f.fail != nil {
					err = f.fail(f.made)
				}
				f.made++
				if !each(time.Duration(i+1)*time.Microsecond, err != nil, err) {
					return nil
				}
			}
			return nil
		},
	}
}

// TestMeasureChains: with one call in flight and an Op that can chain,
// Measure makes the first call with Do, then the warm-up and the series
// as two chains, leaves GOMAXPROCS alone (no hand-off to schedule) and
// keeps every outcome as a sample; more in flight, or an open loop, loop
// on Do as before. A series that only times out from the start stops.
func TestMeasureChains(t *testing.T) {
	all := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name       string
		o          Options
		fail       func(int) error
		wantDos    int
		wantChains []int
		wantN      int
		wantStop   int
	}{
		{"one in flight", Options{N: 20, Warmup: 6}, nil, 1, []int{6, 20}, 20, 0},
		{"no warm-up", Options{N: 5}, nil, 1, []int{5}, 5, 0},
		{"two in flight", Options{N: 8, Concurrency: 2}, nil, 9, nil, 8, 0},
		{"only timeouts", Options{N: 20, Warmup: 2}, func(int) error { return &probe.TimeoutError{Method: "x", After: time.Second} }, 1, []int{2}, 0, StopAfterTimeouts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeChain{fail: tc.fail}
			s := Measure(context.Background(), tc.o, f.op(), nil)
			if f.dos != tc.wantDos || !slices.Equal(f.chains, tc.wantChains) {
				t.Errorf("Do %d times, chains %v; want %d, %v", f.dos, f.chains, tc.wantDos, tc.wantChains)
			}
			if s.N != tc.wantN || s.Stopped != tc.wantStop {
				t.Errorf("%d samples, stopped after %d; want %d, %d", s.N, s.Stopped, tc.wantN, tc.wantStop)
			}
			if len(f.chains) > 0 && f.procs != all {
				t.Errorf("GOMAXPROCS %d in the chain, want %d (left alone)", f.procs, all)
			}
		})
	}
}
