//go:build e2e

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// The kernel's peak for a child (wait4's ru_maxrss) starts from its
// parent's: os/exec starts a child with vfork, and exec records the peak
// of the memory it leaves, which is the parent's. A test binary that once
// held 300 MB reads 300 MB for /bin/true. So a measured run goes through
// a fresh copy of the test binary, small, which starts mcpprobe and hands
// back mcpprobe's own peak on fd 3.
const peakRunEnv = "MCPPROBE_E2E_PEAKRUN"

// peakRunMain is the fresh copy's whole work; it returns when this test
// binary is not one.
func peakRunMain() {
	if os.Getenv(peakRunEnv) == "" {
		return
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, peakRunEnv+"=") {
			c.Env = append(c.Env, kv)
		}
	}
	// Killed with the copy (a test's deadline kills the copy).
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peak run:", err)
		os.Exit(125)
	}
	_ = c.Wait()
	fmt.Fprint(os.NewFile(3, "peak"), peakKB(c.ProcessState))
	ws := c.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		select {}
	}
	os.Exit(ws.ExitStatus())
}

// measurePeak makes cmd, not yet started, run through a fresh copy of the
// test binary; after cmd.Wait, the returned function gives the peak
// resident set of cmd's program alone, in KiB (0 if unknown).
func measurePeak(cmd *exec.Cmd) func() int {
	self, err := os.Executable()
	if err != nil {
		return func() int { return 0 }
	}
	r, w, err := os.Pipe()
	if err != nil {
		return func() int { return 0 }
	}
	cmd.Args = append([]string{self, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = self
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, peakRunEnv+"=1")
	cmd.ExtraFiles = append([]*os.File{w}, cmd.ExtraFiles...)
	return func() int {
		w.Close()
		b, _ := io.ReadAll(io.LimitReader(r, 64))
		r.Close()
		n, _ := strconv.Atoi(string(b))
		return n
	}
}

// peakKB is the peak resident set of an exited process, in KiB, as wait4
// reported it: its own only when its parent was small (see measurePeak).
func peakKB(ps *os.ProcessState) int {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int(ru.Maxrss)
	}
	return 0
}
