package bench

import (
	"context"
	"runtime"
	"sync"
	"testing"
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
			Measure(context.Background(), tc.o, func() (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				seen = max(seen, runtime.GOMAXPROCS(0))
				return false, nil
			}, nil)
			if seen != tc.want {
				t.Errorf("GOMAXPROCS during the loop %d, want %d", seen, tc.want)
			}
			if got := runtime.GOMAXPROCS(0); got != before {
				t.Errorf("GOMAXPROCS after %d, want %d restored", got, before)
			}
		})
	}
}
