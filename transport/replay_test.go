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
