package launch

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

func TestStopSequence(t *testing.T) {
	// A clean exit gets a long grace: a race-detector build exits slowly.
	const long, short = 5 * time.Second, 300 * time.Millisecond
	tests := []struct {
		mode       string
		grace      time.Duration
		wantSignal string
		// minAfter and maxAfter bound the time from stdin close to exit;
		// the upper bounds leave room for a slow (race-detector) machine.
		minAfter, maxAfter time.Duration
		wantStatus         string
	}{
		{"clean", long, "", 0, long, "exit status 0"},
		{"ignore-close", short, "SIGTERM", short, 2*short + time.Second, "signal: terminated"},
		{"ignore-term", short, "SIGKILL", 2 * short, 2*short + KillWait, "signal: killed"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			p, err := StartProcess(helperTarget(t, tc.mode))
			if err != nil {
				t.Fatal(err)
			}
			ready(t, p)
			r := p.Stop(tc.grace)
			if r.Signal != tc.wantSignal {
				t.Errorf("Signal = %q, want %q", r.Signal, tc.wantSignal)
			}
			if r.AlreadyExited || !r.Timed() {
				t.Errorf("AlreadyExited = %v, Timed = %v: the process was running", r.AlreadyExited, r.Timed())
			}
			if r.After < tc.minAfter || r.After > tc.maxAfter {
				t.Errorf("After = %v, want between %v and %v", r.After, tc.minAfter, tc.maxAfter)
			}
			if r.Status != tc.wantStatus {
				t.Errorf("Status = %q, want %q", r.Status, tc.wantStatus)
			}
			if r.Leftover {
				t.Errorf("Leftover set for a process without children")
			}
			if groupAlive(p.Pid()) {
				t.Errorf("the process group outlived Stop")
			}
		})
	}
}

func TestStopAfterExit(t *testing.T) {
	p, err := StartProcess(helperTarget(t, "exit-stderr"))
	if err != nil {
		t.Fatal(err)
	}
	go drain(p)
	if !p.Wait(5 * time.Second) {
		t.Fatal("the helper did not exit")
	}
	r := p.Stop(time.Second)
	if !r.AlreadyExited || r.Timed() || r.Signal != "" || r.After != 0 {
		t.Errorf("report %+v, want AlreadyExited, untimed, no signal", r)
	}
	if r.Status != "exit status 3" || p.ExitCode() != 3 {
		t.Errorf("Status %q, ExitCode %d, want exit status 3", r.Status, p.ExitCode())
	}
}

func TestStartProcessErrors(t *testing.T) {
	tests := []struct {
		name     string
		t        Target
		wantHint string
	}{
		{"not on PATH", Target{Command: "no-such-mcp-server-xyz"}, "not on PATH"},
		{"no such file", Target{Command: "./no/such/server"}, "no such file"},
		{"not executable", Target{Command: notExecutable(t)}, "not executable"},
		{"bad working directory", Target{Command: "/bin/sh", Dir: "/no/such/dir"}, "working directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := StartProcess(tc.t)
			if err == nil {
				p.Kill()
				t.Fatal("started")
			}
			var se *StartError
			if !errors.As(err, &se) {
				t.Fatalf("err %T %v, want a *StartError", err, err)
			}
			if !strings.Contains(se.Hint(), tc.wantHint) || !strings.Contains(se.Headline(), tc.t.Command) {
				t.Errorf("headline %q hint %q, want the command and %q", se.Headline(), se.Hint(), tc.wantHint)
			}
		})
	}
}

func TestTerminate(t *testing.T) {
	tests := []struct {
		mode       string
		wantExited bool
	}{
		{"ignore-close", true},
		{"ignore-term", false},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			p, err := StartProcess(helperTarget(t, tc.mode))
			if err != nil {
				t.Fatal(err)
			}
			ready(t, p)
			defer p.Stop(100 * time.Millisecond)
			took, exited := p.Terminate(500 * time.Millisecond)
			if exited != tc.wantExited {
				t.Errorf("exited = %v, want %v (after %v)", exited, tc.wantExited, took)
			}
		})
	}
}

// ready waits until the helper says it has set itself up, returning the
// lines it printed before, and drains the rest of its output.
func ready(t *testing.T, p *Process) []string {
	t.Helper()
	lines := make(chan string)
	go func() {
		defer close(lines)
		r := bufio.NewReader(p.Stdout)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSpace(l)
		}
	}()
	go func() { _, _ = io.Copy(io.Discard, p.Stderr) }()
	var before []string
	timeout := time.After(loadfactor.Scale(10 * time.Second))
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the helper's output ended before it was ready")
			}
			if l == "ready" {
				go func() {
					for range lines {
					}
				}()
				return before
			}
			before = append(before, l)
		case <-timeout:
			p.Kill()
			t.Fatal("the helper was not ready within 10 s")
		}
	}
}

// drain reads the process's output until it ends, as every caller must.
func drain(p *Process) {
	go func() { _, _ = io.Copy(io.Discard, p.Stderr) }()
	_, _ = io.Copy(io.Discard, p.Stdout)
}

func notExecutable(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
