package transport

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// frameLine is the decoded form of one trace line.
type frameLine struct {
	Conn      *int    `json:"conn"`
	Dir       string  `json:"dir"`
	TNs       int64   `json:"t_ns"`
	Raw       *string `json:"raw"`
	RawB64    *string `json:"raw_b64"`
	Cut       bool    `json:"cut"`
	Len       *int    `json:"len"`
	NoNewline bool    `json:"no_newline"`
	Redacted  bool    `json:"redacted"`
}

func decodeLine(t *testing.T, line []byte) (frameLine, []byte) {
	t.Helper()
	if !bytes.HasSuffix(line, []byte("}\n")) {
		t.Fatalf("line does not end in }\\n: %q", line)
	}
	if bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("line holds %d newlines, want exactly the final one: %q", bytes.Count(line, []byte("\n")), line)
	}
	var fl frameLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fl); err != nil {
		t.Fatalf("line is not JSON: %v: %q", err, line)
	}
	switch {
	case fl.Raw != nil && fl.RawB64 != nil:
		t.Fatalf("both raw and raw_b64 in %q", line)
	case fl.Raw != nil:
		return fl, []byte(*fl.Raw)
	case fl.RawB64 != nil:
		b, err := base64.StdEncoding.DecodeString(*fl.RawB64)
		if err != nil {
			t.Fatalf("raw_b64 is not base64: %v", err)
		}
		return fl, b
	}
	t.Fatalf("neither raw nor raw_b64 in %q", line)
	return fl, nil
}

func TestEncodeFrameLineRawRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		raw     []byte
		wantB64 bool
	}{
		{"plain message", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), false},
		{"empty", []byte{}, false},
		{"unicode escapes stay escapes", []byte(`{"s":"\u00e9\u2028\ud83d\ude00"}`), false},
		{"quotes and backslashes", []byte(`"a\"b\\c" \ "`), false},
		{"html characters", []byte(`<script>&amp;</script> a>b`), false},
		{"tab and carriage return", []byte("a\tb\r"), false},
		{"control bytes", []byte{0x00, 0x01, 0x1f, 0x7f, 'x'}, false},
		{"line and paragraph separators", []byte("x\u2028y\u2029z"), false},
		{"multibyte utf-8", []byte("héllo 😀 世界"), false},
		{"invalid utf-8", []byte{'{', 0xff, 0xfe, '}', '\r'}, true},
		{"truncated utf-8 sequence", []byte("ab\xe2\x82"), true},
		{"lone surrogate encoded", []byte("\xed\xa0\x80"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Frame{Dir: DirRecv, T: 1234 * time.Nanosecond, Raw: tc.raw, Len: len(tc.raw)}
			line := EncodeFrameLine(f, tc.raw, false)
			fl, got := decodeLine(t, line)
			if !bytes.Equal(got, tc.raw) {
				t.Fatalf("round trip:\n got %q\nwant %q\nline %s", got, tc.raw, line)
			}
			if (fl.RawB64 != nil) != tc.wantB64 {
				t.Errorf("raw_b64 used = %v, want %v: %s", fl.RawB64 != nil, tc.wantB64, line)
			}
			if fl.Dir != "recv" || fl.TNs != 1234 {
				t.Errorf("dir/t_ns = %q/%d, want recv/1234", fl.Dir, fl.TNs)
			}
			if fl.Cut || fl.Len != nil || fl.NoNewline || fl.Redacted {
				t.Errorf("unexpected markers in %s", line)
			}
		})
	}
}

func TestEncodeFrameLineNoHTMLEscaping(t *testing.T) {
	raw := []byte(`<a & b>`)
	line := EncodeFrameLine(Frame{Dir: DirNoise}, raw, false)
	want := `{"dir":"noise","t_ns":0,"raw":"<a & b>"}` + "\n"
	if string(line) != want {
		t.Fatalf("got  %s\nwant %s", line, want)
	}
}

func TestEncodeFrameLineExact(t *testing.T) {
	tests := []struct {
		name     string
		f        Frame
		raw      []byte
		redacted bool
		want     string
	}{
		{"send", Frame{Dir: DirSend, T: 5}, []byte(`{"a":1}`), false,
			`{"dir":"send","t_ns":5,"raw":"{\"a\":1}"}`},
		{"cut", Frame{Dir: DirNoise, T: 7, Cut: true, Len: 100000}, []byte("xxxx"), false,
			`{"dir":"noise","t_ns":7,"raw":"xxxx","cut":true,"len":100000}`},
		{"no newline", Frame{Dir: DirNoise, T: 9, NoNewline: true}, []byte("tail"), false,
			`{"dir":"noise","t_ns":9,"raw":"tail","no_newline":true}`},
		{"redacted", Frame{Dir: DirStderr, T: 1}, []byte("key=***"), true,
			`{"dir":"stderr","t_ns":1,"raw":"key=***","redacted":true}`},
		{"all markers with b64", Frame{Dir: DirNoise, T: 2, Cut: true, Len: 3, NoNewline: true}, []byte{0xff}, true,
			`{"dir":"noise","t_ns":2,"raw_b64":"/w==","cut":true,"len":3,"no_newline":true,"redacted":true}`},
		{"len without cut is omitted", Frame{Dir: DirRecv, T: 3, Len: 99}, []byte("ab"), false,
			`{"dir":"recv","t_ns":3,"raw":"ab"}`},
		{"tab cr escaped", Frame{Dir: DirStderr}, []byte("a\tb\r"), false,
			`{"dir":"stderr","t_ns":0,"raw":"a\tb\r"}`},
		{"numbered connection leads with conn", Frame{Dir: DirSend, T: 4, Conn: 3}, []byte("x"), false,
			`{"conn":3,"dir":"send","t_ns":4,"raw":"x"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(EncodeFrameLine(tc.f, tc.raw, tc.redacted))
			if got != tc.want+"\n" {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			fl, raw := decodeLine(t, []byte(got))
			if !bytes.Equal(raw, tc.raw) {
				t.Errorf("raw decodes to %q, want %q", raw, tc.raw)
			}
			if fl.Cut != tc.f.Cut || fl.NoNewline != tc.f.NoNewline || fl.Redacted != tc.redacted {
				t.Errorf("markers cut=%v no_newline=%v redacted=%v", fl.Cut, fl.NoNewline, fl.Redacted)
			}
			if (fl.Conn != nil) != (tc.f.Conn > 0) || (fl.Conn != nil && *fl.Conn != tc.f.Conn) {
				t.Errorf("conn = %v, want %d (absent when 0)", fl.Conn, tc.f.Conn)
			}
			if tc.f.Cut && (fl.Len == nil || *fl.Len != tc.f.Len) {
				t.Errorf("len = %v, want %d", fl.Len, tc.f.Len)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for the trace's writer.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(t *testing.T) [][]byte {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	for sc.Scan() {
		out = append(out, append(append([]byte(nil), sc.Bytes()...), '\n'))
	}
	return out
}

func TestTraceStreamBeforeAndAfter(t *testing.T) {
	tr := NewTrace(time.Now())
	before := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`),
		[]byte("line one\nstill one"), // an embedded newline must not split the trace line
	}
	tr.Add(DirSend, before[0])
	tr.AddFrame(Frame{Dir: DirNoise, Raw: before[1], NoNewline: true})

	var buf lockedBuffer
	if err := tr.Stream(&buf, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got := len(buf.lines(t)); got != 2 {
		t.Fatalf("after Stream: %d lines, want the 2 earlier frames", got)
	}

	after := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`),
		{0xff, 0x00},
		[]byte("stderr text"),
	}
	tr.Add(DirRecv, after[0])
	tr.Add(DirNoise, after[1])
	tr.AddFrame(Frame{Dir: DirStderr, Raw: after[2], Cut: true, Len: 500})

	lines := buf.lines(t)
	wantRaw := append(append([][]byte(nil), before...), after...)
	wantDir := []string{"send", "noise", "recv", "noise", "stderr"}
	if len(lines) != len(wantRaw) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(wantRaw), bytes.Join(lines, nil))
	}
	var lastT int64 = -1
	for i, l := range lines {
		fl, raw := decodeLine(t, l)
		if !bytes.Equal(raw, wantRaw[i]) {
			t.Errorf("line %d raw = %q, want %q", i, raw, wantRaw[i])
		}
		if fl.Dir != wantDir[i] {
			t.Errorf("line %d dir = %q, want %q", i, fl.Dir, wantDir[i])
		}
		if fl.TNs < lastT {
			t.Errorf("line %d t_ns %d goes back from %d", i, fl.TNs, lastT)
		}
		lastT = fl.TNs
	}
	if fl, _ := decodeLine(t, lines[1]); !fl.NoNewline {
		t.Errorf("no_newline lost on a frame written before Stream")
	}
	if fl, _ := decodeLine(t, lines[4]); !fl.Cut || fl.Len == nil || *fl.Len != 500 {
		t.Errorf("cut/len lost: %s", lines[4])
	}

	frames := tr.Frames()
	if len(frames) != 5 {
		t.Fatalf("Frames: %d, want 5", len(frames))
	}
	for i, f := range frames {
		if f.Seq != i {
			t.Errorf("frame %d has Seq %d", i, f.Seq)
		}
		if !bytes.Equal(f.Raw, wantRaw[i]) {
			t.Errorf("frame %d Raw = %q", i, f.Raw)
		}
	}
	if frames[0].Len != len(wantRaw[0]) || frames[4].Len != 500 {
		t.Errorf("Len filled wrong: %d, %d", frames[0].Len, frames[4].Len)
	}
	if tr.Err() != nil {
		t.Errorf("Err = %v", tr.Err())
	}
}

func TestTraceStreamRedacts(t *testing.T) {
	tr := NewTrace(time.Now())
	tr.Add(DirSend, []byte(`{"token":"hunter22"}`))
	var buf lockedBuffer
	red := NewRedactor([]string{"hunter22"})
	if err := tr.Stream(&buf, red.Bytes); err != nil {
		t.Fatal(err)
	}
	tr.Add(DirRecv, []byte(`{"ok":true}`))
	lines := buf.lines(t)
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	fl, raw := decodeLine(t, lines[0])
	if string(raw) != `{"token":"***"}` || !fl.Redacted {
		t.Errorf("first line raw %q redacted=%v", raw, fl.Redacted)
	}
	if strings.Contains(string(lines[0]), "hunter22") {
		t.Errorf("secret leaked into the trace: %s", lines[0])
	}
	fl, raw = decodeLine(t, lines[1])
	if string(raw) != `{"ok":true}` || fl.Redacted {
		t.Errorf("second line raw %q redacted=%v", raw, fl.Redacted)
	}
	// The in-memory trace keeps the wire bytes.
	if got := string(tr.Frames()[0].Raw); got != `{"token":"hunter22"}` {
		t.Errorf("in-memory frame changed: %q", got)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errTest
}

var errTest = &testError{"disk full"}

type testError struct{ s string }

func (e *testError) Error() string { return e.s }

func TestTraceStreamWriteError(t *testing.T) {
	tr := NewTrace(time.Now())
	tr.Add(DirSend, []byte("a"))
	fw := &failWriter{}
	if err := tr.Stream(fw, nil); err != errTest {
		t.Fatalf("Stream err = %v, want %v", err, errTest)
	}
	tr.Add(DirSend, []byte("b"))
	if fw.n != 1 {
		t.Errorf("writer called %d times after the first error, want 1", fw.n)
	}
	if tr.Err() != errTest {
		t.Errorf("Err = %v", tr.Err())
	}
	if len(tr.Frames()) != 2 {
		t.Errorf("frames still recorded in memory: %d, want 2", len(tr.Frames()))
	}
}

func TestTraceConcurrentAdd(t *testing.T) {
	tr := NewTrace(time.Now())
	var buf lockedBuffer
	if err := tr.Stream(&buf, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				tr.Add(DirRecv, []byte(`{"x":1}`))
			}
		}()
	}
	wg.Wait()
	if n := len(buf.lines(t)); n != 400 {
		t.Fatalf("%d lines, want 400", n)
	}
	for i, f := range tr.Frames() {
		if f.Seq != i {
			t.Fatalf("frame %d Seq %d", i, f.Seq)
		}
	}
}

func TestEscapeInvisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{"{\n\t\"a\": \"caf\u00e9 \u2014\"\r\n}", "{\n\t\"a\": \"caf\u00e9 \u2014\"\r\n}"}, // JSON's whitespace and plain non-ASCII kept
		{"{\"a\":\"\u009b2J\"}", `{"a":"\u009b2J"}`},
		{"{\"a\":\"x\u202ey\u200bz\ufeff\u2028\u2066\"}", `{"a":"x\u202ey\u200bz\ufeff\u2028\u2066"}`},
		{"{\"a\":\"\x01\x7f\"}", `{"a":"\u0001\u007f"}`},
		{"{\"a\":\"\U000e0041\"}", `{"a":"\udb40\udc41"}`}, // a tag character, as a surrogate pair
	}
	for _, tc := range tests {
		got, changed := EscapeInvisible([]byte(tc.in))
		if string(got) != tc.want || changed != (tc.in != tc.want) {
			t.Errorf("EscapeInvisible(%q) = %q, %v; want %q", tc.in, got, changed, tc.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tc.in), &a) == nil {
			if err := json.Unmarshal(got, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("EscapeInvisible(%q): not the same JSON value: %v", tc.in, err)
			}
		}
	}
}

// TestAddFrameAt: a frame added with the time its read returned keeps
// that time, but comes a nanosecond at least after the last frame (the
// lines of one read in their order); without one it is stamped now; a
// replay's clock keeps the time it gives.
func TestAddFrameAt(t *testing.T) {
	start := time.Now().Add(-time.Hour)
	for _, tc := range []struct {
		name  string
		first time.Duration // T of a frame added before (0: none)
		at    time.Duration // since start (-1: zero time)
		want  func(T time.Duration) bool
	}{
		{"the read's time", 0, 10 * time.Millisecond, func(T time.Duration) bool { return T == 10*time.Millisecond }},
		{"after the frame before, read earlier", 20 * time.Millisecond, 10 * time.Millisecond, func(T time.Duration) bool { return T == 20*time.Millisecond+1 }},
		{"after the frame before, read with it", 20 * time.Millisecond, 20 * time.Millisecond, func(T time.Duration) bool { return T == 20*time.Millisecond+1 }},
		{"after the frame before", 20 * time.Millisecond, 30 * time.Millisecond, func(T time.Duration) bool { return T == 30*time.Millisecond }},
		{"no time: now", 0, -1, func(T time.Duration) bool { return T >= time.Hour }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTrace(start)
			if tc.first > 0 {
				tr.AddFrameAt(Frame{Dir: DirSend, Raw: []byte("a")}, start.Add(tc.first))
			}
			var at time.Time
			if tc.at >= 0 {
				at = start.Add(tc.at)
			}
			f := tr.AddFrameAt(Frame{Dir: DirRecv, Raw: []byte("b")}, at)
			if !tc.want(f.T) {
				t.Errorf("T = %v", f.T)
			}
			if fs := tr.Frames(); fs[len(fs)-1].T != f.T {
				t.Errorf("kept T %v, returned %v", fs[len(fs)-1].T, f.T)
			}
		})
	}
	tr := NewTrace(start)
	tr.SetClock(func() time.Duration { return 5 * time.Second })
	if f := tr.AddFrameAt(Frame{Dir: DirRecv, Raw: []byte("c"), T: 7 * time.Millisecond}, time.Now()); f.T != 7*time.Millisecond {
		t.Errorf("a replay's frame: T = %v, want the one it was given", f.T)
	}
}
