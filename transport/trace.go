// Package transport moves MCP frames between the probe and a server and
// records every byte of them, in both directions, as it happens.
package transport

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Dir says where a frame came from.
type Dir string

const (
	DirSend   Dir = "send"   // written by the probe to the server
	DirRecv   Dir = "recv"   // a JSON-RPC message written by the server
	DirNoise  Dir = "noise"  // anything else the server wrote on its message stream
	DirStderr Dir = "stderr" // one line of the server's stderr
	// DirHTTP is an HTTP exchange that carried no message: a 202, an
	// opened or refused GET stream, a DELETE.
	DirHTTP Dir = "http"
)

// Frame is one unit of traffic. Raw holds the exact bytes, without the
// newline that delimited them on a line-framed stream.
type Frame struct {
	Seq int           // position in the trace, from 0
	Dir Dir           //
	T   time.Duration // monotonic time since the trace started
	Raw []byte
	// Cut is set when the line was longer than the framer's limit: Raw then
	// holds only its head and Len the full length.
	Cut bool
	Len int
	// NoNewline marks a final stdout line that ended at EOF without '\n'.
	NoNewline bool
	// HTTP says how the frame travelled over HTTP; nil over stdio.
	HTTP *HTTPInfo
	// Conn numbers the connection the frame belongs to when one trace file
	// holds several (a Recorder's); 0 in a trace of one connection.
	Conn int
	// Redacted: the transport itself changed Raw before recording it (a
	// legacy session id cut short), so it is no longer the wire.
	Redacted bool
	// Dropped: the trace did not keep this frame in memory (its keep
	// budget was spent); it was still written to a stream, if any.
	Dropped bool
}

// HTTPInfo is what matters of the HTTP exchange that carried a frame.
type HTTPInfo struct {
	Method      string `json:"method,omitempty"` // on frames we sent, and on "http" frames
	URL         string `json:"url,omitempty"`
	Status      int    `json:"status,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	// SessionID is the Mcp-Session-Id, cut to a short prefix: it is a
	// bearer credential for the session.
	SessionID string `json:"session_id,omitempty"`
	EventID   string `json:"event_id,omitempty"` // the SSE event's id
	Event     string `json:"event,omitempty"`    // the SSE event's name
}

// Trace is the ordered record of every frame of one probe run. It is safe
// for concurrent use; when a writer is attached every frame is written as
// one JSON line the moment it is added, so a crash loses nothing.
type Trace struct {
	start  time.Time
	mu     sync.Mutex
	frames []Frame
	w      io.Writer
	werr   error
	redact func([]byte) ([]byte, bool)
	conn   int // stamped on every frame; see Recorder

	// seq numbers every frame added, kept or not; last is the T of the
	// last frame added, which no later frame's T goes below.
	seq  int
	last time.Duration
	// forget: frames are written to the stream and never held (the
	// proxy, which may relay gigabytes).
	forget bool
	// keep bounds the bytes of the server's frames held in memory (0: no
	// bound); kept is what is held, dropped counts what was not.
	keep, kept   int64
	dropped      int
	droppedBytes int64

	// clock, when set, is a recording's clock that a replay plays on:
	// frames keep the time they are given, and Since is clock().
	clock func() time.Duration
}

// NewTrace starts a trace whose clock starts at start.
func NewTrace(start time.Time) *Trace { return &Trace{start: start} }

// Start is the instant t_ns counts from.
func (t *Trace) Start() time.Time { return t.start }

// At is the trace time of the instant at: what AddFrameAt would stamp a
// first frame with, or, on a replay's clock, now.
func (t *Trace) At(at time.Time) time.Duration {
	t.mu.Lock()
	c := t.clock
	t.mu.Unlock()
	if c != nil {
		return c() // called unlocked: a replay's clock takes its own lock
	}
	return at.Sub(t.start)
}

// Since is the monotonic time elapsed since the trace started.
func (t *Trace) Since() time.Duration { return t.At(time.Now()) }

// SetClock makes now the trace's clock: from then on AddFrame keeps the
// time each frame carries (a recorded one), and Since returns now(). A
// replay that plays a recording at its recorded times sets it, so that
// what is measured of the replay is what was measured of the recording.
func (t *Trace) SetClock(now func() time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clock = now
}

// Stream writes every frame, past and future, to w as JSON lines.
// redact, if not nil, may hide secrets in what is written; a frame it
// changed is marked "redacted":true so nobody mistakes it for the wire.
func (t *Trace) Stream(w io.Writer, redact func([]byte) ([]byte, bool)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w, t.redact = w, redact
	for _, f := range t.frames {
		t.writeLocked(f)
	}
	return t.werr
}

// Forget makes the trace hold nothing: every frame is written to the
// stream (if any) as it comes and then let go. Frames returns nothing
// after it. For a relay that must not grow with what it passes on.
func (t *Trace) Forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.forget = true
	t.frames = nil
}

// Keep bounds the bytes of frames the server sent (every direction but
// send) that the trace holds in memory, n > 0. Past it, frames are still
// numbered and streamed, but not held: Frames lacks them and AddFrame
// returns them marked Dropped. What the server controls must not decide
// how much memory the probe uses.
func (t *Trace) Keep(n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keep = n
}

// Dropped says how many frames, and how many bytes of them, were not held
// because the keep budget was spent.
func (t *Trace) Dropped() (frames int, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped, t.droppedBytes
}

// Add records a frame and returns it.
func (t *Trace) Add(dir Dir, raw []byte) Frame {
	return t.AddFrame(Frame{Dir: dir, Raw: raw, Len: len(raw)})
}

// AddFrame records f, filling in its sequence number and time.
func (t *Trace) AddFrame(f Frame) Frame {
	return t.AddFrameAt(f, time.Time{})
}

// AddFrameAt records f as AddFrame does, with the time at, when it is
// set, in place of now: when the read that brought f returned, which
// was before f was framed, classified and added. T rises with Seq, a
// nanosecond at least from one frame to the next: the lines of one read
// come one after another, and a frame added meanwhile by another
// goroutine (stderr, an answer) moves at past its own T. So whoever
// orders frames by time orders them as they came.
func (t *Trace) AddFrameAt(f Frame, at time.Time) Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.clock == nil {
		if at.IsZero() {
			at = time.Now()
		}
		f.T = at.Sub(t.start)
		if t.seq > 0 {
			f.T = max(f.T, t.last+1)
		}
	}
	t.last = f.T
	f.Seq = t.seq
	t.seq++
	f.Conn = t.conn
	if f.Len == 0 {
		f.Len = len(f.Raw)
	}
	switch {
	case t.forget:
	case t.keep > 0 && f.Dir != DirSend && t.kept+int64(len(f.Raw)) > t.keep:
		f.Dropped = true
		t.dropped++
		t.droppedBytes += int64(len(f.Raw))
	default:
		if f.Dir != DirSend {
			t.kept += int64(len(f.Raw))
		}
		t.frames = append(t.frames, f)
	}
	if t.w != nil {
		t.writeLocked(f)
	}
	return f
}

// Frames returns a copy of the frames recorded so far.
func (t *Trace) Frames() []Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Frame(nil), t.frames...)
}

// Tail returns a copy of the last n frames held.
func (t *Trace) Tail(n int) []Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.frames) > n {
		return append([]Frame(nil), t.frames[len(t.frames)-n:]...)
	}
	return append([]Frame(nil), t.frames...)
}

// Err reports the first error writing the trace stream.
func (t *Trace) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.werr
}

func (t *Trace) writeLocked(f Frame) {
	if t.werr != nil {
		return
	}
	raw, redacted := f.Raw, f.Redacted
	if t.redact != nil {
		var r bool
		raw, r = t.redact(raw)
		redacted = redacted || r
		if f.HTTP != nil {
			// The URL (its query, its password) and whatever the server
			// put in headers and event ids are output as much as raw is.
			h := *f.HTTP
			for _, p := range []*string{&h.Method, &h.URL, &h.ContentType, &h.SessionID, &h.EventID, &h.Event} {
				if b, changed := t.redact([]byte(*p)); changed {
					*p, redacted = string(b), true
				}
			}
			f.HTTP = &h
		}
	}
	_, t.werr = t.w.Write(EncodeFrameLine(f, raw, redacted))
}

// EncodeFrameLine renders one trace line. The raw text is carried in a JSON
// string, which decodes back to exactly the bytes received; bytes that are
// not valid UTF-8 cannot survive a JSON string and go in raw_b64 instead.
//
// A frame of a numbered connection (Conn > 0) leads with "conn", so the
// connections of one file can be told apart; a trace of one connection
// has no such key.
func EncodeFrameLine(f Frame, raw []byte, redacted bool) []byte {
	b := make([]byte, 0, len(raw)+64)
	b = append(b, '{')
	if f.Conn > 0 {
		b = append(b, `"conn":`...)
		b = strconv.AppendInt(b, int64(f.Conn), 10)
		b = append(b, ',')
	}
	b = append(b, `"dir":"`...)
	b = append(b, f.Dir...)
	b = append(b, `","t_ns":`...)
	b = strconv.AppendInt(b, int64(f.T), 10)
	if utf8.Valid(raw) {
		b = append(b, `,"raw":`...)
		b = appendJSONString(b, raw)
	} else {
		b = append(b, `,"raw_b64":"`...)
		b = base64.StdEncoding.AppendEncode(b, raw)
		b = append(b, '"')
	}
	if f.Cut {
		b = append(b, `,"cut":true,"len":`...)
		b = strconv.AppendInt(b, int64(f.Len), 10)
	}
	if f.NoNewline {
		b = append(b, `,"no_newline":true`...)
	}
	if f.HTTP != nil {
		b = append(b, `,"http":`...)
		b = append(b, marshalNoHTML(f.HTTP)...)
	}
	if redacted {
		b = append(b, `,"redacted":true`...)
	}
	return append(b, "}\n"...)
}

func appendJSONString(b, s []byte) []byte {
	return append(b, marshalNoHTML(string(s))...)
}

func marshalNoHTML(v any) []byte {
	var sb jsonStringBuf
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and HTTPInfo always encode
	// The raw string decodes back to the exact bytes all the same.
	b, _ := EscapeInvisible(sb.b[:len(sb.b)-1]) // the encoder's newline dropped
	return b
}

type jsonStringBuf struct{ b []byte }

func (j *jsonStringBuf) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

// FramesFrom returns the frames held from sequence number seq on.
func (t *Trace) FramesFrom(seq int) []Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := sort.Search(len(t.frames), func(i int) bool { return t.frames[i].Seq >= seq })
	if i >= len(t.frames) {
		return nil
	}
	return append([]Frame(nil), t.frames[i:]...)
}

// EscapeInvisible rewrites, in JSON text b, every character a terminal
// may act on or that hides or reorders what a reader sees as its \uXXXX
// escape: C0 controls but the whitespace JSON allows between tokens, DEL,
// C1 controls (U+0080–U+009F, CSI among them), format characters (bidi
// embeddings, overrides and isolates, zero-width characters, the BOM) and
// the line and paragraph separators. In valid JSON such characters can
// only stand inside strings, where the escape is the same value: a parser
// reads back exactly the same document. It reports whether anything was
// rewritten.
func EscapeInvisible(b []byte) ([]byte, bool) {
	i := 0
	for ; i < len(b); i++ {
		if c := b[i]; c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			break
		}
	}
	if i == len(b) {
		return b, false
	}
	var out []byte
	at := 0
	for i < len(b) {
		c := b[i]
		if c < 0x80 {
			if c == 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
				out = append(out, b[at:i]...)
				out = appendEscape(out, rune(c))
				at = i + 1
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if invisible(r) {
			out = append(out, b[at:i]...)
			out = appendEscape(out, r)
			at = i + n
		}
		i += n
	}
	if out == nil {
		return b, false
	}
	return append(out, b[at:]...), true
}

// invisible: the characters reports/terminal.Escape shows as \uXXXX in text.
func invisible(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

func appendEscape(b []byte, r rune) []byte {
	const digits = "0123456789abcdef"
	units := []rune{r}
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		units = []rune{hi, lo}
	}
	for _, u := range units {
		b = append(b, '\\', 'u', digits[u>>12&15], digits[u>>8&15], digits[u>>4&15], digits[u&15])
	}
	return b
}
