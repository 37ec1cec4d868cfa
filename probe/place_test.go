package probe

import (
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

func TestPlaces(t *testing.T) {
	tr := transport.NewTrace(time.Now())
	add := func(f transport.Frame) int { return tr.AddFrame(f).Seq }
	send := add(transport.Frame{Dir: transport.DirSend, Raw: []byte(`{}`)})
	e1 := add(transport.Frame{Dir: transport.DirStderr, Raw: []byte("log")})
	r1 := add(transport.Frame{Dir: transport.DirRecv, Raw: []byte(`{}`)})
	e2 := add(transport.Frame{Dir: transport.DirStderr, Raw: []byte("log")})
	n1 := add(transport.Frame{Dir: transport.DirNoise, Raw: []byte("text")})
	r2 := add(transport.Frame{Dir: transport.DirRecv, Raw: []byte(`{}`)})
	p := NewPlaces(tr)
	for seq, want := range map[int]string{
		send: "stdin line 1", e1: "stderr line 1", r1: "stdout line 1", e2: "stderr line 2",
		n1: "stdout line 2", r2: "stdout line 3", 99: "a frame the trace did not keep",
	} {
		if got := p.Of(seq); got != want {
			t.Errorf("Of(%d) = %q, want %q", seq, got, want)
		}
	}

	// Over HTTP, messages are counted, not lines.
	h := transport.NewTrace(time.Now())
	info := &transport.HTTPInfo{Method: "POST"}
	s := h.AddFrame(transport.Frame{Dir: transport.DirSend, Raw: []byte(`{}`), HTTP: info}).Seq
	x := h.AddFrame(transport.Frame{Dir: transport.DirHTTP, HTTP: info}).Seq
	r := h.AddFrame(transport.Frame{Dir: transport.DirRecv, Raw: []byte(`{}`), HTTP: info}).Seq
	hp := NewPlaces(h)
	for seq, want := range map[int]string{s: "sent message 1", x: "HTTP exchange 1", r: "received message 1"} {
		if got := hp.Of(seq); got != want {
			t.Errorf("HTTP: Of(%d) = %q, want %q", seq, got, want)
		}
	}

	// Past the trace's keep budget, a count is of the frames kept, and
	// says so.
	k := transport.NewTrace(time.Now())
	k.Keep(4)
	a := k.AddFrame(transport.Frame{Dir: transport.DirRecv, Raw: []byte(`1234`)}).Seq
	dropped := k.AddFrame(transport.Frame{Dir: transport.DirRecv, Raw: []byte(`5`)})
	b := k.AddFrame(transport.Frame{Dir: transport.DirSend, Raw: []byte(`{}`)}).Seq
	kp := NewPlaces(k)
	if !dropped.Dropped {
		t.Fatal("the keep budget kept the frame past it")
	}
	for seq, want := range map[int]string{a: "stdout line 1", dropped.Seq: "a frame the trace did not keep", b: "stdin line 1 of those the trace kept"} {
		if got := kp.Of(seq); got != want {
			t.Errorf("kept: Of(%d) = %q, want %q", seq, got, want)
		}
	}
	if got := NewPlaces(nil).Of(0); got != "a frame the trace did not keep" {
		t.Errorf("no trace: %q", got)
	}
}
