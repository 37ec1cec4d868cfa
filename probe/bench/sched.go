package bench

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The closed loop's scheduling, for a connection that cannot chain its
// calls (Op.Chain: over HTTP; a stdio server's closed loop chains, and
// runs with every P, as a single-threaded raw client does, since no
// goroutine hands a response to another). Chosen at the start of a run
// by what the machine's CPUs are doing, measured, not assumed:
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
// Both were right on their day, and wrong on another: on the same 2 cores
// at load average 3 (2026-12-02) one P took 14-18 µs where all Ps took
// 20-37 µs and a raw Go client on all Ps 12-17 µs. So the closed loop
// measures it (calibrate): the warm-up's calls run in blocks on one P and
// on all in turn, and the rest of the series runs on the faster (all Ps
// only when clearly faster: fewerPs). The
// idle-CPU rule below only decides when the warm-up is too short for
// that (fewer than 2 blocks of calls).
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

// calBlock is how many warm-up calls calibrate runs in a row on one
// setting; the first of each block, run just after the switch, is not
// counted. maxCalBlocks bounds the calls calibration takes.
const (
	calBlock     = 3
	maxCalBlocks = 10
)

// calibrate spends up to warmup of the warm-up's calls measuring the
// closed loop on one P and on all Ps, in alternate blocks, and leaves
// GOMAXPROCS at the faster; it returns how many calls it made. prefer1 is
// the choice when the blocks cannot tell (no call answered on one side).
// The calls are warm-up: none of them is a sample of the series.
func calibrate(ctx context.Context, do func() (bool, error), lead *leading, all, warmup int, prefer1 bool) int {
	var t [2][]int64 // one P, all Ps
	used := 0
	for b := 0; b < min(warmup/calBlock, maxCalBlocks) && !lead.stopped() && ctx.Err() == nil; b++ {
		m := b % 2
		runtime.GOMAXPROCS([2]int{1, all}[m])
		for i := 0; i < calBlock; i++ {
			t0 := time.Now()
			_, err := do()
			d := time.Since(t0)
			lead.see(err)
			used++
			if i > 0 && err == nil {
				t[m] = append(t[m], int64(d))
			}
		}
	}
	if fewerPs(t[0], t[1], prefer1) {
		runtime.GOMAXPROCS(1)
	} else {
		runtime.GOMAXPROCS(all)
	}
	return used
}

// fewerPs decides from calibration's round trips (ns) on one P and on
// all Ps: all Ps only when their median is clearly lower (under
// allPsGain of one P's), one P otherwise; fallback when either side has
// no sample. Where the two are within the noise of a few warm-up calls
// one P is the safer: under two CPU burners on 2 cores one P measured
// 15-30 µs against 17-34 µs on all, with the calibration's blocks as
// noisy as that; where all Ps win they win by far (45-130 µs against
// 120-195 µs at load average 0.8).
func fewerPs(one, all []int64, fallback bool) bool {
	if len(one) == 0 || len(all) == 0 {
		return fallback
	}
	return medianNs(all) >= allPsGain*medianNs(one)
}

// allPsGain is how much faster all Ps must measure to be chosen.
const allPsGain = 0.9

func medianNs(xs []int64) float64 {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	return median(f)
}
