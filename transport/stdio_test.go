package transport

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStdioOverGivenPipes: Stdio frames and records pipes it did not
// open: messages, noise, stderr, the first byte, and a bounded release of
// pipes a stray process keeps open.
func TestStdioOverGivenPipes(t *testing.T) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	defer inR.Close()
	s := NewStdio(inW, outR, errR, StdioOptions{})
	if s.FirstByte() != 0 {
		t.Error("FirstByte set before any byte")
	}
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
	if s.FirstByte() <= 0 {
		t.Error("FirstByte not set")
	}
	if err := s.Send([]byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 64)
	n, _ := inR.Read(got)
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
	for deadline := time.Now().Add(5 * time.Second); len(s.StderrTail()) < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	// The write ends stay open, as a stray grandchild would keep them:
	// CloseOutput must return anyway.
	t0 := time.Now()
	s.CloseOutput(100 * time.Millisecond)
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("CloseOutput took %v", took)
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
