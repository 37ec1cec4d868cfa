package probe

import (
	"context"
	"sync"
	"time"
)

// CanChain reports whether Chain runs its requests from the reader: the
// conn dispatches on its own reader goroutine and may be sent to from
// there (a stdio pipe). Elsewhere a caller loops on Call.
func (s *Session) CanChain() bool { return s.inline }

// Chain makes n requests of method, one at a time, each sent from the
// goroutine that learnt the last one's outcome (for a stdio server, its
// stdout reader): a round trip is then one read and one write on one
// thread, as a single-threaded client's is. A caller looping on Call
// instead waits on a channel the reader sends to, and that hand-off,
// waking a second thread, measured up to 8× a raw client's round trip
// on an idle 2-core machine (issue 29).
//
// Each request is bounded by timeout (more than zero), as Call's is.
// before, if set, is called just before each request goes out. each gets
// every request's outcome (the response, or an *RPCError for an error
// answer, a TimeoutError, a ClosedError, or a send's failure) with its
// round trip, and says whether to go on. An answer over a conn that
// stamps its sends (transport.Stamped: stdio) is timed on the wire, from
// its request's frame, stamped just before the write, to its own,
// stamped when the read that brought it returned: the client's own
// encoding, parsing and dispatch are outside it, as they are outside a
// raw client's write and read. Any other outcome is timed from just
// before its request was begun to the moment it was known. Neither
// before nor each may call the session. Chain returns when all n have an
// outcome, each says stop, or ctx ends (the request in flight is
// abandoned: its answer, if it comes, is a late_reply).
func (s *Session) Chain(ctx context.Context, method string, params []byte, timeout time.Duration, n int, before func(), each func(d time.Duration, r Response, err error) bool) error {
	c := &chain{s: s, ctx: ctx, method: method, params: params, timeout: timeout, left: n, before: before, each: each, done: make(chan struct{})}
	c.mu.Lock()
	c.next()
	c.mu.Unlock()
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.over {
			// Under c.mu no outcome is being handled: once stopped, none
			// will be, and each is not called after Chain returns.
			c.over = true
			s.forget(c.key, method)
		}
		return ctx.Err()
	}
}

type chain struct {
	s       *Session
	ctx     context.Context
	method  string
	params  []byte
	timeout time.Duration
	before  func()
	each    func(time.Duration, Response, error) bool
	done    chan struct{}

	mu   sync.Mutex
	left int
	over bool // done is closed, or Chain has returned
	t0   time.Time
	key  idK // the request in flight
}

// next sends the next request, under c.mu; a send that fails is an
// outcome of its own, and the next is tried, until none is left.
func (c *chain) next() {
	for c.left > 0 && c.ctx.Err() == nil {
		c.left--
		if c.before != nil {
			c.before()
		}
		c.t0 = time.Now()
		key, err := c.s.beginThen(c.ctx, c.method, c.params, c.timeout, c.then)
		if err == nil {
			c.key = key
			return
		}
		if !c.each(time.Since(c.t0), Response{}, err) {
			break
		}
	}
	c.over = true
	close(c.done)
}

// then is every request's outcome, on whichever goroutine learnt it.
func (c *chain) then(r Response, err error) {
	// An answer is timed on the wire where the conn stamps its sends:
	// from the request's frame, just before its write, to the answer's,
	// when the read that brought it returned. Else (a timeout, a closed
	// stream), from before its begin: t0 was set there, which the
	// outcome's path through s.mu follows, and it is read before waiting
	// for c.mu, so that the lock is not counted.
	d := time.Since(c.t0)
	if r.Sent > 0 && r.T >= r.Sent {
		d = r.T - r.Sent
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return
	}
	if !c.each(d, r, err) {
		c.left = 0
	}
	c.next()
}
