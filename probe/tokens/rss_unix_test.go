//go:build unix

package tokens

import (
	"os"
	"syscall"
)

// peakRSS is the child's peak resident set size as getrusage reports it
// (KiB on Linux, bytes on macOS).
func peakRSS(ps *os.ProcessState) int64 { return ps.SysUsage().(*syscall.Rusage).Maxrss }
