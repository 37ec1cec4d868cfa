package bench

import (
	"context"
	"runtime"
	"testing"
)

func TestParseCPULine(t *testing.T) {
	tests := []struct {
		line        string
		idle, total uint64
		ok          bool
	}{
		{"cpu  100 5 50 800 20 1 2 3 40 0", 820, 981, true},
		{"cpu 1 2 3 4 5", 9, 15, true},
		{"cpu0 1 2 3 4 5 6 7 8", 0, 0, false},
		{"cpu 1 2 x 4 5", 0, 0, false},
		{"cpu 1 2", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		idle, total, ok := parseCPULine(tc.line)
		if idle != tc.idle || total != tc.total || ok != tc.ok {
			t.Errorf("parseCPULine(%q) = %d, %d, %v; want %d, %d, %v", tc.line, idle, total, ok, tc.idle, tc.total, tc.ok)
		}
	}
	if idle, ok := idleCPUs(10e6); ok && (idle < 0 || idle > 1024) {
		t.Errorf("idleCPUs = %v", idle)
	}
}

func TestFewerPs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		one, all []int64
		fallback bool
		want     bool
	}{
		{"one P faster", []int64{14, 15, 16, 90}, []int64{30, 31, 20, 37}, false, true},
		{"all Ps faster", []int64{120, 150, 195}, []int64{45, 60, 130}, true, false},
		{"all Ps faster by less than a tenth: one P", []int64{100, 100, 100}, []int64{95, 95, 95}, false, true},
		{"all Ps faster by more than a tenth", []int64{100, 100, 100}, []int64{85, 85, 85}, true, false},
		{"a tie keeps one P", []int64{10, 20}, []int64{20, 10}, false, true},
		{"one outlier does not decide", []int64{10, 11, 12, 1000, 1000}, []int64{20, 21, 22, 1, 1}, false, true},
		{"no sample on one P: fallback", nil, []int64{1}, true, true},
		{"no sample on all Ps: fallback", []int64{1}, nil, false, false},
	} {
		if got := fewerPs(tc.one, tc.all, tc.fallback); got != tc.want {
			t.Errorf("%s: fewerPs = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCalibrationIsWarmup: calibrating the loop's scheduling spends
// warm-up calls only: a series makes 1 + warmup + n calls whatever the
// warm-up, and GOMAXPROCS is as it was after.
func TestCalibrationIsWarmup(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, warmup := range []int{0, 5, 6, 10, 30, 100} {
		calls := 0
		do := func() (bool, error) { calls++; return false, nil }
		s := Measure(context.Background(), Options{N: 20, Warmup: warmup}, Op{Do: do}, nil)
		if calls != 1+warmup+20 || s.N != 20 {
			t.Errorf("warmup %d: %d calls, n %d; want %d calls, n 20", warmup, calls, s.N, 1+warmup+20)
		}
		if p := runtime.GOMAXPROCS(0); p != procs {
			t.Errorf("warmup %d: GOMAXPROCS %d after, was %d", warmup, p, procs)
		}
	}
}
