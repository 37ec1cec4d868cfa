//go:build e2e

package main

// Budgets on what a server controls (issue 12): floods, endless pages,
// endless lines and escaped processes end within their bounds, under
// 500 MiB, with a finding or a three-part message, and nothing left
// running.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func TestHostileServersStayBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		codes    []string      // findings the --json must have
		within   time.Duration // a bound well below the timeouts it would otherwise wait out
		stderr   []string      // for exit 3
	}{
		// 5.1 GB RSS before: notifications without end while tools/list
		// waits. The default --max-bytes stops it.
		{"notification flood", []string{"wire", "--json", "--timeout", secs(30 * time.Second), "--", bin.raw, "-flood-notifications"},
			0, []string{"max-bytes", "capture-capped"}, 20 * time.Second, nil},
		// 6.7 GB before: 1 MB pages, each with a fresh cursor.
		{"endless pages", []string{"wire", "--json", "--timeout", secs(30 * time.Second), "--", bin.raw, "-endless-pages", "1000000"},
			0, []string{"capture-capped"}, 20 * time.Second, nil},
		// Reported as silence after the timeout before: a line of 100 MB
		// (200 MB in the issue; the same past 16 MiB), no newline.
		{"100 MB line without newline", []string{"wire", "--json", "--timeout", secs(30 * time.Second), "--", bin.raw, "-line-no-newline", "100000000"},
			0, []string{"line-too-long"}, 20 * time.Second, nil},
		// Past --max-bytes before the handshake: exit 3, in three parts.
		{"stderr flood past --max-bytes", []string{"wire", "--max-bytes", "100000", "--startup-timeout", secs(30 * time.Second), "--", bin.raw, "-stderr-flood", "100000"},
			3, nil, 20 * time.Second, []string{"more than --max-bytes before it answered initialize", "\nReceived: stderr: debug: warming cache", "\nTry: raise --max-bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := probeRun(t, nil, nil, tc.args...)
			t.Logf("exit %d in %v, peak RSS %d MiB", r.code, r.took.Round(time.Millisecond), r.hwmKB>>10)
			if r.code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.wantCode, r.stderr)
			}
			if r.took > bound(tc.within) {
				t.Errorf("took %v, want under %v", r.took, bound(tc.within))
			}
			if r.hwmKB == 0 || r.hwmKB > maxRSSKB {
				t.Errorf("peak RSS %d KiB, want under %d", r.hwmKB, maxRSSKB)
			}
			if len(tc.codes) > 0 {
				v := gjson.Parse(r.stdout)
				for _, c := range tc.codes {
					if !has(findingCodes(v), c) {
						t.Errorf("no %s finding in %v", c, findingCodes(v))
					}
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("the message lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// A grandchild that leaves the group (setsid) and ignores SIGTERM
// survived every command before; now each finds it, kills it and says so.
func TestEscapedGrandchildEveryCommand(t *testing.T) {
	t.Parallel()
	server := func(pids string) []string {
		return []string{"--", bin.raw, "-bench-tools", "-escape", "-pidfile", pids}
	}
	for _, args := range [][]string{
		{"wire", "--json"},
		{"budget", "--json"},
		{"snapshot", "--json"},
		{"report", "--json"},
		{"diff", "--json", "--ref", "../../fixtures/goodserver/reference.anthropic.json"},
		{"bench", "--json", "--startup", "2", "-n", "3", "--warmup", "0", "--call", "echo", "--args", `{"text":"a","n":3}`},
		{"faults", "--json", "--calls", "2", "--call", "echo", "--args", `{"text":"a","n":3}`},
		{"malformed", "--json", "--timeout", "300ms", "--call", "echo"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			pids := pidFile(t)
			r := probeRun(t, nil, nil, append(args, server(pids)...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			v := gjson.Parse(r.stdout)
			if !has(findingCodes(v), "escaped-processes") {
				t.Errorf("no escaped-processes finding: %v", findingCodes(v))
			}
			if got := pidsIn(t, pids); len(got) < 2 {
				t.Fatalf("the server did not start its grandchild: %v", got)
			}
			noneLeft(t, pidsIn(t, pids))
		})
	}
	t.Run("proxy", func(t *testing.T) {
		t.Parallel()
		pids := pidFile(t)
		in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
		r := probeRun(t, nil, []byte(in), append([]string{"proxy"}, server(pids)...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "left its process group and outlived it; killed") {
			t.Errorf("the proxy does not say it killed the escaped grandchild:\n%s", r.stderr)
		}
		noneLeft(t, pidsIn(t, pids))
	})
}

// The proxy streams: a 10 MB message reaches a host that reads slowly,
// whole, though the server exits the moment it has written it; and its
// exit code is the server's.
func TestProxyDeliversEverythingToASlowHost(t *testing.T) {
	t.Parallel()
	const size = 10_000_000
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	cmd := exec.Command(bin.mcpprobe, "proxy", "--grace", "300ms", "--max-line", "1000000", "--trace", trace, "--", bin.raw, "-huge-line", fmt.Sprint(size), "-exit-after-list")
	hostIn, toProxy, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromProxy, hostOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = hostIn, hostOut, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hostIn.Close()
	hostOut.Close()
	defer toProxy.Close()
	fmt.Fprintln(toProxy, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	fmt.Fprintln(toProxy, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	// A host that reads 64 KiB every 20 ms: about 3 s for the message,
	// ten times the proxy's --grace.
	rd := bufio.NewReaderSize(&slowReader{r: fromProxy, n: 64 << 10, pause: 20 * time.Millisecond}, 1<<20)
	var lines [][]byte
	hwm := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			l, err := rd.ReadBytes('\n')
			if len(l) > 0 {
				lines = append(lines, l)
			}
			if err != nil {
				return
			}
		}
	}()
	limit := time.NewTimer(bound(time.Minute))
	defer limit.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			hwm = max(hwm, vmHWM(cmd.Process.Pid))
		case <-limit.C:
			_ = cmd.Process.Kill()
			t.Fatal("the proxy ran for a minute")
		}
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	t.Logf("peak RSS %d MiB", hwm>>10)
	if code != 0 {
		t.Errorf("exit %d, want the server's 0: %s", code, errb.String())
	}
	if len(lines) != 2 || !gjson.ValidBytes(lines[1]) || len(lines[1]) < size {
		n := 0
		if len(lines) > 1 {
			n = len(lines[1])
		}
		t.Fatalf("the host got %d lines, the list %d bytes of at least %d", len(lines), n, size)
	}
	if gjson.GetBytes(lines[1], "result.tools.#").Int() != 9 {
		t.Errorf("the list is not whole")
	}
	if hwm > maxRSSKB {
		t.Errorf("peak RSS %d KiB", hwm)
	}
	// The trace records it, cut at --max-line as the probe's trace is
	// (the host got it whole).
	data, _ := os.ReadFile(trace)
	if !bytes.Contains(data, []byte(`"cut":true,"len":`+fmt.Sprint(len(lines[1])-1))) {
		t.Errorf("the trace does not record the long line, cut with its length")
	}
}

// slowReader reads at most n bytes at a time, pausing before each read.
type slowReader struct {
	r     io.Reader
	n     int
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.r.Read(p[:min(len(p), s.n)])
}

func TestProxyExitCodeMirrorsTheServer(t *testing.T) {
	t.Parallel()
	r := probeRun(t, nil, []byte{}, "proxy", "--", bin.raw, "-exit-before-init", "7")
	if r.code != 7 {
		t.Errorf("exit %d, want the server's 7: %s", r.code, r.stderr)
	}
	// A server killed by a signal: 128 + the signal, as a shell says. The
	// host keeps its stdin open, so that the crash, not the host, ends it.
	cmd := exec.Command(bin.mcpprobe, "proxy", "--crash-at", "1", "--", bin.raw, "-bench-tools")
	hostIn, toProxy, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer toProxy.Close()
	cmd.Stdin, cmd.Stdout = hostIn, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hostIn.Close()
	fmt.Fprintln(toProxy, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	fmt.Fprintln(toProxy, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","n":3}}}`)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(bound(30 * time.Second)):
		_ = cmd.Process.Kill()
		t.Fatalf("the proxy outlived its crashed server by %v", bound(30*time.Second))
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 128+int(syscall.SIGKILL) {
		t.Errorf("exit %d after --crash-at, want %d", code, 128+int(syscall.SIGKILL))
	}
}
