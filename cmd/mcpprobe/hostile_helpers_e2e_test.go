package main

// Helpers of the hostile-server tests (issue 12): running mcpprobe with
// an environment of its own, measuring its peak memory, and checking that
// no process a server started is left.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	hwmKB int // the peak resident set of the mcpprobe process, VmHWM
}

// probeRun runs mcpprobe with env added to the test's environment and
// stdin as given (nil: none), bounded by a minute, and measures its peak
// memory by reading /proc/PID/status while it runs.
func probeRun(t *testing.T, env []string, stdin []byte, args ...string) measured {
	t.Helper()
	cmd := exec.Command(bin.mcpprobe, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	hwm := 0
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	limit := time.NewTimer(time.Minute)
	defer limit.Stop()
	var err error
loop:
	for {
		select {
		case err = <-done:
			break loop
		case <-tick.C:
			hwm = max(hwm, vmHWM(cmd.Process.Pid))
		case <-limit.C:
			_ = cmd.Process.Kill()
			t.Fatalf("mcpprobe %q ran for a minute", args)
		}
	}
	// A run quicker than the first sample has its peak from wait4 (which
	// counts the servers it reaped too).
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		hwm = max(hwm, int(ru.Maxrss))
	}
	r := measured{result: result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}, hwmKB: hwm}
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
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d outlived mcpprobe", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// pidFile is a fresh path for a rawserver -pidfile.
func pidFile(t *testing.T) string { return filepath.Join(t.TempDir(), "pids") }
