//go:build e2e

package main

// SIGHUP (a closed terminal, a dropped ssh session) and SIGQUIT (Ctrl-\)
// end a run as SIGINT and SIGTERM do (issue 23): the server's whole tree
// killed, a daemon it started with setsid included, the output marked
// partial, exit 128 + the signal.

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

// signalled runs mcpprobe with args, waits until the pid file holds want
// pids (a server and its escaped daemon), sends sig, and returns the exit
// code and both outputs. The host's stdin stays open, as a host keeps it.
func signalled(t *testing.T, sig syscall.Signal, pids string, want int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin.mcpprobe, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	hostIn, hostW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hostW.Close()
	cmd.Stdin = hostIn
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hostIn.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for i := 0; i < 1000 && len(pidsIn(t, pids)) < want; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(bound(300 * time.Millisecond)) // inside the command's wait: longer on a loaded machine
	if got := pidsIn(t, pids); len(got) < want {
		_ = cmd.Process.Kill()
		t.Fatalf("the servers did not start: pids %v; stderr %s", got, errb.String())
	}
	sent := time.Now()
	_ = cmd.Process.Signal(sig)
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running 10 s after %v", sig)
	}
	// Reported, not asserted: the machine may be loaded.
	t.Logf("%v: exit after %v", sig, time.Since(sent).Round(time.Millisecond))
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, out.String(), errb.String()
}

func TestHangupCleansUp(t *testing.T) {
	t.Parallel()
	silent := func(pids string) []string {
		return []string{"--", bin.raw, "-silent", "-escape", "-pidfile", pids}
	}
	slow := func(pids string) []string {
		return []string{"--", bin.raw, "-bench-tools", "-call-sleep", "30s", "-escape", "-pidfile", pids}
	}
	// Answers the handshake, then sits on tools/list: what came before
	// is printed, marked partial.
	slowList := func(pids string) []string {
		return []string{"--", bin.raw, "-slow-list", "30s", "-escape", "-pidfile", pids}
	}
	tests := []struct {
		name    string
		args    []string
		server  func(string) []string
		sig     syscall.Signal
		code    int
		partial bool // output was printed before the signal, and is marked
	}{
		{"proxy", []string{"proxy"}, silent, syscall.SIGHUP, 129, false},
		{"call", []string{"call", "--no-validate", "sleep"}, slow, syscall.SIGHUP, 129, false},
		{"bench", []string{"bench", "--startup", "0", "--call", "sleep"}, slow, syscall.SIGHUP, 129, false},
		{"report", []string{"report", "--faults", "--malformed"}, slow, syscall.SIGHUP, 129, false},
		{"wire partial", []string{"wire"}, slowList, syscall.SIGHUP, 129, true},
		{"wire SIGQUIT", []string{"wire"}, silent, syscall.SIGQUIT, 131, false},
		{"faults SIGQUIT", []string{"faults", "--call", "sleep"}, slow, syscall.SIGQUIT, 131, false},
	}
	names := map[syscall.Signal]string{syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pids := pidFile(t)
			code, out, msg := signalled(t, tc.sig, pids, 2, append(append([]string{}, tc.args...), tc.server(pids)...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, msg)
			}
			name := names[tc.sig]
			if !strings.Contains(msg, "mcpprobe: interrupted by "+name+" during "+tc.args[0]) {
				t.Errorf("the message does not say it was interrupted, and during what:\n%s", msg)
			}
			if strings.Contains(msg, "goroutine ") {
				t.Errorf("SIGQUIT dumped goroutines:\n%.400s", msg)
			}
			for _, blame := range []string{"context canceled", "crash", "did not answer"} {
				if strings.Contains(msg, blame) {
					t.Errorf("the message has %q, blaming the server:\n%s", blame, msg)
				}
			}
			if strings.TrimSpace(out) != "" && !strings.Contains(out, "INTERRUPTED ("+name+")") && tc.args[0] != "proxy" {
				t.Errorf("output printed without the INTERRUPTED mark:\n%s", out)
			}
			if tc.partial && (!strings.Contains(out, "INTERRUPTED ("+name+"): what follows is partial.") ||
				!strings.Contains(msg, "What is printed above was gathered before the interrupt and is partial.")) {
				t.Errorf("partial output not marked:\n%s\nstderr:\n%s", out, msg)
			}
			noneLeft(t, pidsIn(t, pids))
		})
	}
	// survey: the records of the servers done are kept (the partial
	// output), the one in flight is not written, and it and its daemon
	// are gone.
	t.Run("survey", func(t *testing.T) {
		t.Parallel()
		pids := pidFile(t)
		fleet := writeFleet(t, []fleetLine{
			{ID: "a-good", Command: bin.good},
			{ID: "b-silent", Command: bin.raw, Args: []string{"-silent", "-escape", "-pidfile", pids}},
		})
		out := filepath.Join(t.TempDir(), "results.jsonl")
		code, _, msg := signalled(t, syscall.SIGHUP, pids, 2, append([]string{"survey", fleet, "--jobs", "1", "-o", out}, surveyBounds()...)...)
		if code != 129 {
			t.Errorf("exit %d, want 129; stderr:\n%s", code, msg)
		}
		for _, want := range []string{"mcpprobe: interrupted by SIGHUP during survey", "the servers in flight were not written, and --resume probes them"} {
			if !strings.Contains(msg, want) {
				t.Errorf("stderr lacks %q:\n%s", want, msg)
			}
		}
		recs := surveyLines(t, out)
		if _, ok := recs["a-good"]; !ok || len(recs) != 1 {
			t.Errorf("records %v: want a-good's alone", recs)
		}
		noneLeft(t, pidsIn(t, pids))
	})
}

// The host of a proxy goes away (its end of the proxy's stdout closes):
// the next answer relayed meets a broken pipe, and mcpprobe ends as for
// a stop signal, 141, with the server and its daemon gone, where Go's
// default killed it on the spot and left them running.
func TestBrokenStdoutCleansUp(t *testing.T) {
	t.Parallel()
	pids := pidFile(t)
	cmd := exec.Command(bin.mcpprobe, "proxy", "--", bin.raw, "-escape", "-pidfile", pids)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	cmd.Stdout, cmd.Stdin = outW, inR
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	inR.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for i := 0; i < 1000 && len(pidsIn(t, pids)) < 2; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := pidsIn(t, pids); len(got) < 2 {
		_ = cmd.Process.Kill()
		t.Fatalf("the servers did not start: pids %v; stderr %s", got, errb.String())
	}
	outR.Close() // the host is gone
	// Requests until one is answered into the closed pipe; a server that
	// died would make these writes fail, which ends the loop too.
	for i := 0; i < 50; i++ {
		if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"ping"}` + "\n")); err != nil {
			break
		}
		select {
		case err = <-done:
			goto exited
		case <-time.After(100 * time.Millisecond):
		}
	}
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running 10 s after its stdout broke; stderr:\n%s", errb.String())
	}
exited:
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 141 {
		t.Errorf("exit %d (%v), want 141; stderr:\n%s", code, err, errb.String())
	}
	if !strings.Contains(errb.String(), "mcpprobe: interrupted by SIGPIPE during proxy") {
		t.Errorf("stderr does not say the output broke:\n%s", errb.String())
	}
	noneLeft(t, pidsIn(t, pids))
}
