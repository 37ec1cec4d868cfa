package transport

import (
	"strings"
	"testing"
	"time"
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
