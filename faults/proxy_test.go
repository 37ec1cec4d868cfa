package faults

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestMain doubles as a trivial stdio server (MCPPROBE_ECHO=1) whose
// replies keep odd bytes, so transparency can be checked byte for byte.
func TestMain(m *testing.M) {
	if os.Getenv("MCPPROBE_MCP") == "1" {
		mcpServer()
		return
	}
	if os.Getenv("MCPPROBE_ECHO") == "1" {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			v := gjson.ParseBytes(in.Bytes())
			if v.Get("method").String() == "big" {
				fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"text\":\"%s\"}}\n", v.Get("id").Raw, strings.Repeat("x", 300<<10))
				fmt.Fprintf(os.Stderr, "%s\n", strings.Repeat("e", 100<<10))
				continue
			}
			if v.Get("id").Exists() {
				fmt.Printf("{ \"result\" : {\"text\":\"caf\\u00e9 %s\"}, \"jsonrpc\":\"2.0\",\"id\":%s}\n", v.Get("method").String(), v.Get("id").Raw)
			}
		}
		fmt.Fprint(os.Stdout, "bye")                      // a last line without a newline
		fmt.Fprint(os.Stderr, "stderr without a newline") // and on stderr too
		return
	}
	os.Exit(m.Run())
}

func echoOptions(plan Plan) ProxyOptions {
	exe, _ := os.Executable()
	return ProxyOptions{Command: exe, Env: []string{"MCPPROBE_ECHO=1"}, Plan: plan, Grace: 5 * time.Second} // -race makes exits slow
}

func mustPlan(t testing.TB, v Values) Plan {
	t.Helper()
	p, err := ParsePlan(v.Get, 7)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func directRun(t testing.TB, input string) string {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "MCPPROBE_ECHO=1")
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

const calls = `{"jsonrpc":"2.0","id":1,"method":"initialize"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b"}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a"}}
`

func TestProxyIsTransparent(t *testing.T) {
	input := calls + `{"jsonrpc":"2.0","id":9,"method":"big"}` + "\n"
	var out, errb bytes.Buffer
	o := echoOptions(Plan{})
	o.MaxLine = 1000 // the probe's bound; the proxy must not cut at it
	code, err := Proxy(context.Background(), strings.NewReader(input), &out, &errb, o)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "MCPPROBE_ECHO=1")
	cmd.Stdin = strings.NewReader(input)
	var dout, derr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dout, &derr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if out.String() != dout.String() || code != 0 {
		i := 0
		for i < min(out.Len(), dout.Len()) && out.Bytes()[i] == dout.Bytes()[i] {
			i++
		}
		t.Errorf("stdout through the proxy differs (exit %d): %d bytes vs %d direct, first at %d: %.80q vs %.80q",
			code, out.Len(), dout.Len(), i, out.Bytes()[i:], dout.Bytes()[i:])
	}
	if errb.String() != derr.String() {
		t.Errorf("stderr through the proxy differs: %d bytes vs %d direct", errb.Len(), derr.Len())
	}
}

func TestProxyFaults(t *testing.T) {
	tests := []struct {
		name  string
		plan  Plan
		check func(t *testing.T, out string)
	}{
		{"drop", mustPlan(t, Values{"drop-at": "2"}), func(t *testing.T, out string) {
			if strings.Contains(out, `"id":3}`) || !strings.Contains(out, `"id":4}`) {
				t.Errorf("reply 3 (call 2) not dropped alone:\n%s", out)
			}
		}},
		{"pollute line", mustPlan(t, Values{"pollute": "line", "pollute-at": "1"}), func(t *testing.T, out string) {
			if !strings.Contains(out, pollutionLine+"\n{") {
				t.Errorf("no stray line before reply 2:\n%s", out)
			}
		}},
		{"pollute partial", mustPlan(t, Values{"pollute": "partial", "pollute-at": "1"}), func(t *testing.T, out string) {
			if !strings.Contains(out, pollutionPartial+"{ \"result\"") {
				t.Errorf("stray text not glued to reply 2:\n%s", out)
			}
		}},
		{"garble", mustPlan(t, Values{"garble-at": "3"}), func(t *testing.T, out string) {
			lines := strings.Split(out, "\n")
			if gjson.Valid(lines[3]) || !gjson.Valid(lines[2]) {
				t.Errorf("line 4 should be garbled, line 3 intact:\n%s", out)
			}
		}},
		{"split keeps every byte", mustPlan(t, Values{"split": "true"}), func(t *testing.T, out string) {
			if out != directRun(t, calls) {
				t.Errorf("split changed the bytes")
			}
		}},
		{"slow", mustPlan(t, Values{"slow-at": "1", "delay": "50ms"}), func(t *testing.T, out string) {
			i2, i3 := strings.Index(out, `"id":2}`), strings.Index(out, `"id":3}`)
			if i2 < 0 || i3 < 0 || i2 < i3 {
				t.Errorf("the held reply 2 should come after reply 3:\n%s", out)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Keep stdin open a moment so that a held reply can come out.
			pr, pw := io.Pipe()
			go func() { io.WriteString(pw, calls); time.Sleep(200 * time.Millisecond); pw.Close() }()
			var out, errb bytes.Buffer
			if _, err := Proxy(context.Background(), pr, &out, &errb, echoOptions(tc.plan)); err != nil {
				t.Fatal(err)
			}
			tc.check(t, out.String())
		})
	}
	t.Run("crash", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() { io.WriteString(pw, calls); time.Sleep(300 * time.Millisecond); pw.Close() }()
		var out, errb bytes.Buffer
		code, err := Proxy(context.Background(), pr, &out, &errb, echoOptions(mustPlan(t, Values{"crash-at": "2"})))
		if err != nil {
			t.Fatal(err)
		}
		if code != 128+9 || strings.Contains(out.String(), `"id":4}`) { // SIGKILL, as a shell reports it
			t.Errorf("exit %d, out:\n%s", code, out.String())
		}
	})
}

// BenchmarkProxyFrame: the latency the proxy adds per frame, as the p50
// of round trips through it minus the p50 of direct round trips, halved
// (a round trip is two frames). Both run interleaved in one benchmark.
func BenchmarkProxyFrame(b *testing.B) {
	exe, _ := os.Executable()
	direct := startEcho(b, exe)
	proxied := startEcho(b, exe, "proxy")
	defer direct.stop()
	defer proxied.stop()
	var d, p []int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d = append(d, direct.roundTrip(b, i))
		p = append(p, proxied.roundTrip(b, i))
	}
	b.StopTimer()
	added := (median(p) - median(d)) / 2
	b.ReportMetric(float64(added)/1e3, "added-µs/frame")
	b.ReportMetric(float64(median(d))/1e3, "direct-p50-µs")
	b.ReportMetric(float64(median(p))/1e3, "proxied-p50-µs")
}

type echoPeer struct {
	in   io.WriteCloser
	out  *bufio.Reader
	stop func()
}

func startEcho(b *testing.B, exe string, mode ...string) *echoPeer {
	if len(mode) == 0 {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "MCPPROBE_ECHO=1")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		return &echoPeer{in: in, out: bufio.NewReader(out), stop: func() { in.Close(); _ = cmd.Wait() }}
	}
	hostIn, toProxy := io.Pipe()
	fromProxy, hostOut := io.Pipe()
	done := make(chan struct{})
	go func() {
		_, _ = Proxy(context.Background(), hostIn, hostOut, io.Discard, echoOptions(Plan{}))
		hostOut.Close()
		close(done)
	}()
	return &echoPeer{in: toProxy, out: bufio.NewReader(fromProxy), stop: func() {
		go func() { _, _ = io.Copy(io.Discard, fromProxy) }()
		toProxy.Close()
		<-done
	}}
}

func (e *echoPeer) roundTrip(b *testing.B, i int) int64 {
	t0 := time.Now()
	fmt.Fprintf(e.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x"}}`+"\n", i)
	if _, err := e.out.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	return int64(time.Since(t0))
}

func median(s []int64) int64 {
	c := append([]int64(nil), s...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c[len(c)/2]
}
