package main

import (
	"os"
	"syscall"
)

// peakKB is the peak resident set of an exited process, in KiB, as wait4
// reported it.
func peakKB(ps *os.ProcessState) int {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int(ru.Maxrss)
	}
	return 0
}
