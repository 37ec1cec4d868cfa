package faults

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Event is something the shim did, for the outcome table.
type Event struct {
	Call int // the tools/call it concerns, 1-based; 0 for none
	What string
	T    time.Duration
}

// Shim sits between a client session and its transport and injects the
// plan's faults. It is itself a transport.Conn.
type Shim struct {
	inner  transport.Conn
	kill   func()
	plan   Plan
	policy Policy
	rng    *rand.Rand

	msgs chan transport.Message
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	calls   *int // shared by the shims of one run, across restarts
	started bool
	marks   map[string]mark // reply id → what to do with it
	events  []Event
	err     error
	ended   bool
	seen    int // trace frames already checked for noise (pump only)
}

type mark struct {
	call               int
	slow, drop, garble bool
	pollute            bool
}

// NewShim wraps inner. kill must end the server at once (its process
// group); policy decides what the client does with unparseable lines.
func NewShim(inner transport.Conn, kill func(), plan Plan, policy Policy) *Shim {
	return NewShimCounting(inner, kill, plan, policy, new(int))
}

// NewShimCounting is NewShim with a call counter shared with earlier
// shims, so that "call 6" means the client's sixth call across restarts.
func NewShimCounting(inner transport.Conn, kill func(), plan Plan, policy Policy, calls *int) *Shim {
	s := &Shim{inner: inner, kill: kill, plan: plan, policy: policy, calls: calls,
		rng:  rand.New(rand.NewPCG(plan.Seed, plan.Seed^0x9e3779b97f4a7c15)),
		msgs: make(chan transport.Message, 64), done: make(chan struct{}), marks: map[string]mark{}}
	go s.pump()
	return s
}

func (s *Shim) Trace() *transport.Trace { return s.inner.Trace() }
func (s *Shim) Problems() <-chan error  { return s.inner.Problems() }
func (s *Shim) Messages() <-chan transport.Message {
	return s.msgs
}

// Err says why the stream ended, as the client would tell it.
func (s *Shim) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return s.inner.Err()
}

// Events returns what the shim did.
func (s *Shim) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

func (s *Shim) event(call int, format string, args ...any) {
	s.mu.Lock()
	s.events = append(s.events, Event{Call: call, What: fmt.Sprintf(format, args...), T: s.inner.Trace().Since()})
	s.mu.Unlock()
}

// Send forwards a message, deciding the faults of a tools/call on its way.
func (s *Shim) Send(raw []byte) error {
	v := gjson.ParseBytes(raw)
	s.mu.Lock()
	first := !s.started
	s.started = true
	s.mu.Unlock()
	if first && s.plan.ExitAtStartup {
		s.event(0, "server killed at startup, before its handshake")
		s.kill()
	}
	if v.Get("method").String() != "tools/call" || !v.Get("id").Exists() {
		return s.inner.Send(raw)
	}
	s.mu.Lock()
	*s.calls++
	n := *s.calls
	s.mu.Unlock()
	tool := v.Get("params.name").String()
	m := mark{call: n}
	if s.plan.Slow != nil && s.plan.Slow.Match(n, tool, s.rng) {
		m.slow = true
	}
	if s.plan.Drop != nil && s.plan.Drop.Match(n, tool, s.rng) {
		m.drop = true
	}
	if s.plan.Garble != nil && s.plan.Garble.Match(n, tool, s.rng) {
		m.garble = true
	}
	if s.plan.Pollute != nil && s.plan.Pollute.Match(n, tool, s.rng) {
		m.pollute = true
	}
	crash := s.crash(n, tool)
	// A reply that races out before the kill lands is discarded: the
	// server died handling this call, and a client must see that.
	m.drop = m.drop || crash
	if m.slow || m.drop || m.garble || m.pollute {
		s.mu.Lock()
		s.marks[v.Get("id").Raw] = m
		s.mu.Unlock()
	}
	err := s.inner.Send(raw)
	if crash {
		s.event(n, "server process group killed while handling call %d (%s)", n, tool)
		s.kill()
	}
	return err
}

// pump passes the server's messages on, applying the marks.
func (s *Shim) pump() {
	defer func() {
		close(s.done)
		s.wg.Wait()
		s.end(nil)
	}()
	for m := range s.inner.Messages() {
		s.realNoise()
		s.mu.Lock()
		ended := s.ended
		s.mu.Unlock()
		if ended {
			continue // keep draining, so the transport never blocks
		}
		if m.Recovered {
			// Text glued to this message: only mcpprobe's own transport
			// cuts it out; a real client's parser fails on the line.
			if end, reported := s.policy.onBadLine(); !end {
				s.event(0, "a message glued to stray stdout text is lost%s", reportedNote(reported))
				continue
			}
		}
		id := gjson.GetBytes(m.Raw, "id")
		isReply := id.Exists() && !gjson.GetBytes(m.Raw, "method").Exists()
		s.mu.Lock()
		mk, marked := s.marks[id.Raw]
		if marked && isReply {
			delete(s.marks, id.Raw)
		}
		s.mu.Unlock()
		if !marked || !isReply {
			s.emit(m)
			continue
		}
		s.apply(m, mk)
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
			s.event(0, "the server wrote a stdout line that is not JSON-RPC: a %s client ends the session", s.policy)
			s.end(fmt.Errorf("stdout carried text that is not JSON-RPC (%s client)", s.policy))
			return
		}
		if reported {
			s.event(0, "a stdout line that is not JSON-RPC, reported as a transport error")
		}
	}
}

// apply carries out a reply's faults; it reports whether the client's
// session ended.
func (s *Shim) apply(m transport.Message, mk mark) (ended bool) {
	if mk.pollute {
		endSession, reported := s.policy.onBadLine()
		kind := s.plan.PolluteKind
		switch {
		case endSession:
			s.event(mk.call, "stray stdout text (%s) before reply %d: a %s client ends the session", kind, mk.call, s.policy)
			s.end(fmt.Errorf("stdout carried text that is not JSON-RPC (%s client)", s.policy))
			return true
		case kind == "partial":
			s.event(mk.call, "stray text without a newline glued to reply %d: the reply no longer parses and is lost%s", mk.call, reportedNote(reported))
			return false
		default:
			s.event(mk.call, "a stray stdout line before reply %d%s", mk.call, reportedNote(reported))
		}
	}
	if mk.garble {
		endSession, reported := s.policy.onBadLine()
		g := garble(m.Raw)
		if endSession {
			s.event(mk.call, "reply %d garbled: a %s client ends the session on it", mk.call, s.policy)
			s.end(fmt.Errorf("a reply did not parse: %.60q (%s client)", g, s.policy))
			return true
		}
		s.event(mk.call, "reply %d garbled and lost%s", mk.call, reportedNote(reported))
		return false
	}
	if mk.drop {
		s.event(mk.call, "%s (call %d)", dropNote(), mk.call)
		return false
	}
	if mk.slow {
		s.event(mk.call, "reply %d held %v", mk.call, s.plan.Delay)
		s.deliverLate(m, s.plan.Delay)
		return false
	}
	s.emit(m)
	return false
}

func reportedNote(reported bool) string {
	if reported {
		return " (reported as a transport error)"
	}
	return " (skipped silently)"
}

func (s *Shim) emit(m transport.Message) {
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if ended {
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

// Settle waits, at most d, for replies the shim is still holding back, so
// that late replies can be counted.
func (s *Shim) Settle(d time.Duration) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	transport.WaitFor(done, d)
}
