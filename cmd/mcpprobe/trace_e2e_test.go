//go:build e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// readConns reads a --trace file of a command that starts several
// servers: every line is JSON with a connection number, numbered from 1
// without gaps; it returns the frames of each connection, in order.
func readConns(t *testing.T, path string) [][]transport.Frame {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !gjson.ValidBytes(line) || gjson.GetBytes(line, "conn").Int() < 1 {
			t.Fatalf("trace line %d is not JSON with a conn ≥ 1: %.200s", i+1, line)
		}
	}
	frames, err := transport.ReadTrace(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := transport.SplitConns(frames)
	for i, c := range conns {
		if c[0].Conn != i+1 {
			t.Fatalf("connection %d is numbered %d: numbers must run from 1 without gaps", i+1, c[0].Conn)
		}
	}
	return conns
}

// sameAsIndependent checks that every response a connection traced is,
// byte for byte, what the server writes to an independent client sent the
// same requests. Sends that are not JSON (malformed's invalid JSON) are
// not replayed: the independent client could not tell what answers them.
func sameAsIndependent(t *testing.T, argv []string, conn []transport.Frame) {
	t.Helper()
	var frames []frame
	for _, f := range conn {
		if f.Dir == transport.DirSend && !gjson.ValidBytes(f.Raw) {
			continue
		}
		fr := frame{Dir: string(f.Dir), TNs: int64(f.T), Raw: string(f.Raw)}
		if !utf8.Valid(f.Raw) {
			fr.Raw, fr.RawB64 = "", f.Raw
		}
		frames = append(frames, fr)
	}
	assertSameAsReplay(t, argv, frames)
}

// bench starts a fresh server per startup sample, one for the calls, and
// with --vs as many again for B: --trace holds every one of them, each a
// connection of its own, with the bytes each server wrote.
func TestBenchTraceEveryConnection(t *testing.T) {
	t.Parallel()
	a := []string{bin.raw, "-bench-tools"}
	b := []string{bin.raw, "-bench-tools", "-call-sleep", "1ms"}
	t.Run("alone", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "t.jsonl")
		r := mcpprobe(t, append([]string{"bench", "--quiet", "--trace", path, "-n", "5", "--warmup", "1", "--startup", "2", "--"}, a...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		conns := readConns(t, path)
		if len(conns) != 3 {
			t.Fatalf("%d connections, want 3: two startup samples and the calls' session", len(conns))
		}
		for i, c := range conns {
			sameAsIndependent(t, a, c)
			if i == 2 && countMethod(c, "tools/call") != 3*(1+1+5) {
				t.Errorf("the calls' session sent %d tools/call, want 21 (3 tools × first, warmup, n)", countMethod(c, "tools/call"))
			}
		}
	})
	t.Run("vs", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "t.jsonl")
		r := mcpprobe(t, append([]string{"bench", "--quiet", "--trace", path, "-n", "3", "--warmup", "0", "--rounds", "2", "--call", "sleep",
			"--vs", strings.Join(b, " "), "--"}, a...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		conns := readConns(t, path)
		// A start of each to plan the calls, a warm-up round (B, then A)
		// not counted, then a fresh process of each per round, in ABBA
		// order: A B, then B A.
		if len(conns) != 8 {
			t.Fatalf("%d connections, want 8", len(conns))
		}
		for i, c := range conns {
			argv := a
			if i == 1 || i == 2 || i == 5 || i == 6 {
				argv = b
			}
			sameAsIndependent(t, argv, c)
		}
	})
}

// malformed lists the tools on one connection, sends the cases on
// another, and starts a fresh server for "request before initialize":
// --trace holds each.
func TestMalformedTraceEveryConnection(t *testing.T) {
	t.Parallel()
	argv := []string{bin.raw, "-bench-tools"}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	r := mcpprobe(t, append([]string{"malformed", "--quiet", "--trace", path, "--timeout", secs(500 * time.Millisecond), "--call", "echo", "--"}, argv...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	conns := readConns(t, path)
	if len(conns) != 3 {
		t.Fatalf("%d connections, want 3: the listing, the cases, the fresh server", len(conns))
	}
	for _, c := range conns {
		sameAsIndependent(t, argv, c)
	}
	if n := countMethod(conns[1], "tools/call"); n < 5 {
		t.Errorf("the cases' connection sent %d tools/call", n)
	}
	if first := conns[2][0]; first.Dir != transport.DirSend || gjson.GetBytes(first.Raw, "method").String() != "tools/list" {
		t.Errorf("the fresh server's first frame is %s %s, want the request before initialize", first.Dir, first.Raw)
	}
	// A server that crashes on a case is restarted: a connection more.
	path = filepath.Join(t.TempDir(), "good.jsonl")
	if r := mcpprobe(t, "malformed", "--quiet", "--trace", path, "--timeout", secs(1*time.Second), "--call", "order_total", bin.good); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if conns := readConns(t, path); len(conns) != 3 {
		t.Errorf("%d connections, want 3: the listing, the cases until invalid JSON crashed the server, the restart", len(conns))
	}
}

// Secrets are hidden in every connection's trace, as wire hides them.
func TestBenchTraceRedacts(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-s3cr3t"
	path := filepath.Join(t.TempDir(), "t.jsonl")
	r := mcpprobe(t, "bench", "--quiet", "--trace", path, "-n", "1", "--warmup", "0", "--startup", "2",
		"--env", "ORDERS_API_KEY="+secret, "--", bin.raw, "-bench-tools", "-echo-env", "ORDERS_API_KEY")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(secret)) || strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatalf("the --env value shows")
	}
	for i, c := range readConns(t, path) {
		redacted := 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			if gjson.GetBytes(line, "conn").Int() == int64(i+1) && gjson.GetBytes(line, "redacted").Bool() {
				redacted++
			}
		}
		if redacted != 1 {
			t.Errorf("connection %d: %d frames marked redacted, want 1 (the initialize result)", c[0].Conn, redacted)
		}
	}
}

func countMethod(fs []transport.Frame, method string) int {
	n := 0
	for _, f := range fs {
		if f.Dir == transport.DirSend && gjson.GetBytes(f.Raw, "method").String() == method {
			n++
		}
	}
	return n
}

// faults, diff and report start several servers too: --trace numbers
// every one of them, and every connection's responses are the server's
// bytes. (Before, faults accepted --trace and wrote nothing.)
func TestTraceNumbersEveryCommandsConnections(t *testing.T) {
	t.Parallel()
	good := []string{bin.good}
	cases := []struct {
		name string
		args []string
		min  int // connections at least
	}{
		// picking the tools, the run, and the shutdown timing; no fault,
		// so that every connection can be compared with a clean replay
		{"faults", []string{"faults", "--quiet", "--calls", "3", "--"}, 3},
		{"diff two live sides", []string{"diff", "--quiet", bin.good, "--", bin.good}, 2},
		{"report with bench", []string{"report", "--quiet", "--bench", "--date", "2026-01-02", "--"}, 7}, // the probe, 5 fresh starts, the calls
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "t.jsonl")
			args := append([]string{c.args[0], "--trace", path}, c.args[1:]...)
			if args[len(args)-1] == "--" {
				args = append(args, good...)
			}
			r := mcpprobe(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			conns := readConns(t, path)
			if len(conns) < c.min {
				t.Fatalf("%d connections, want at least %d", len(conns), c.min)
			}
			for _, conn := range conns {
				sameAsIndependent(t, good, conn)
			}
		})
	}
}
