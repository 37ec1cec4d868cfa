package probe

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// pipeServer is a stdio server in the test's own process, over in-memory
// pipes, so that the session's conn is a transport.Stdio (Inline): answer
// says what it sends for each request id ("" for nothing); after answers
// requests it closes its stdout. Requests are counted on got. The tests
// run it in a synctest bubble: its clock moves only when every goroutine
// waits, so a timeout fires when nothing else can happen, on any machine
// at any load, and a round trip is exactly the delays the server takes.
// Each answer takes the server answerDelay, so that no round trip is 0.
type pipeServer struct {
	s   *Session
	got chan int64
}

func startPipeServer(t *testing.T, answer func(id int64) string, closeAfter int) *pipeServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	ps := &pipeServer{got: make(chan int64, 1024)}
	go func() {
		sc := bufio.NewScanner(inR)
		n := 0
		for sc.Scan() {
			id := gjson.GetBytes(sc.Bytes(), "id").Int()
			ps.got <- id
			if a := answer(id); a != "" {
				time.Sleep(answerDelay)
				if _, err := io.WriteString(outW, a+"\n"); err != nil {
					break
				}
			}
			if n++; closeAfter > 0 && n >= closeAfter {
				break
			}
		}
		outW.Close()
		// What is written to a server that stopped reading lands in the
		// pipe's buffer, as an OS pipe's would: drained, never read.
		_, _ = io.Copy(io.Discard, inR)
	}()
	st := transport.NewStdio(inW, outR, errR, transport.StdioOptions{WriteTO: time.Second})
	ps.s = NewSession(st)
	t.Cleanup(func() {
		st.CloseInput()
		errW.Close()
		inR.Close()
		outR.Close()
	})
	return ps
}

const answerDelay = time.Millisecond

func result(id int64) string {
	return `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"result":{"n":` + strconv.FormatInt(id, 10) + `}}`
}

// TestChain: the requests of a chain go out one at a time, each after the
// last one's outcome, and every outcome is what the server did: an
// answer, an error answer, a timeout (the watchdog's), the end of the
// stream; each can stop it.
func TestChain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n          int
		answer     func(id int64) string
		closeAfter int
		stopAfter  int // each says stop after this many outcomes (0: never)
		want       []string
	}{
		{"all answered", 4, result, 0, 0, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`}},
		{"an error answer is an outcome and the chain goes on", 3, func(id int64) string {
			if id == 2 {
				return `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"busy"}}`
			}
			return result(id)
		}, 0, 0, []string{`{"n":1}`, "rpc -32000", `{"n":3}`}},
		{"a request never answered times out and the chain goes on", 3, func(id int64) string {
			if id == 2 {
				return ""
			}
			return result(id)
		}, 0, 0, []string{`{"n":1}`, "timeout", `{"n":3}`}},
		{"each stops it", 5, result, 0, 2, []string{`{"n":1}`, `{"n":2}`}},
		{"the stream ends: every request left is closed", 4, result, 2, 0, []string{`{"n":1}`, `{"n":2}`, "closed", "closed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ps := startPipeServer(t, tc.answer, tc.closeAfter)
				if !ps.s.CanChain() {
					t.Fatal("a stdio session cannot chain")
				}
				var got []string
				befores := 0
				err := ps.s.Chain(context.Background(), "x", nil, 200*time.Millisecond, tc.n, func() { befores++ },
					func(d time.Duration, r Response, err error) bool {
						// An answer's round trip holds the server's delay
						// and a timeout's the whole timeout; a request the
						// closed stream fails at once takes none of the
						// bubble's time.
						var ce0 *ClosedError
						if d < 0 || d == 0 && !errors.As(err, &ce0) {
							t.Errorf("round trip %v", d)
						}
						var te0 *TimeoutError
						if errors.As(err, &te0) && d != 200*time.Millisecond {
							t.Errorf("a timeout after %v, want the timeout, 200ms", d)
						}
						var re *RPCError
						var te *TimeoutError
						var ce *ClosedError
						switch {
						case errors.As(err, &re):
							got = append(got, "rpc "+strconv.FormatInt(re.Code, 10))
						case errors.As(err, &te):
							got = append(got, "timeout")
						case errors.As(err, &ce):
							got = append(got, "closed")
						case err != nil:
							got = append(got, "error "+err.Error())
						default:
							got = append(got, string(r.Result))
						}
						return tc.stopAfter == 0 || len(got) < tc.stopAfter
					})
				if err != nil {
					t.Fatalf("Chain: %v", err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("outcomes %q, want %q", got, tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("outcome %d %q, want %q (all %q)", i, got[i], tc.want[i], got)
					}
				}
				if befores != len(tc.want) {
					t.Errorf("before called %d times, want %d", befores, len(tc.want))
				}
			})
		})
	}
}

// TestChainOneInFlight: the server sees request k+1 only after it has
// answered request k.
func TestChainOneInFlight(t *testing.T) { synctest.Test(t, testChainOneInFlight) }

func testChainOneInFlight(t *testing.T) {
	var mu sync.Mutex
	answered := int64(0)
	var bad []int64
	ps := startPipeServer(t, func(id int64) string {
		mu.Lock()
		defer mu.Unlock()
		if id != answered+1 {
			bad = append(bad, id)
		}
		answered = id
		return result(id)
	}, 0)
	n := 0
	if err := ps.s.Chain(context.Background(), "x", nil, time.Second, 50, nil, func(time.Duration, Response, error) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 50 || answered != 50 || len(bad) > 0 {
		t.Errorf("%d outcomes, last answered %d, out of turn %v; want 50, 50, none", n, answered, bad)
	}
}

// TestChainCanceled: an interrupt ends the chain while a request is in
// flight; each is not called after Chain returns, and the answer that
// comes later is a late reply.
func TestChainCanceled(t *testing.T) { synctest.Test(t, testChainCanceled) }

func testChainCanceled(t *testing.T) {
	release := make(chan struct{})
	ps := startPipeServer(t, func(id int64) string {
		if id == 2 {
			<-release
		}
		return result(id)
	}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	n, after := 0, false
	done := make(chan error, 1)
	go func() {
		done <- ps.s.Chain(ctx, "x", nil, 10*time.Second, 5, nil, func(time.Duration, Response, error) bool {
			mu.Lock()
			defer mu.Unlock()
			if after {
				t.Error("each called after Chain returned")
			}
			n++
			return true
		})
	}()
	for want := int64(1); want <= 2; want++ {
		select {
		case id := <-ps.got:
			if id != want {
				t.Fatalf("request %d, want %d", id, want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("request %d never came", want)
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Chain returned %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Chain did not return on cancel")
	}
	mu.Lock()
	after = true
	got := n
	mu.Unlock()
	close(release)
	if got != 1 {
		t.Errorf("%d outcomes before the cancel, want 1", got)
	}
	// The late answer is read once the server and the reader have
	// nothing left to do.
	time.Sleep(answerDelay)
	synctest.Wait()
	if counts, _ := ps.s.EventCounts(); counts["late_reply\x00x"] != 1 {
		t.Errorf("events %v, want one late_reply to x", counts)
	}
}

// TestChainTimesTheWire: over stdio an answer's round trip is its
// frames': from the request's send frame to the answer's, as the trace
// holds them, and it holds the server's own delay.
func TestChainTimesTheWire(t *testing.T) { synctest.Test(t, testChainTimesTheWire) }

func testChainTimesTheWire(t *testing.T) {
	const delay = 10 * time.Millisecond
	ps := startPipeServer(t, func(id int64) string { time.Sleep(delay); return result(id) }, 0)
	type got struct {
		d time.Duration
		r Response
	}
	var all []got
	// The session is a moment old when the chain starts: a send at the
	// trace's first instant would be stamped 0, which reads as unstamped.
	time.Sleep(time.Millisecond)
	err := ps.s.Chain(context.Background(), "x", nil, 5*time.Second, 3, nil, func(d time.Duration, r Response, err error) bool {
		if err != nil {
			t.Error(err)
		}
		all = append(all, got{d, r})
		return true
	})
	if err != nil || len(all) != 3 {
		t.Fatalf("Chain: %v, %d outcomes", err, len(all))
	}
	frames := ps.s.conn.Trace().Frames()
	for i, g := range all {
		if g.r.Sent <= 0 || g.d != g.r.T-g.r.Sent || g.d < delay {
			t.Errorf("answer %d: round trip %v, sent %v, arrived %v", i+1, g.d, g.r.Sent, g.r.T)
		}
		var sendT, recvT time.Duration = -1, -1
		for _, f := range frames {
			if gjson.GetBytes(f.Raw, "id").Int() != int64(i+1) {
				continue
			}
			switch f.Dir {
			case transport.DirSend:
				sendT = f.T
			case transport.DirRecv:
				recvT = f.T
			}
		}
		if sendT != g.r.Sent || recvT != g.r.T {
			t.Errorf("answer %d: sent %v arrived %v, the trace's frames %v and %v", i+1, g.r.Sent, g.r.T, sendT, recvT)
		}
	}
}
