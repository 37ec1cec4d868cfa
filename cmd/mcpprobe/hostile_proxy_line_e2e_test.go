//go:build e2e

package main

// The proxy bounds both directions with --max-line (issue 23): a host
// line of any length passes to the server without being held whole, with
// faults in the plan or without, and Ctrl-C during one ends the proxy
// with the server's tree (a daemon included).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// proxyRSSKB bounds the proxy's peak while it relays a 64 MB line: a
// tenth of what holding the line would take at least (the default
// --max-line, 16 MiB, may be held, with the runtime around it).
var proxyRSSKB = func() int {
	if os.Getenv("MCPPROBE_E2E_RACE") != "" {
		return 1 << 40
	}
	return 100 << 10
}()

const hugeHostLine = 64 << 20

func TestProxyHugeHostLine(t *testing.T) {
	t.Parallel()
	line := append(bytes.Repeat([]byte("x"), hugeHostLine), '\n')
	tests := []struct {
		name  string
		flags []string
		note  bool // the line met a plan's faults: stderr says it passed them by
	}{
		{"no faults", nil, false},
		{"faults", []string{"--drop-at", "99"}, true},
		{"faults, --max-line 1 MB", []string{"--drop-at", "99", "--max-line", "1000000"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"proxy"}, tc.flags...), "--", bin.raw, "-discard-stdin")
			r := probeRun(t, nil, line, args...)
			t.Logf("exit %d in %v, peak RSS %d MiB", r.code, r.took.Round(time.Millisecond), r.hwmKB>>10)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			// The server got the line whole.
			if want := fmt.Sprintf("read %d bytes, longest line %d", hugeHostLine+1, hugeHostLine); !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q: %.500s", want, r.stderr)
			}
			if got := strings.Contains(r.stderr, fmt.Sprintf("a host-to-server line of %d bytes is longer than --max-line", hugeHostLine)); got != tc.note {
				t.Errorf("the note that the line passed the faults by: %v, want %v: %.500s", got, tc.note, r.stderr)
			}
			if r.hwmKB == 0 || r.hwmKB > proxyRSSKB {
				t.Errorf("peak RSS %d KiB, want under %d", r.hwmKB, proxyRSSKB)
			}
		})
	}
}

// Ctrl-C while a host line longer than --max-line is still coming: the
// proxy exits 130, the server and its daemon are gone.
func TestProxyInterruptDuringHugeLine(t *testing.T) {
	t.Parallel()
	for _, plan := range [][]string{nil, {"--drop-at", "99"}} {
		t.Run(fmt.Sprintf("plan %q", plan), func(t *testing.T) {
			t.Parallel()
			pids := pidFile(t)
			args := append(append([]string{"proxy"}, plan...), "--", bin.raw, "-discard-stdin", "-escape", "-pidfile", pids)
			// Not through measurePeak: its wrapper would take the signal.
			cmd := exec.Command(bin.mcpprobe, args...)
			hostIn, toProxy, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer toProxy.Close()
			var errb bytes.Buffer
			cmd.Stdin, cmd.Stderr = hostIn, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			hostIn.Close()
			for i := 0; i < 1000 && len(pidsIn(t, pids)) < 2; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			// 32 MB of a line that has no end yet: past any --max-line.
			chunk := bytes.Repeat([]byte("y"), 1<<20)
			for range 32 {
				if _, err := toProxy.Write(chunk); err != nil {
					t.Fatalf("writing the line: %v; stderr %s", err, errb.String())
				}
			}
			// The peak so far, the kernel's: 32 MB of the line have passed.
			hwm := vmHWM(cmd.Process.Pid)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			sent := time.Now()
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("still running 10 s after SIGINT")
			}
			t.Logf("exit after %v; peak RSS %d MiB before the signal", time.Since(sent).Round(time.Millisecond), hwm>>10)
			if hwm > proxyRSSKB {
				t.Errorf("peak RSS %d KiB, want under %d", hwm, proxyRSSKB)
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != 130 {
				t.Errorf("exit %d, want 130: %s", code, errb.String())
			}
			if !strings.Contains(errb.String(), "mcpprobe: interrupted by SIGINT during proxy") {
				t.Errorf("stderr: %s", errb.String())
			}
			if len(pidsIn(t, pids)) < 2 {
				t.Errorf("no daemon was started: %v", pidsIn(t, pids))
			}
			noneLeft(t, pidsIn(t, pids))
		})
	}
}
