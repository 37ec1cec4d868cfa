package transport

import (
	"errors"
	"sync/atomic"
	"time"
)

// Message is one JSON-RPC message (or batch) the server sent.
type Message struct {
	Raw []byte // exactly as received
	Seq int    // the trace frame it came from
	T   time.Duration
	// Recovered marks a message cut out of a noise line it was glued to;
	// Raw is then a suffix of that frame, not a frame of its own.
	Recovered bool
	// Dropped: the trace did not keep the message's frame (its keep budget
	// was spent), so whoever keeps Raw keeps bytes nothing else accounts
	// for. A list stops there; an event keeps no Raw.
	Dropped bool
}

// Conn is a message stream to one server, whatever carries it.
type Conn interface {
	// Send writes one message. It never blocks longer than the transport's
	// write timeout.
	Send(raw []byte) error
	// Messages delivers what the server sends; it is closed when the
	// stream ends, after which Err says why.
	Messages() <-chan Message
	Err() error
	// Problems delivers stream faults the session must react to, such as a
	// line over the size limit that may have been a response.
	Problems() <-chan error
	Trace() *Trace
}

// Heard is a Conn that tells when the server first sent anything at all:
// a byte on stdout, or the headers of an HTTP response. It is the first
// sign that the server is up, before it has sent a whole message; the
// probe's handshake counts server/discover's wait from it, so that a slow
// start is not taken for silence.
type Heard interface {
	// HeardFrom is closed once the first byte has arrived; FirstByte then
	// says when, on the trace's clock.
	HeardFrom() <-chan struct{}
	FirstByte() time.Duration
}

// Handler takes a stream's messages, problems and end as they happen, on
// the goroutine that read them.
type Handler struct {
	Message func(Message)
	Problem func(error)
	// End is called once, after the last Message, when the stream has
	// ended; Err then says why.
	End func()
}

// Direct is a Conn that can call a Handler from its own reader instead of
// delivering through Messages and Problems: one goroutine hand-off less
// per message, which is most of a fast server's round trip. A consumer
// uses one or the other, never both.
type Direct interface {
	// Direct hands every message, problem and the end to h from now on,
	// those already queued first and in order. It reports false if it
	// was already called.
	Direct(h Handler) bool
}

// Inline is a Direct Conn whose Send may be called from its own Handler:
// a send waits on nothing the reader does (a pipe write, bounded by the
// write timeout), so a closed loop can send its next request from the
// goroutine that read the last answer, as a single-threaded client does.
type Inline interface {
	Direct
	SendsInline()
}

// Stamped is a Conn that says when each message it sends goes out:
// SendStamped stores in sent, before the first byte is written, the
// time on its trace's clock of the frame it records (its T). A round
// trip timed from there to the frame of the answer (whose T is when the
// read that brought it returned) is the wire's, without the client's
// own encoding, parsing and dispatch on either side. sent is atomic
// because the answer may be read on another goroutine before
// SendStamped returns.
type Stamped interface {
	SendStamped(raw []byte, sent *atomic.Int64) error
}

// ErrLineTooLong is the cause of a problem raised for an oversize line.
var ErrLineTooLong = errors.New("line too long")

// ErrPeerGone is the cause of a failed send to a server that has gone away.
var ErrPeerGone = errors.New("the server is gone")

// ErrTooMuch is the cause of a problem raised when a server has sent more
// than its connection's byte budget (--max-bytes).
var ErrTooMuch = errors.New("the server sent more than --max-bytes")
