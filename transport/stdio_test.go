package transport

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestStdioOverGivenPipes: Stdio frames and records pipes it did not
// open: messages, noise, stderr, the first byte, and a bounded release of
// pipes a stray process keeps open. In a synctest bubble over in-memory
// pipes, that bound is exactly the wait CloseOutput is given.
func TestStdioOverGivenPipes(t *testing.T) { synctest.Test(t, testStdioOverGivenPipes) }

func testStdioOverGivenPipes(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	defer inR.Close()
	s := NewStdio(inW, outR, errR, StdioOptions{})
	if s.FirstByte() != 0 {
		t.Error("FirstByte set before any byte")
	}
	// The server writes 10ms in: on the bubble's clock, the first byte's
	// time is that exactly.
	time.Sleep(10 * time.Millisecond)
	io.WriteString(outW, "server starting\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
	io.WriteString(errW, "one\ntwo\n")
	select {
	case m := <-s.Messages():
		if string(m.Raw) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("message %q", m.Raw)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
	}
	if s.FirstByte() != 10*time.Millisecond {
		t.Errorf("FirstByte %v, want 10ms, when the server wrote", s.FirstByte())
	}
	// An in-memory pipe holds nothing: stdin is read as it is written.
	got := make([]byte, 64)
	read := make(chan int)
	go func() { n, _ := inR.Read(got); read <- n }()
	if err := s.Send([]byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	n := <-read
	if string(got[:n]) != "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n" {
		t.Errorf("stdin got %q", got[:n])
	}
	s.CloseInput()
	if err := s.Send([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Send after CloseInput: %v", err)
	}
	if n, _ := inR.Read(got); n != 0 {
		t.Errorf("stdin still open: read %d bytes", n)
	}
	if s.OutputEnded() {
		t.Error("OutputEnded before stdout closed")
	}
	synctest.Wait() // the stderr reader has taken both lines
	// The write ends stay open, as a stray grandchild would keep them:
	// CloseOutput must return anyway, after the wait it is given.
	t0 := time.Now()
	s.CloseOutput(100 * time.Millisecond)
	if took := time.Since(t0); took != 100*time.Millisecond {
		t.Errorf("CloseOutput took %v, want the 100ms it was given", took)
	}
	noise, stderr, dropped := s.Counts()
	if noise != 1 || stderr != 2 || dropped != 0 {
		t.Errorf("counts: noise %d stderr %d dropped %d, want 1 2 0", noise, stderr, dropped)
	}
	if tail := s.StderrTail(); strings.Join(tail, ",") != "one,two" {
		t.Errorf("stderr tail %q", tail)
	}
	if !s.OutputEnded() {
		t.Error("OutputEnded false after CloseOutput")
	}
	outW.Close()
	errW.Close()
}

// TestStdioDirect: a Handler attached at any moment gets every message
// once and in order, the problems raised before it, and the end once,
// last: attached before any output, with messages queued, with the queue
// full and the reader blocked on it, and after the stream has ended.
func TestStdioDirect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before int  // messages written before Direct
		after  int  // messages written after
		ended  bool // stdout closed before Direct
	}{
		{"before any output", 0, 5, false},
		{"with messages queued", 3, 5, false},
		{"queue full, reader blocked", 100, 5, false},
		{"after the end", 10, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				errR, errW := io.Pipe()
				defer inR.Close()
				s := NewStdio(inW, outR, errR, StdioOptions{MaxLine: 64})
				// An in-memory pipe holds nothing: a write returns once
				// read, so one writer writes in order while the reader is
				// blocked on a full queue, and closes stdout after.
				chunks := make(chan string, 4)
				wrote := make(chan struct{})
				go func() {
					defer close(wrote)
					for c := range chunks {
						io.WriteString(outW, c)
					}
					outW.Close()
				}()
				write := func(from, n int) {
					var b strings.Builder
					for i := from; i < from+n; i++ {
						fmt.Fprintf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"i\":%d}}\n", i)
					}
					chunks <- b.String()
				}
				// An oversize line first: a problem raised before Direct.
				chunks <- strings.Repeat("x", 100) + "\n"
				write(0, tc.before)
				if tc.ended {
					close(chunks)
					<-wrote
					errW.Close()
					<-s.drained
				} else {
					// Let the reader queue what it can.
					synctest.Wait()
					if len(s.msgs) != min(tc.before, cap(s.msgs)) {
						t.Fatalf("%d messages queued before Direct, want %d", len(s.msgs), min(tc.before, cap(s.msgs)))
					}
				}
				var mu sync.Mutex
				var got []int
				var problems, ends int
				endedCh := make(chan struct{})
				ok := s.Direct(Handler{
					Message: func(m Message) {
						mu.Lock()
						defer mu.Unlock()
						if ends > 0 {
							t.Error("a message after the end")
						}
						got = append(got, int(gjsonInt(m.Raw)))
					},
					Problem: func(error) { mu.Lock(); problems++; mu.Unlock() },
					End:     func() { mu.Lock(); ends++; mu.Unlock(); close(endedCh) },
				})
				if !ok {
					t.Fatal("Direct refused")
				}
				if s.Direct(Handler{}) {
					t.Error("a second Direct accepted")
				}
				if !tc.ended {
					write(tc.before, tc.after)
					close(chunks)
					errW.Close()
				}
				select {
				case <-endedCh:
				case <-time.After(5 * time.Second):
					t.Fatal("no end")
				}
				s.CloseOutput(time.Second)
				mu.Lock()
				defer mu.Unlock()
				if len(got) != tc.before+tc.after {
					t.Fatalf("%d messages, want %d", len(got), tc.before+tc.after)
				}
				for i, v := range got {
					if v != i {
						t.Fatalf("message %d is %d: out of order", i, v)
					}
				}
				if problems != 1 || ends != 1 {
					t.Errorf("problems %d ends %d, want 1 and 1", problems, ends)
				}
			})
		})
	}
}

// gjsonInt reads params.i without a JSON library in the transport's tests.
func gjsonInt(raw []byte) int {
	s := string(raw)
	i := strings.Index(s, `"i":`)
	n := 0
	for _, c := range s[i+4:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestStdioStampsTheWire: a stdout line is stamped when the read that
// brought it returned, not when the reader got round to it (the second
// of two lines written at once waits behind a slow first), and
// SendStamped gives the time of the frame it records before writing. On a
// synctest bubble's clock the slow first line takes exactly its 50ms, and
// two lines of one read are stamped a nanosecond apart.
func TestStdioStampsTheWire(t *testing.T) { synctest.Test(t, testStdioStampsTheWire) }

func testStdioStampsTheWire(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	defer inR.Close()
	defer errW.Close()
	// An in-memory pipe holds nothing: the server reads its stdin.
	go io.Copy(io.Discard, inR)
	s := NewStdio(inW, outR, errR, StdioOptions{})
	const slow = 50 * time.Millisecond
	got := make(chan Message, 2)
	s.Direct(Handler{Message: func(m Message) {
		if len(got) == 0 {
			time.Sleep(slow)
		}
		got <- m
	}, Problem: func(error) {}, End: func() {}})
	// One write: one read takes both lines, as one write of less than
	// PIPE_BUF to an OS pipe is.
	io.WriteString(outW, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n")
	var m [2]Message
	for i := range m {
		select {
		case m[i] = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("no message")
		}
	}
	if d := m[1].T - m[0].T; d >= slow {
		t.Errorf("the second line is stamped %v after the first, which it came with: stamped when handled, not when read", d)
	}
	var sent atomic.Int64
	if err := s.SendStamped([]byte(`{"jsonrpc":"2.0","id":3,"method":"x"}`), &sent); err != nil {
		t.Fatal(err)
	}
	fs := s.trace.Frames()
	last := fs[len(fs)-1]
	if last.Dir != DirSend || time.Duration(sent.Load()) != last.T || last.T < m[1].T {
		t.Errorf("sent %v, the send frame %+v", time.Duration(sent.Load()), last)
	}
	outW.Close()
}
