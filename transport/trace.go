// Package transport moves MCP frames between the probe and a server and
// records every byte of them, in both directions, as it happens.
package transport

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"
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
}

// NewTrace starts a trace whose clock starts at start.
func NewTrace(start time.Time) *Trace { return &Trace{start: start} }

// Start is the instant t_ns counts from.
func (t *Trace) Start() time.Time { return t.start }

// Since is the monotonic time elapsed since the trace started.
func (t *Trace) Since() time.Duration { return time.Since(t.start) }

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

// Add records a frame and returns it.
func (t *Trace) Add(dir Dir, raw []byte) Frame {
	return t.AddFrame(Frame{Dir: dir, Raw: raw, Len: len(raw)})
}

// AddFrame records f, filling in its sequence number and time.
func (t *Trace) AddFrame(f Frame) Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	f.T = time.Since(t.start)
	f.Seq = len(t.frames)
	f.Conn = t.conn
	if f.Len == 0 {
		f.Len = len(f.Raw)
	}
	t.frames = append(t.frames, f)
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
	raw, redacted := f.Raw, false
	if t.redact != nil {
		raw, redacted = t.redact(raw)
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
	_ = enc.Encode(v)         // strings and HTTPInfo always encode
	return sb.b[:len(sb.b)-1] // drop the encoder's newline
}

type jsonStringBuf struct{ b []byte }

func (j *jsonStringBuf) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

// FramesFrom returns the frames from sequence number seq on.
func (t *Trace) FramesFrom(seq int) []Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq >= len(t.frames) {
		return nil
	}
	return append([]Frame(nil), t.frames[seq:]...)
}
