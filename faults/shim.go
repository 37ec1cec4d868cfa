package faults

import (
	"bytes"
	"fmt"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// Event is something a fault did, or what the client made of it, for the
// outcome table.
type Event struct {
	Call int // the tools/call it concerns, 1-based; 0 for none
	What string
	T    time.Duration
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
	seen  int // trace frames already checked for noise (pump only)

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
	s := &Shim{inner: inner, policy: policy, msgs: make(chan transport.Message, 64)}
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
// opening act on the first, before it reaches the server.
func (s *Shim) Send(raw []byte) error {
	s.open.Do(func() { _ = s.eng.Open() })
	return s.eng.FromClient(raw)
}

// pump passes the server's messages through the engine.
func (s *Shim) pump() {
	defer func() {
		s.eng.Close()
		s.end(nil)
	}()
	for m := range s.inner.Messages() {
		s.realNoise()
		if s.isEnded() {
			continue // keep draining, so the transport never blocks
		}
		if m.Recovered {
			// Text glued to this message: only mcpprobe's own transport
			// cuts it out; a real client's parser fails on the line.
			if end, reported := s.policy.onBadLine(); !end {
				s.eng.event(0, "a message glued to stray stdout text is lost"+reportedNote(reported))
				continue
			}
		}
		_ = s.eng.FromServer(m)
	}
}

// realNoise applies the client policy to stdout lines the server itself
// wrote that are not JSON-RPC (seen in the trace).
func (s *Shim) realNoise() {
	for _, f := range s.inner.Trace().FramesFrom(s.seen) {
		s.seen = f.Seq + 1
		if f.Dir != transport.DirNoise {
			continue
		}
		end, reported := s.policy.onBadLine()
		if end {
			s.eng.event(0, fmt.Sprintf("the server wrote a stdout line that is not JSON-RPC: a %s client ends the session", s.policy))
			s.end(fmt.Errorf("stdout carried text that is not JSON-RPC (%s client)", s.policy))
			return
		}
		if reported {
			s.eng.event(0, "a stdout line that is not JSON-RPC, reported as a transport error")
		}
	}
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
		s.err = err
	}
	s.mu.Unlock()
	close(s.msgs)
}

// Holding reports whether a fault held a reply back on this connection.
func (s *Shim) Holding() bool { return s.eng.Holding() }

// Settle waits for replies the faults are still holding back, at most
// until the last is due plus grace, so that late replies can be counted.
func (s *Shim) Settle(grace time.Duration) { s.eng.Settle(grace) }
