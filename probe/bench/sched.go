package bench

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The closed loop's scheduling, chosen at the start of a run by what the
// machine's CPUs are doing, measured, not assumed:
//
//   - On a busy machine (less than one CPU idle) the loop runs on one P
//     (GOMAXPROCS 1): every response handed to the waiting caller would
//     otherwise wake another OS thread (a futex call, then a wait for a
//     CPU that is not free), which profiled as the largest share of a fast
//     server's round trip. On one P the caller runs on the thread that read
//     its response, as a single-threaded client does. Measured on 2 shared
//     cores at load average 14-19: mcpprobe on one P 17 µs p50 against 21-38
//     µs on all Ps, a raw Go client 13-28 µs (scripts/bench-latency.sh).
//   - With a CPU idle besides the one the loop runs on, the loop keeps every
//     P: the second thread wakes on an idle CPU at once, and the one-P
//     loop's cost (the reader and the caller taking turns on one thread)
//     is what remains. Measured at load average 0.8 (issue 29): one P
//     120-195 µs against 45-130 µs for a raw Go client on all Ps, which
//     forced to one P was 160-200 µs.
//
// idleCPUs samples /proc/stat over idleSample; where it cannot be read
// (not Linux) the loop runs on one P, as it always did.
const idleSample = 100 * time.Millisecond

// allPs reports whether the closed loop should keep every P: more than
// one CPU, and at least one of them idle over the sample.
func allPs() bool {
	if runtime.GOMAXPROCS(0) < 2 {
		return false
	}
	idle, ok := idleCPUs(idleSample)
	return ok && idle >= 1
}

// idleCPUs is how many CPUs' worth of time was idle over d, from the
// kernel's counters (the aggregate "cpu" line of /proc/stat).
func idleCPUs(d time.Duration) (float64, bool) {
	i0, t0, ok := cpuTimes()
	if !ok {
		return 0, false
	}
	time.Sleep(d)
	i1, t1, ok := cpuTimes()
	if !ok || t1 <= t0 {
		return 0, false
	}
	return float64(i1-i0) / float64(t1-t0) * float64(runtime.NumCPU()), true
}

// cpuTimes reads the idle (idle + iowait) and total jiffies of all CPUs.
func cpuTimes() (idle, total uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPULine(line)
}

// parseCPULine reads /proc/stat's aggregate line: "cpu user nice system
// idle iowait irq softirq steal guest guest_nice" in jiffies; guest time
// is counted in user already, so the total stops at steal.
func parseCPULine(line string) (idle, total uint64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if i < 8 {
			total += v
		}
		if i == 3 || i == 4 {
			idle += v
		}
	}
	return idle, total, true
}
