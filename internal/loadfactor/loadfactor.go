// Package loadfactor says how much slower this machine runs now than the
// idle two-core machine the tests' wall-clock bounds were set on, so that
// a test bounded by time scales its bound with the load instead of
// flaking under it. Only tests import it.
//
// The factor is measured once per test process: a fixed piece of CPU work
// (hashing) timed against its idle reference, and, in a package that
// starts servers, whatever that package observes of its own (Observe: a
// known server's start timed against its idle reference). Load that comes
// later (a package's own parallel tests, another package's) is seen in
// the system's load average per core, read at each use where the system
// has one (Linux): the factor is the larger of the two. It is never below
// 1, so an idle or faster machine keeps the bounds as written. The
// environment variable MCPPROBE_TEST_SLOWDOWN raises it (a number, such
// as 4), for a machine whose load comes and goes after the measurement.
// Built with -race, the factor is five times that (race.go).
package loadfactor

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Env names the variable that sets a floor under the factor.
const Env = "MCPPROBE_TEST_SLOWDOWN"

// maxFactor caps the factor: past it the machine is too loaded for any
// bound to mean much, and a test should fail rather than wait for ever.
const maxFactor = 20

// cpuReference is how long cpuWork takes on the idle reference machine
// (2 cores; its CPU time, which is what the work takes with no one else
// wanting the core); the work is sized so that five runs cost a tenth of
// a second.
const cpuReference = 18 * time.Millisecond

var (
	mu       sync.Mutex
	once     sync.Once
	factor   float64
	measured string
)

// Factor is how many times slower than the reference the machine runs,
// 1 or more.
func Factor() float64 {
	once.Do(calibrate)
	mu.Lock()
	f := factor
	mu.Unlock()
	if l := loadPerCore(); l > f {
		f = math.Min(l, maxFactor)
	}
	return f * raceFactor
}

// loadPerCore is the one-minute load average over the cores (0 where
// there is none to read): how many runnable tasks share each core, about
// how many times slower a CPU-bound task runs.
func loadPerCore() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	if _, err := fmt.Sscanf(string(b), "%g", &l); err != nil {
		return 0
	}
	return l / float64(runtime.NumCPU())
}

// Scale is a wall-clock bound set on the idle reference machine, scaled to
// this machine's measured load.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// Seconds is Scale for a duration given to the binary under test as a
// flag value ("3s" scaled by 2.5 is "7.5s").
func Seconds(d time.Duration) string { return Scale(d).Round(time.Millisecond).String() }

// Observe raises the factor to took/reference, when that is larger: a
// package's own measurement of something it knows the idle time of.
func Observe(what string, took, reference time.Duration) {
	once.Do(calibrate)
	mu.Lock()
	defer mu.Unlock()
	f := math.Min(float64(took)/float64(reference), maxFactor)
	measured += fmt.Sprintf("; %s %v (idle %v): %.2f×", what, took.Round(time.Millisecond), reference, f)
	if f > factor {
		factor = f
	}
}

// Describe says what the factor is and how it was reached, for a test log.
func Describe() string {
	f := Factor()
	mu.Lock()
	defer mu.Unlock()
	return fmt.Sprintf("load factor %.2f (%s; load average per core %.2f)", f, measured, loadPerCore())
}

func calibrate() {
	c := cpuFactor()
	measured = fmt.Sprintf("cpu work %.2f×", c)
	factor = math.Min(math.Max(1, c), maxFactor)
	// The variable is the user's word, above the cap if they say so.
	if s := os.Getenv(Env); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
			measured += fmt.Sprintf("; %s=%s", Env, s)
			factor = math.Max(factor, v)
		}
	}
}

// cpuFactor times cpuWork five times and takes the median against the
// reference: one run can be lucky or unlucky with the scheduler.
func cpuFactor() float64 {
	var runs []time.Duration
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		cpuWork()
		runs = append(runs, time.Since(t0))
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	return float64(runs[2]) / float64(cpuReference)
}

// cpuWork hashes 25 MiB; its result is returned so that the work cannot
// be optimised away.
func cpuWork() byte {
	buf := make([]byte, 64<<10)
	var sum [32]byte
	for i := 0; i < 400; i++ {
		buf[0] = sum[0] ^ byte(i)
		sum = sha256.Sum256(buf)
	}
	return sum[0]
}
