package transport

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestReadTraceRoundTrip(t *testing.T) {
	tr := NewTrace(time.Now())
	var buf bytes.Buffer
	_ = tr.Stream(&buf, nil)
	tr.Add(DirStderr, []byte("starting"))
	tr.Add(DirSend, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	tr.Add(DirRecv, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))
	tr.Add(DirNoise, []byte{0xff, 'x'})
	frames, err := ReadTrace(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	orig := tr.Frames()
	if len(frames) != len(orig) {
		t.Fatalf("%d frames, want %d", len(frames), len(orig))
	}
	for i := range orig {
		if frames[i].Dir != orig[i].Dir || !bytes.Equal(frames[i].Raw, orig[i].Raw) || frames[i].T != orig[i].T {
			t.Errorf("frame %d: got %+v, want %+v", i, frames[i], orig[i])
		}
	}
}

func TestReadTraceRejects(t *testing.T) {
	for _, in := range []string{"{not json}\n", `{"dir":"recv","raw_b64":"%%%"}` + "\n"} {
		if _, err := ReadTrace(bytes.NewBufferString(in), 0); err == nil {
			t.Errorf("ReadTrace(%q) = nil error", in)
		}
	}
	long := `{"dir":"recv","raw":"` + string(bytes.Repeat([]byte("a"), 5000)) + `"}` + "\n"
	if _, err := ReadTrace(bytes.NewBufferString(long), 100); err == nil {
		t.Error("an over-long line was accepted")
	}
}

func TestReplay(t *testing.T) {
	frames := []Frame{
		{Dir: DirStderr, Raw: []byte("banner")},
		{Dir: DirSend, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)},
		{Dir: DirRecv, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message"}`)},
		{Dir: DirRecv, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{ }}`)},
		{Dir: DirSend, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
		{Dir: DirSend, Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)},
		{Dir: DirRecv, Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)},
	}
	r := NewReplay(frames, nil)
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	got := []string{string((<-r.Messages()).Raw), string((<-r.Messages()).Raw)}
	if got[1] != `{"jsonrpc":"2.0","id":1,"result":{ }}` || got[0] != string(frames[2].Raw) {
		t.Fatalf("delivered %q", got)
	}
	if err := r.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	err := r.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`))
	if !errors.Is(err, ErrReplayDiverged) {
		t.Fatalf("divergent send: %v", err)
	}
	if _, open := <-r.Messages(); open {
		t.Fatal("messages still open after divergence")
	}
	if n := len(r.Trace().Frames()); n != 6 {
		t.Errorf("replay trace has %d frames, want 6: the banner, 3 sends, 2 replies", n)
	}
}

// A timed replay plays every frame at its recorded time, and the trace's
// clock reads the recorded time of the client's next send: a call timed
// on it measures what the recording measured, however fast it runs.
func TestTimedReplay(t *testing.T) {
	ms := time.Millisecond
	frames := []Frame{
		{Dir: DirSend, T: 10 * ms, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)},
		{Dir: DirRecv, T: 60 * ms, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`)},
		{Dir: DirRecv, T: 150 * ms, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{Dir: DirSend, T: 400 * ms, Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)},
		{Dir: DirRecv, T: 410 * ms, Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)},
	}
	tr := NewTrace(time.Now())
	r := NewTimedReplay(frames, tr)
	if got := tr.Since(); got != 10*ms {
		t.Errorf("before the first send the clock reads %v, want the send's recorded 10ms", got)
	}
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []time.Duration{60 * ms, 150 * ms} {
		if m := <-r.Messages(); m.T != want {
			t.Errorf("%s played at %v, want %v", m.Raw, m.T, want)
		}
	}
	if got := tr.Since(); got != 400*ms {
		t.Errorf("between sends the clock reads %v, want the next send's 400ms", got)
	}
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	<-r.Messages()
	if got := tr.Since(); got != 410*ms {
		t.Errorf("after the last send the clock reads %v, want the last frame's 410ms", got)
	}
	var sends []time.Duration
	for _, f := range tr.Frames() {
		if f.Dir == DirSend {
			sends = append(sends, f.T)
		}
	}
	if len(sends) != 2 || sends[0] != 10*ms || sends[1] != 400*ms {
		t.Errorf("sends traced at %v, want [10ms 400ms]", sends)
	}
	// An untimed replay keeps the live clock.
	live := NewTrace(time.Now().Add(-time.Hour))
	NewReplay(frames, live)
	if live.Since() < time.Hour {
		t.Errorf("an untimed replay's clock reads %v, want the live clock", live.Since())
	}
}
