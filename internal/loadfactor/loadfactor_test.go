package loadfactor

import (
	"testing"
	"time"
)

func TestFactorAtLeastOne(t *testing.T) {
	t.Log(Describe())
	if f := Factor(); f < raceFactor || f > maxFactor*raceFactor {
		t.Fatalf("factor %v, want %d to %d", f, raceFactor, maxFactor*raceFactor)
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
	if Factor() < before+1 && Factor() != maxFactor*raceFactor {
		t.Errorf("a slow observation did not raise the factor: %v → %v", before, Factor())
	}
	Observe("huge", time.Hour, time.Millisecond)
	if Factor() != maxFactor*raceFactor {
		t.Errorf("factor %v, want the cap %d", Factor(), maxFactor*raceFactor)
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
