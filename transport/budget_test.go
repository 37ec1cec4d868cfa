package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// A trace's http object is output as much as its raw text: a URL's query
// secret and a password must not reach the file.
func TestTraceStreamRedactsHTTPInfo(t *testing.T) {
	tr := NewTrace(time.Now())
	var buf lockedBuffer
	red := NewRedactor([]string{"sk-live-abc123", "pa55word"})
	if err := tr.Stream(&buf, red.Bytes); err != nil {
		t.Fatal(err)
	}
	tr.AddFrame(Frame{Dir: DirSend, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		HTTP: &HTTPInfo{Method: "POST", URL: "https://u:pa55word@h.test/mcp?api_key=sk-live-abc123"}})
	tr.AddFrame(Frame{Dir: DirHTTP, HTTP: &HTTPInfo{Status: 202, EventID: "ev-sk-live-abc123"}})
	lines := buf.lines(t)
	for i, l := range lines {
		if strings.Contains(string(l), "sk-live-abc123") || strings.Contains(string(l), "pa55word") {
			t.Errorf("line %d leaks a secret: %s", i, l)
		}
		if !strings.Contains(string(l), `"redacted":true`) {
			t.Errorf("line %d is not marked redacted: %s", i, l)
		}
	}
	if got := tr.Frames()[0].HTTP.URL; !strings.Contains(got, "sk-live-abc123") {
		t.Errorf("the in-memory frame was changed: %s", got)
	}
}

func TestShortSessionURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/messages?sessionId=0123456789abcdef", "/messages?sessionId=0123…"},
		{"http://h/m?session_id=abcdefgh&x=1", "http://h/m?session_id=abcd…&x=1"},
		{"/m?sessionid=abcdefgh#frag", "/m?sessionid=abcd…#frag"},
		{"/m?x=1", "/m?x=1"},
		{"/m", "/m"},
	}
	for _, tc := range tests {
		if got := ShortSessionURL(tc.in); got != tc.want {
			t.Errorf("ShortSessionURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Past its keep budget a trace still numbers and streams every frame,
// but holds none of the server's: memory does not grow with a flood.
func TestTraceKeepBudget(t *testing.T) {
	tr := NewTrace(time.Now())
	var buf lockedBuffer
	_ = tr.Stream(&buf, nil)
	tr.Keep(100)
	tr.Add(DirSend, []byte(strings.Repeat("s", 500))) // ours: never counted
	for i := 0; i < 10; i++ {
		f := tr.Add(DirRecv, []byte(strings.Repeat("r", 30)))
		if f.Seq != i+1 {
			t.Fatalf("frame %d numbered %d", i+1, f.Seq)
		}
		if want := i >= 3; f.Dropped != want {
			t.Errorf("frame %d Dropped = %v, want %v", f.Seq, f.Dropped, want)
		}
	}
	if n := len(tr.Frames()); n != 4 {
		t.Errorf("%d frames held, want 4 (send + 3 × 30 bytes)", n)
	}
	if frames, bytes := tr.Dropped(); frames != 7 || bytes != 210 {
		t.Errorf("Dropped = %d frames, %d bytes", frames, bytes)
	}
	if n := len(buf.lines(t)); n != 11 {
		t.Errorf("%d lines streamed, want every one of 11", n)
	}
	if got := tr.FramesFrom(2); len(got) != 2 || got[0].Seq != 2 {
		t.Errorf("FramesFrom(2) = %d frames", len(got))
	}
	if got := tr.FramesFrom(4); len(got) != 0 {
		t.Errorf("FramesFrom(4) = %d frames, want none held", len(got))
	}
}

func TestTraceForget(t *testing.T) {
	tr := NewTrace(time.Now())
	var buf lockedBuffer
	_ = tr.Stream(&buf, nil)
	tr.Forget()
	for i := 0; i < 5; i++ {
		tr.Add(DirRecv, []byte("x"))
	}
	if n := len(tr.Frames()); n != 0 {
		t.Errorf("a forgetting trace holds %d frames", n)
	}
	if n := len(buf.lines(t)); n != 5 {
		t.Errorf("%d lines streamed, want 5", n)
	}
}

// A server past MaxBytes is news at once: a problem wrapping ErrTooMuch,
// the launcher's kill called once, and nothing more read. In a synctest
// bubble over in-memory pipes, "at once" is before the bubble's clock
// moves at all.
func TestStdioMaxBytes(t *testing.T) { synctest.Test(t, testStdioMaxBytes) }

func testStdioMaxBytes(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	t0 := time.Now()
	defer inR.Close()
	defer outW.Close()
	defer errW.Close()
	kills := 0
	var mu sync.Mutex
	s := NewStdio(inW, outR, errR, StdioOptions{MaxBytes: 10000, OnOverflow: func() {
		mu.Lock()
		kills++
		mu.Unlock()
	}})
	go func() {
		line := strings.Repeat("e", 999) + "\n"
		for i := 0; i < 100; i++ {
			if _, err := io.WriteString(errW, line); err != nil {
				return
			}
		}
	}()
	select {
	case err := <-s.Problems():
		if !errors.Is(err, ErrTooMuch) {
			t.Errorf("problem %v, want ErrTooMuch", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no problem raised past MaxBytes")
	}
	if waited := time.Since(t0); waited != 0 {
		t.Errorf("the problem came after %v of the bubble's clock, want at once", waited)
	}
	if !s.Overflowed() {
		t.Error("Overflowed false")
	}
	if got := s.Received(); got > 10000+64<<10 {
		t.Errorf("read %d bytes past a bound of 10000", got)
	}
	s.CloseOutput(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if kills != 1 {
		t.Errorf("OnOverflow called %d times, want 1", kills)
	}
}

// A line over MaxLine is reported when it passes the bound, though its
// newline never comes and the stream stays open: in a synctest bubble,
// before the bubble's clock moves.
func TestStdioLineTooLongWithoutNewline(t *testing.T) {
	synctest.Test(t, testStdioLineTooLongWithoutNewline)
}

func testStdioLineTooLongWithoutNewline(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	t0 := time.Now()
	defer inR.Close()
	defer errW.Close()
	s := NewStdio(inW, outR, errR, StdioOptions{MaxLine: 1000})
	wrote := make(chan struct{})
	go func() { _, _ = io.WriteString(outW, strings.Repeat("x", 5000)); close(wrote) }()
	select {
	case err := <-s.Problems():
		if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "no newline yet") {
			t.Errorf("problem %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a line past the bound with no newline was not reported while the stream was open")
	}
	if waited := time.Since(t0); waited != 0 {
		t.Errorf("reported after %v of the bubble's clock, want at once", waited)
	}
	// An in-memory pipe holds nothing: the line is whole once its write
	// returns, as an OS pipe's buffer held it whole at once.
	<-wrote
	outW.Close()
	s.CloseOutput(time.Second)
	// The frame comes when the line ends, whole in length, and the
	// problem is not raised a second time.
	var cut []Frame
	for _, f := range s.Trace().Frames() {
		if f.Cut {
			cut = append(cut, f)
		}
	}
	if len(cut) != 1 || cut[0].Len != 5000 || len(cut[0].Raw) != 1000 {
		t.Errorf("cut frames %+v", cut)
	}
	select {
	case err := <-s.Problems():
		t.Errorf("a second problem: %v", err)
	default:
	}
}

func TestLineReaderOnCut(t *testing.T) {
	tests := []struct {
		in      string
		calls   int
		lastLen int
	}{
		{strings.Repeat("a", 10) + "\n", 0, 10},    // at the bound
		{strings.Repeat("a", 11) + "\n", 0, 11},    // over, but whole in one read: the caller sees it whole at once
		{strings.Repeat("a", 100) + "\nb\n", 1, 1}, // over, across reads
		{strings.Repeat("a", 100), 1, 100},         // over, and no newline ever
	}
	for _, tc := range tests {
		lr := NewLineReader(iotest1(tc.in), 10)
		calls := 0
		lr.OnCut = func(head []byte, soFar int) {
			calls++
			if len(head) > 10 || soFar <= 10 {
				t.Errorf("OnCut(%d bytes, %d)", len(head), soFar)
			}
		}
		var last Line
		for {
			l, err := lr.Next()
			if l.Len > 0 {
				last = l
				if l.Cut && calls > 0 != l.Early {
					t.Errorf("%.12q: Early = %v after %d calls", tc.in, l.Early, calls)
				}
			}
			if err != nil {
				break
			}
		}
		if calls != tc.calls || last.Len != tc.lastLen {
			t.Errorf("%.12q: %d OnCut calls, last line %d bytes; want %d and %d", tc.in, calls, last.Len, tc.calls, tc.lastLen)
		}
	}
}

// iotest1 reads one byte at a time, so that no line arrives in one read.
func iotest1(s string) io.Reader { return &oneByte{s: s} }

type oneByte struct{ s string }

func (o *oneByte) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	p[0] = o.s[0]
	o.s = o.s[1:]
	return 1, nil
}

// Over HTTP, MaxBytes counts every body: an endless event stream ends the
// session with ErrTooMuch.
func TestHTTPMaxBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"x\":\"%s\"}}\n\n", strings.Repeat("y", 1000)); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := NewHTTP(HTTPOptions{URL: srv.URL, Mode: "streamable", MaxBytes: 100000, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(loadfactor.Scale(10 * time.Second))
	for {
		select {
		case _, ok := <-c.Messages():
			if ok {
				continue
			}
			if !errors.Is(c.Err(), ErrTooMuch) || !c.Overflowed() {
				t.Errorf("stream ended with %v", c.Err())
			}
			if got := c.Received(); got > 100000+64<<10 {
				t.Errorf("read %d body bytes past a bound of 100000", got)
			}
			c.Close()
			return
		case <-deadline:
			t.Fatal("the stream did not end past MaxBytes")
		}
	}
}
