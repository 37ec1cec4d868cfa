//go:build !linux

package main

import "os"

// peakKB: only Linux's wait4 peak is read (other systems count it in other
// units, or not at all); the sampled VmHWM stands alone there.
func peakKB(*os.ProcessState) int { return 0 }
