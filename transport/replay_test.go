package transport

import (
	"bytes"
	"errors"
	"slices"
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

// TestReplayAnswerOrder: the client's answer to a server request and its
// own next request, with nothing from the server between them, may go out
// in either order (the answer is written by a goroutine of its own); two
// requests, or two answers, in another order still diverge. The caller's
// frames are left as they were.
func TestReplayAnswerOrder(t *testing.T) {
	req := func(id int, m string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"` + m + `"}`)
	}
	answer := func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`) }
	frames := []Frame{
		{Dir: DirSend, Raw: req(1, "initialize")},
		{Dir: DirRecv, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{Dir: DirRecv, Raw: []byte(`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)},
		{Dir: DirSend, Raw: answer("s1")},
		{Dir: DirSend, Raw: req(2, "tools/list")},
		{Dir: DirSend, Raw: req(3, "prompts/list")},
		{Dir: DirRecv, Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)},
	}
	before := slices.Clone(frames)
	for _, tc := range []struct {
		name    string
		sends   [][]byte
		diverge bool
	}{
		{"as recorded", [][]byte{req(1, "initialize"), answer("s1"), req(2, "tools/list"), req(3, "prompts/list")}, false},
		{"the request before the answer", [][]byte{req(1, "initialize"), req(2, "tools/list"), answer("s1"), req(3, "prompts/list")}, false},
		{"both requests before the answer", [][]byte{req(1, "initialize"), req(2, "tools/list"), req(3, "prompts/list"), answer("s1")}, false},
		{"two requests swapped", [][]byte{req(1, "initialize"), answer("s1"), req(3, "prompts/list"), req(2, "tools/list")}, true},
		{"a request the recording lacks", [][]byte{req(1, "initialize"), req(2, "resources/list")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReplay(frames, nil)
			var err error
			for _, s := range tc.sends {
				if err = r.Send(s); err != nil {
					break
				}
			}
			if got := errors.Is(err, ErrReplayDiverged); got != tc.diverge {
				t.Fatalf("diverged %v (%v), want %v", got, err, tc.diverge)
			}
			if tc.diverge {
				return
			}
			var last []byte
			for m := range r.Messages() {
				last = m.Raw
				if len(r.msgs) == 0 {
					break
				}
			}
			if string(last) != `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` {
				t.Errorf("last delivered %q, want the tools/list result", last)
			}
		})
	}
	for i := range frames {
		if !bytes.Equal(frames[i].Raw, before[i].Raw) {
			t.Fatalf("the caller's frame %d was changed", i)
		}
	}
}
