package transport

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// ReadTrace decodes a trace written by Trace.Stream (--trace FILE) back into
// frames with their recorded bytes and times. Lines longer than maxLine are
// an error, not a hang: a trace file is input like any other.
func ReadTrace(r io.Reader, maxLine int) ([]Frame, error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	sc := bufio.NewScanner(r)
	limit := maxLine + 1024 // the JSON line around the raw bytes
	sc.Buffer(make([]byte, 0, min(64<<10, limit)), limit)
	var out []Frame
	for n := 1; sc.Scan(); n++ {
		var line struct {
			Conn      int       `json:"conn"`
			Dir       Dir       `json:"dir"`
			TNs       int64     `json:"t_ns"`
			Raw       *string   `json:"raw"`
			RawB64    string    `json:"raw_b64"`
			Cut       bool      `json:"cut"`
			Len       int       `json:"len"`
			NoNewline bool      `json:"no_newline"`
			HTTP      *HTTPInfo `json:"http"`
		}
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("trace line %d: %w", n, err)
		}
		f := Frame{Seq: len(out), Dir: line.Dir, T: time.Duration(line.TNs), Cut: line.Cut, Len: line.Len, NoNewline: line.NoNewline, HTTP: line.HTTP, Conn: line.Conn}
		switch {
		case line.Raw != nil:
			f.Raw = []byte(*line.Raw)
		case line.RawB64 != "":
			b, err := base64.StdEncoding.DecodeString(line.RawB64)
			if err != nil {
				return nil, fmt.Errorf("trace line %d: raw_b64: %w", n, err)
			}
			f.Raw = b
		}
		if f.Len == 0 {
			f.Len = len(f.Raw)
		}
		out = append(out, f)
	}
	return out, sc.Err()
}

// Replay is a Conn that plays a recorded trace back: each message the
// client sends is matched against the next recorded send (by method), and
// what the server wrote after it in the recording is delivered, byte for
// byte. It lets golden tests run a command end to end with no process and
// no clock: what it puts in its own trace carries the recorded times.
type Replay struct {
	frames []Frame
	trace  *Trace
	msgs   chan Message
	probs  chan error

	mu     sync.Mutex
	next   int // index of the next frame to play
	err    error
	closed bool
	// recorded: frames are played at their recorded times (the trace's
	// clock is the recording's); at is the last one played.
	recorded bool
	at       time.Duration
}

// NewReplay starts playing frames: what the server wrote before the first
// send (a banner, stderr) is delivered at once.
func NewReplay(frames []Frame, trace *Trace) *Replay {
	return newReplay(frames, trace, false)
}

// NewTimedReplay plays frames as NewReplay does, at once, but on the
// recording's clock: every frame, sent or played, carries the time it
// had in the recording, and trace.Since is the recorded time of the
// client's next send (or of the last frame played, after the last send).
// A command that measures times (a call's progress timeline, when its
// answer came) then measures the recording's, deterministically.
func NewTimedReplay(frames []Frame, trace *Trace) *Replay {
	return newReplay(frames, trace, true)
}

func newReplay(frames []Frame, trace *Trace, recorded bool) *Replay {
	if trace == nil {
		trace = NewTrace(time.Now())
	}
	// A copy: Send may reorder the recording's consecutive sends.
	r := &Replay{frames: slices.Clone(frames), trace: trace, msgs: make(chan Message, len(frames)+1), probs: make(chan error, 1), recorded: recorded}
	if recorded {
		trace.SetClock(r.now)
	}
	r.mu.Lock()
	r.playLocked()
	r.mu.Unlock()
	return r
}

// ErrReplayDiverged is the cause when the client sends what the recording
// does not have next.
var ErrReplayDiverged = errors.New("replay diverged from the recording")

// Send records raw and plays what the server answered in the recording.
func (r *Replay) Send(raw []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrPeerGone
	}
	for r.next < len(r.frames) && r.frames[r.next].Dir != DirSend {
		r.next++ // frames the client never waited for
	}
	sent := Frame{Dir: DirSend, Raw: append([]byte(nil), raw...)}
	if r.recorded {
		sent.T = r.at
		if r.next < len(r.frames) {
			sent.T = r.frames[r.next].T
			r.at = sent.T
		}
	}
	r.trace.AddFrame(sent)
	if r.next >= len(r.frames) {
		r.failLocked(fmt.Errorf("%w: sent %s after the recording's last send", ErrReplayDiverged, methodOf(raw)))
		return r.err
	}
	r.reorderLocked(methodOf(raw))
	want := r.frames[r.next]
	if got, rec := methodOf(raw), methodOf(want.Raw); got != rec {
		r.failLocked(fmt.Errorf("%w: sent %s, the recording sent %s (frame %d)", ErrReplayDiverged, got, rec, want.Seq))
		return r.err
	}
	r.next++
	r.playLocked()
	return nil
}

// reorderLocked lets the client's answers to the server's requests and
// its own requests go out in another order than the recording's, where
// nothing the server wrote came between them: the answers are written by
// a goroutine of their own, so which of two such sends went first is the
// scheduler's, not the server's. When got is not the next recorded send,
// and a later send of the same run of sends is, and every send it would
// pass is of the other kind (answer against request), that one is moved
// up to be next. Any other difference still diverges.
func (r *Replay) reorderLocked(got string) {
	if methodOf(r.frames[r.next].Raw) == got {
		return
	}
	answer := got == "response"
	for j := r.next; j < len(r.frames) && r.frames[j].Dir == DirSend; j++ {
		m := methodOf(r.frames[j].Raw)
		if m == got {
			f := r.frames[j]
			copy(r.frames[r.next+1:j+1], r.frames[r.next:j])
			r.frames[r.next] = f
			return
		}
		if (m == "response") == answer {
			return // a send of the same kind first: the client's order differs
		}
	}
}

// playLocked delivers the recorded frames up to the next send.
func (r *Replay) playLocked() {
	for r.next < len(r.frames) && r.frames[r.next].Dir != DirSend {
		f := r.frames[r.next]
		r.next++
		play := Frame{Dir: f.Dir, Raw: f.Raw, Cut: f.Cut, Len: f.Len, NoNewline: f.NoNewline, HTTP: f.HTTP}
		if r.recorded {
			play.T, r.at = f.T, f.T
		}
		rec := r.trace.AddFrame(play)
		if f.Dir == DirRecv {
			r.msgs <- Message{Raw: f.Raw, Seq: rec.Seq, T: rec.T}
		}
	}
}

// now is the recording's clock: the recorded time of the client's next
// send, which is when the client, in the recording, acted next; after the
// last send, the time of the last frame played.
func (r *Replay) now() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := r.next; i < len(r.frames); i++ {
		if r.frames[i].Dir == DirSend {
			return max(r.frames[i].T, r.at)
		}
	}
	return r.at
}

func (r *Replay) failLocked(err error) {
	if r.closed {
		return
	}
	r.err, r.closed = err, true
	close(r.msgs)
}

// Close ends the stream as a server that exited would.
func (r *Replay) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.err = io.EOF
		close(r.msgs)
	}
}

func (r *Replay) Messages() <-chan Message { return r.msgs }
func (r *Replay) Problems() <-chan error   { return r.probs }
func (r *Replay) Trace() *Trace            { return r.trace }

func (r *Replay) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// methodOf names a message for matching: its method, or "response".
func methodOf(raw []byte) string {
	if m := gjson.GetBytes(raw, "method"); m.Exists() {
		return m.String()
	}
	return "response"
}
