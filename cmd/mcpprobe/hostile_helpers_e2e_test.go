//go:build e2e

package main

// Helpers of the hostile-server tests (issue 12): running mcpprobe with
// an environment of its own, measuring its peak memory, and checking that
// no process a server started is left.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxRSSKB is the bound every hostile case must stay under: 500 MiB, or
// no bound for a binary built with the race detector, whose shadow memory
// costs several times what it watches.
var maxRSSKB = func() int {
	if os.Getenv("MCPPROBE_E2E_RACE") != "" {
		return 1 << 40
	}
	return 500 << 10
}()

type measured struct {
	result
	hwmKB int // the peak resident set of the mcpprobe process (see measurePeak)
}

// probeRun runs mcpprobe with env added to the test's environment and
// stdin as given (nil: none), bounded by a minute, and measures its peak
// memory.
func probeRun(t *testing.T, env []string, stdin []byte, args ...string) measured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
	cmd.Env = append(os.Environ(), env...)
	peak := measurePeak(cmd)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mcpprobe %q ran for %v", args, bound(time.Minute))
	}
	r := measured{result: result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}, hwmKB: peak()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpprobe: %v", err)
	}
	return r
}

// vmHWM is the peak resident set of pid in KiB, 0 once it is gone.
func vmHWM(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// pidsIn reads a rawserver -pidfile: the servers' pids and their
// escaped grandchildren's.
func pidsIn(t *testing.T, path string) []int {
	t.Helper()
	b, _ := os.ReadFile(path)
	var pids []int
	for _, w := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(w); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// noneLeft fails the test for every pid still running (a zombie waiting
// for a reaper that will never come does not count), and kills it.
func noneLeft(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(bound(2 * time.Second))
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d outlived mcpprobe", pid)
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
}

// pidFile is a fresh path for a rawserver -pidfile.
func pidFile(t *testing.T) string { return filepath.Join(t.TempDir(), "pids") }
