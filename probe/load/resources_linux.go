package load

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux mcpprobe is built for (reading sysconf needs cgo).
const clockTicks = 100

// readResources sums /proc/PID/stat's utime, stime, cutime and cstime and
// reads /proc/PID/status's VmHWM for every process whose process group is
// one of pgids.
func readResources(pgids []int) *Resources {
	want := map[int]bool{}
	for _, g := range pgids {
		want[g] = true
	}
	r := &Resources{Source: "/proc"}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// The command sits in parentheses and may hold anything: the
		// fields follow the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		// f[0] is state (field 3); pgrp is field 5, utime..cstime 14..17.
		if len(f) < 15 {
			continue
		}
		pg, _ := strconv.Atoi(f[2])
		if !want[pg] {
			continue
		}
		r.Processes++
		var ticks int64
		for _, j := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseInt(f[j], 10, 64)
			ticks += v
		}
		r.CPUNs += ticks * (1e9 / clockTicks)
		if hwm := vmHWM(d + "/status"); hwm > 0 {
			r.RSSPeakSumBytes += hwm
			r.RSSPeakBytes = max(r.RSSPeakBytes, hwm)
		}
	}
	if r.Processes == 0 {
		return nil
	}
	return r
}

func vmHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
