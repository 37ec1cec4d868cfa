package transport

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Several connections recording at once into one writer: every line is
// whole, carries its connection's number, and reads back into frames
// with their bytes; each connection's own trace holds only its frames.
func TestRecorderConnections(t *testing.T) {
	var buf lockedBuffer
	rec := NewRecorder(&buf, NewRedactor([]string{"hunter22"}).Bytes)
	const conns, per = 4, 50
	traces := make([]*Trace, conns)
	for i := range traces {
		traces[i] = rec.Trace(time.Now())
	}
	var wg sync.WaitGroup
	for i, tr := range traces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < per; j++ {
				tr.Add(DirRecv, []byte(fmt.Sprintf(`{"conn":%d,"n":%d,"s":"hunter22"}`, i+1, j)))
			}
		}()
	}
	wg.Wait()
	if rec.Conns() != conns || rec.Err() != nil {
		t.Fatalf("Conns %d Err %v", rec.Conns(), rec.Err())
	}
	for i, tr := range traces {
		fs := tr.Frames()
		if len(fs) != per {
			t.Fatalf("trace %d holds %d frames, want only its own %d", i+1, len(fs), per)
		}
		for j, f := range fs {
			if f.Conn != i+1 || f.Seq != j || !strings.Contains(string(f.Raw), "hunter22") {
				t.Fatalf("trace %d frame %d: conn %d seq %d raw %s", i+1, j, f.Conn, f.Seq, f.Raw)
			}
		}
	}
	lines := buf.lines(t)
	if len(lines) != conns*per {
		t.Fatalf("%d lines, want %d", len(lines), conns*per)
	}
	for _, l := range lines {
		fl, raw := decodeLine(t, l)
		if fl.Conn == nil || !strings.HasPrefix(string(raw), fmt.Sprintf(`{"conn":%d,`, *fl.Conn)) {
			t.Fatalf("line of the wrong connection: %s", l)
		}
		if !fl.Redacted || strings.Contains(string(l), "hunter22") {
			t.Fatalf("not redacted: %s", l)
		}
	}
	frames, err := ReadTrace(bytes.NewReader(buf.b.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	split := SplitConns(frames)
	if len(split) != conns {
		t.Fatalf("SplitConns: %d connections, want %d", len(split), conns)
	}
	for i, fs := range split {
		if len(fs) != per || fs[0].Conn != i+1 {
			t.Errorf("connection %d: %d frames, first of conn %d", i+1, len(fs), fs[0].Conn)
		}
		for j, f := range fs {
			if want := fmt.Sprintf(`{"conn":%d,"n":%d,"s":"***"}`, i+1, j); string(f.Raw) != want {
				t.Fatalf("connection %d frame %d = %s, want %s (in order)", i+1, j, f.Raw, want)
			}
		}
	}
}

// After a write fails, no trace writes again; each keeps recording in
// memory.
func TestRecorderWriteError(t *testing.T) {
	fw := &failWriter{}
	rec := NewRecorder(fw, nil)
	a, b := rec.Trace(time.Now()), rec.Trace(time.Now())
	a.Add(DirSend, []byte("1"))
	b.Add(DirSend, []byte("2"))
	a.Add(DirSend, []byte("3"))
	if fw.n != 1 || rec.Err() != errTest {
		t.Errorf("writer called %d times, Err %v; want 1 and %v", fw.n, rec.Err(), errTest)
	}
	if len(a.Frames()) != 2 || len(b.Frames()) != 1 {
		t.Errorf("frames in memory: %d and %d", len(a.Frames()), len(b.Frames()))
	}
}

func TestSplitConns(t *testing.T) {
	tests := []struct {
		name  string
		conns []int
		want  string
	}{
		{"one unnumbered connection", []int{0, 0, 0}, "0,0,0"},
		{"numbered, interleaved", []int{1, 2, 1, 3, 2}, "1,1|2,2|3"},
		{"numbers out of order", []int{2, 1}, "1|2"},
		{"none", nil, ""},
	}
	for _, tc := range tests {
		var fs []Frame
		for _, c := range tc.conns {
			fs = append(fs, Frame{Conn: c})
		}
		var parts []string
		for _, g := range SplitConns(fs) {
			var p []string
			for _, f := range g {
				p = append(p, fmt.Sprint(f.Conn))
			}
			parts = append(parts, strings.Join(p, ","))
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
