package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/transport"
)

func TestStartFailures(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		target  Target
		want    []string
		asStart bool
	}{
		{"not on PATH", context.Background(), Target{Kind: "stdio", Command: "no-such-mcp-server-xyz"},
			[]string{`could not start "no-such-mcp-server-xyz"`, "\nReceived: nothing: the process never ran", "\nTry: it is not on PATH"}, true},
		{"not a URL", context.Background(), Target{Kind: "http", URL: "ftp://x/mcp"},
			[]string{"is not an http(s) URL", "\nTry: give a URL such as https://host/mcp"}, false},
		{"cancelled", cancelled, Target{Kind: "stdio", Command: "sh"}, []string{"context canceled"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Start(tc.ctx, tc.target, Options{})
			if err == nil {
				srv.Stop()
				t.Fatal("started")
			}
			msg := err.Error()
			var ne *NotStartedError
			if errors.As(err, &ne) {
				msg = ne.What + "\nReceived: " + ne.Received + "\nTry: " + ne.Try
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%v", w, msg)
				}
			}
			var se *StartError
			if errors.As(err, &se) != tc.asStart {
				t.Errorf("errors.As(*StartError) = %v, want %v", !tc.asStart, tc.asStart)
			}
		})
	}
}

// TestServerKillAndStop: Kill is a crash (SIGKILL, no grace), Stop after
// it reaps and reports, and Stop is idempotent.
func TestServerKillAndStop(t *testing.T) {
	srv, err := Start(context.Background(), helperTarget(t, "ignore-term"), Options{Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	srv.Kill()
	r := srv.Stop()
	if took := time.Since(t0); took > loadfactor.Scale(3*time.Second) {
		t.Errorf("Kill then Stop took %v: the grace period was waited out", took)
	}
	if r.Status != "signal: killed" {
		t.Errorf("Status = %q, want signal: killed", r.Status)
	}
	if r.StoppedBy != "SIGKILL sent by mcpprobe to crash it" {
		t.Errorf("StoppedBy = %q: the kill was ours", r.StoppedBy)
	}
	if again := srv.Stop(); !reflect.DeepEqual(again, r) {
		t.Errorf("a second Stop gave %+v, want %+v", again, r)
	}
	if err := srv.Conn().Send([]byte(`{}`)); err == nil {
		t.Error("Send after Stop succeeded")
	}
}

// Servers started with a Recorder each get a trace of their own, numbered
// in start order, all streamed to the one writer.
func TestStartRecords(t *testing.T) {
	var buf strings.Builder
	rec := transport.NewRecorder(&lockedWriter{w: &buf}, nil)
	ctx := context.Background()
	var srvs []*Server
	for range 2 {
		srv, err := Start(ctx, helperTarget(t, "clean"), Options{Grace: time.Second, Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		srvs = append(srvs, srv)
	}
	for i, srv := range srvs {
		if err := srv.Conn().Send([]byte(fmt.Sprintf(`{"n":%d}`, i+1))); err != nil {
			t.Fatal(err)
		}
		srv.Stop()
	}
	if srvs[0].Trace() == srvs[1].Trace() {
		t.Fatal("two servers share a trace")
	}
	for i, srv := range srvs {
		var sends []string
		for _, f := range srv.Trace().Frames() {
			if f.Conn != i+1 {
				t.Errorf("server %d: a frame of connection %d", i+1, f.Conn)
			}
			if f.Dir == transport.DirSend {
				sends = append(sends, string(f.Raw))
			}
		}
		if want := fmt.Sprintf(`{"n":%d}`, i+1); len(sends) != 1 || sends[0] != want {
			t.Errorf("server %d's trace sends %q, want only %s", i+1, sends, want)
		}
	}
	frames, err := transport.ReadTrace(strings.NewReader(buf.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := transport.SplitConns(frames)
	if len(conns) != 2 || conns[0][0].Conn != 1 || conns[1][0].Conn != 2 {
		t.Fatalf("the file holds %d connections:\n%s", len(conns), buf.String())
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A replay of several connections plays one per Start, in order, shared
// by copies of the target, and says so when it runs out.
func TestReplayTargetConnections(t *testing.T) {
	ask := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	var frames []transport.Frame
	for c := 1; c <= 2; c++ {
		frames = append(frames,
			transport.Frame{Conn: c, Dir: transport.DirSend, Raw: []byte(ask)},
			transport.Frame{Conn: c, Dir: transport.DirRecv, Raw: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"conn":%d}}`, c))})
	}
	a := ReplayTarget("rec", frames)
	b := a // a copy, as bench --vs makes for its second target
	ctx := context.Background()
	for i, tgt := range []Target{a, b} {
		srv, err := Start(ctx, tgt, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Conn().Send([]byte(ask)); err != nil {
			t.Fatal(err)
		}
		got := string((<-srv.Conn().Messages()).Raw)
		if want := fmt.Sprintf(`"result":{"conn":%d}`, i+1); !strings.Contains(got, want) {
			t.Errorf("start %d played %s, want connection %d", i+1, got, i+1)
		}
		srv.Stop()
	}
	_, err := Start(ctx, a, Options{})
	var ne *NotStartedError
	if !errors.As(err, &ne) || !strings.Contains(ne.What, "holds 2 connection(s), and connection 3 was started") ||
		ne.Received != "nothing: a replay has no more connections to play" {
		t.Errorf("a third start: %v", err)
	}
}
