package faults

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// Event is something a fault did, or what the client made of it, for the
// outcome table.
type Event struct {
	// Call is the tools/call it concerns, 1-based; 0 for none. The engine
	// numbers every tools/call sent, retries included; Drive renumbers its
	// events as its table numbers the calls, and gives stray output the
	// call it disturbed (0: before the first call).
	Call int
	What string
	T    time.Duration // on the clock of the connection's trace
	// Stray marks what the server itself wrote on stdout that is not
	// JSON-RPC (no fault's doing), and what the client made of it.
	Stray bool
}

// Shim is the engine's in-process front end: it sits between a client
// session and its transport, and is itself a transport.Conn. The engine's
// faults act on the messages; what comes out towards the client is read
// as a client of the given policy reads lines, so that a garbled reply or
// stray text ends the session, is reported, or is skipped, as that client
// would.
type Shim struct {
	inner  transport.Conn
	eng    *Engine
	policy Policy
	open   sync.Once

	msgs chan transport.Message

	mu    sync.Mutex
	err   error
	ended bool
	// ended by the client's policy (a strict client, on a bad line), not
	// because the connection closed
	policyEnded bool

	noiseMu sync.Mutex
	seen    int // trace frames already checked for noise

	pumped chan struct{} // closed when the server's messages have all been read

	lineMu  sync.Mutex
	pending line // text a fault wrote without a newline, waiting for the next frame
}

// line is what a client reads as one line, and where its bytes came from.
type line struct {
	b     []byte
	note  int  // the first event that explains a piece of it
	frame bool // it holds a frame the server sent
	extra bool // it holds bytes a fault wrote
}

func (l *line) add(p Piece, b []byte) {
	l.b = append(l.b, b...)
	if l.note == 0 {
		l.note = p.note
	}
	l.frame = l.frame || !p.Extra
	l.extra = l.extra || p.Extra
}

// NewShim wraps inner. kill must end the server at once (its process
// group); policy decides what the client does with unparseable lines;
// calls numbers the tools/calls across the restarts of a run (nil: this
// shim alone). It refuses a plan with a fault the shim cannot act.
func NewShim(inner transport.Conn, kill func(), plan Plan, policy Policy, calls *Counter) (*Shim, error) {
	s := &Shim{inner: inner, policy: policy, msgs: make(chan transport.Message, 64), pumped: make(chan struct{})}
	eng, err := NewEngine(plan, Frontend{Where: InShim, Kill: kill, Calls: calls,
		ToServer: func(p Piece) error { return inner.Send(p.Raw) },
		ToClient: s.deliver,
		Clock:    inner.Trace().Since})
	if err != nil {
		return nil, err
	}
	s.eng = eng
	go s.pump()
	return s, nil
}

func (s *Shim) Trace() *transport.Trace            { return s.inner.Trace() }
func (s *Shim) Problems() <-chan error             { return s.inner.Problems() }
func (s *Shim) Messages() <-chan transport.Message { return s.msgs }

// Err says why the stream ended, as the client would tell it.
func (s *Shim) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return s.inner.Err()
}

// Events returns what the faults did and what the client made of it.
func (s *Shim) Events() []Event { return s.eng.Events() }

// Send passes a client message through the engine. The faults of the
// opening act on the first, before it reaches the server. Stray output the
// server wrote since its last message is read first: a client reads its
// stdin as it comes, not only when a reply arrives, so a line written
// between calls is met before the next request, not after its reply.
func (s *Shim) Send(raw []byte) error {
	s.open.Do(func() { _ = s.eng.Open() })
	s.realNoise(math.MaxInt)
	if s.isEnded() {
		// The client has ended the session (a strict one, on stray
		// output): it sends nothing more.
		return fmt.Errorf("%w: %v", transport.ErrPeerGone, s.Err())
	}
	return s.eng.FromClient(raw)
}

// Finish reads the stray output the server wrote after its last message,
// once the server is stopped and its output read to the end (waiting at
// most d for that), so that a line written after the last reply is seen.
func (s *Shim) Finish(d time.Duration) {
	transport.WaitFor(s.pumped, d)
	s.realNoise(math.MaxInt)
}

// pump passes the server's messages through the engine.
func (s *Shim) pump() {
	defer func() {
		s.eng.Close()
		s.end(nil)
		close(s.pumped)
	}()
	for m := range s.inner.Messages() {
		// The lines before this message, and its own when it was cut out
		// of one: a client reads its stdin in order.
		s.realNoise(m.Seq)
		if s.isEnded() {
			continue // keep draining, so the transport never blocks
		}
		if m.Recovered {
			// Text glued to this message: only mcpprobe's own transport
			// cuts it out; a real client's parser fails on the line.
			// realNoise has told what the client made of the line.
			continue
		}
		_ = s.eng.FromServer(m)
	}
}

// maxStrayQuote bounds how much of a stray line an event quotes.
const maxStrayQuote = 80

// realNoise applies the client policy to stdout lines the server itself
// wrote that are not JSON-RPC (seen in the trace, up to frame upTo), and
// records each with the time it was written and what the client did with
// it. It runs as a message arrives, as the client sends, and at Finish; a
// message is queued only after its frame is in the trace, so the pump
// always reads a glued line here before the message cut out of it.
func (s *Shim) realNoise(upTo int) {
	s.noiseMu.Lock()
	defer s.noiseMu.Unlock()
	for _, f := range s.inner.Trace().FramesFrom(s.seen) {
		if f.Seq > upTo {
			return
		}
		s.seen = f.Seq + 1
		if f.Dir != transport.DirNoise {
			continue
		}
		what := "the server wrote a stdout line that is not JSON-RPC: " + quoteStray(f.Raw, f.Len)
		glued := transport.GluedMessage(f.Raw) >= 0
		if glued {
			what = "the server wrote text glued to a message on one stdout line: " + quoteStray(f.Raw, f.Len)
		}
		end, reported := s.policy.onBadLine()
		switch {
		case s.endedByPolicy():
			what += ": not read, the client had already ended the session"
		case end:
			what += fmt.Sprintf(": a %s client ends the session", s.policy)
		case glued:
			what += ": the message no longer parses and is lost" + reportedNote(reported)
		case reported:
			what += ": skipped (reported as a transport error)"
		default:
			what += ": skipped silently"
		}
		s.eng.eventAt(0, what, f.T, true)
		if end && !s.endedByPolicy() {
			s.end(fmt.Errorf("stdout carried text that is not JSON-RPC (%s client)", s.policy))
		}
	}
}

// quoteStray quotes the head of a stray line, escaped, with its length
// when it is cut.
func quoteStray(b []byte, n int) string {
	n = max(n, len(b))
	if len(b) > maxStrayQuote {
		b = b[:maxStrayQuote]
	}
	q := strconv.Quote(string(b))
	if n > len(b) {
		q += fmt.Sprintf("… (%d bytes)", n)
	}
	return q
}

// deliver is the engine's sink towards the client: it reads what the
// faults let through as the client's line reader would. A frame ends a
// line; text a fault wrote ends one at its newline, or waits, glued, for
// the next frame.
func (s *Shim) deliver(p Piece) error {
	s.lineMu.Lock()
	defer s.lineMu.Unlock()
	if s.isEnded() {
		return nil
	}
	if !p.Extra {
		if len(s.pending.b) == 0 && !s.pending.extra && bytes.Equal(p.Raw, p.From.Raw) {
			s.emit(p.From) // untouched: exactly what the transport gave
			return nil
		}
		s.pending.add(p, p.Raw)
		s.read(p.From)
		return nil
	}
	rest := p.Raw
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			s.pending.add(p, rest)
			return nil
		}
		s.pending.add(p, rest[:i])
		s.read(p.From)
		rest = rest[i+1:]
	}
}

// read takes the pending line as the client would: a message, or a line
// its policy ends the session on, reports, or skips.
func (s *Shim) read(from transport.Message) {
	l := s.pending
	s.pending = line{}
	if transport.IsJSONRPC(l.b) {
		m := from
		m.Raw, m.Recovered = l.b, false
		s.emit(m)
		return
	}
	if l.note == 0 {
		l.note = s.eng.event(0, "a stdout line that is not JSON-RPC")
	}
	end, reported := s.policy.onBadLine()
	switch {
	case end:
		s.eng.amend(l.note, fmt.Sprintf(": a %s client ends the session", s.policy))
		if l.extra {
			s.end(fmt.Errorf("stdout carried text that is not JSON-RPC (%s client)", s.policy))
		} else {
			s.end(fmt.Errorf("a reply did not parse: %.60q (%s client)", l.b, s.policy))
		}
	case l.frame:
		s.eng.amend(l.note, ": the reply no longer parses and is lost"+reportedNote(reported))
	default:
		s.eng.amend(l.note, reportedNote(reported))
	}
}

func reportedNote(reported bool) string {
	if reported {
		return " (reported as a transport error)"
	}
	return " (skipped silently)"
}

func (s *Shim) endedByPolicy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policyEnded
}

func (s *Shim) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

func (s *Shim) emit(m transport.Message) {
	if s.isEnded() {
		return
	}
	defer func() { _ = recover() }() // the channel may close under a late delivery
	s.msgs <- m
}

// end closes the client's stream; a strict client's session dies here.
func (s *Shim) end(err error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	if err != nil {
		s.err, s.policyEnded = err, true
	}
	s.mu.Unlock()
	close(s.msgs)
}

// Holding reports whether a fault held a reply back on this connection.
func (s *Shim) Holding() bool { return s.eng.Holding() }

// Settle waits for replies the faults are still holding back, at most
// until the last is due plus grace, so that late replies can be counted.
func (s *Shim) Settle(grace time.Duration) { s.eng.Settle(grace) }
