package transport

import (
	"io"
	"sort"
	"sync"
	"time"
)

// Recorder streams the traces of several connections into one writer, as
// --trace FILE does for a command that starts more than one server (a
// startup series, a second target, a restart after a crash). Each
// connection keeps a Trace of its own, because what a session finds is
// read from its own frames, and a shared trace would mix two sessions'
// frames and clocks. All of them are written to the one writer as their
// frames happen, each line carrying its connection's number ("conn":N).
type Recorder struct {
	mu     sync.Mutex
	w      io.Writer
	redact func([]byte) ([]byte, bool)
	n      int
	err    error
}

// NewRecorder streams to w; redact, if not nil, hides secrets in every
// frame written (see Trace.Stream).
func NewRecorder(w io.Writer, redact func([]byte) ([]byte, bool)) *Recorder {
	return &Recorder{w: w, redact: redact}
}

// Trace starts the next connection's trace, its clock starting at start.
// Connections are numbered from 1 in the order of the calls.
func (r *Recorder) Trace(start time.Time) *Trace {
	r.mu.Lock()
	r.n++
	n := r.n
	r.mu.Unlock()
	t := NewTrace(start)
	t.conn = n
	_ = t.Stream(recorderWriter{r}, r.redact)
	return t
}

// Conns is how many connections have been started.
func (r *Recorder) Conns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Err is the first error writing to w; every trace stops writing after it.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// recorderWriter serialises the traces' lines: each Write is one whole
// line (Trace writes a frame in one call), so lines never interleave.
type recorderWriter struct{ r *Recorder }

func (w recorderWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	if w.r.err != nil {
		return 0, w.r.err
	}
	n, err := w.r.w.Write(p)
	if err != nil {
		w.r.err = err
	}
	return n, err
}

// SplitConns parts frames read from a Recorder's file by connection, in
// the order of their numbers. Frames without a number (a trace of one
// connection) are one connection of their own, first.
func SplitConns(frames []Frame) [][]Frame {
	by := map[int][]Frame{}
	for _, f := range frames {
		by[f.Conn] = append(by[f.Conn], f)
	}
	nums := make([]int, 0, len(by))
	for n := range by {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	out := make([][]Frame, 0, len(nums))
	for _, n := range nums {
		out = append(out, by[n])
	}
	return out
}
