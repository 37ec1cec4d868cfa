package loadfactor

import (
	"testing"
	"time"
)

func TestFactorAtLeastOne(t *testing.T) {
	t.Log(Describe())
	if f := Factor(); f < 1 || f > maxFactor {
		t.Fatalf("factor %v, want 1 to %d", f, maxFactor)
	}
	if got := Scale(time.Second); got < time.Second {
		t.Errorf("Scale(1s) = %v, below the bound as written", got)
	}
}

func TestObserveRaisesOnly(t *testing.T) {
	before := Factor()
	Observe("nothing", time.Millisecond, time.Second)
	if Factor() < before && loadPerCore() <= before {
		t.Errorf("a fast observation lowered or changed the factor: %v → %v", before, Factor())
	}
	Observe("slow", time.Duration(float64(time.Second)*(before+2)), time.Second)
	if Factor() < before+1 && Factor() != maxFactor {
		t.Errorf("a slow observation did not raise the factor: %v → %v", before, Factor())
	}
	Observe("huge", time.Hour, time.Millisecond)
	if Factor() != maxFactor {
		t.Errorf("factor %v, want the cap %d", Factor(), maxFactor)
	}
}

// TestCPUWorkCost prints the work's time, for setting cpuReference.
func TestCPUWorkCost(t *testing.T) {
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		cpuWork()
		t.Logf("cpu work %v", time.Since(t0))
	}
}
