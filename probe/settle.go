package probe

import (
	"context"
	"errors"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// SettleGrace is how long, after the answer to the request sent behind a
// frame that may get none, the frame's own answer is still waited for. On
// a stdio pipe a server that reads and answers in turn has answered the
// frame before the request behind it; a server that works on several at
// once may answer out of order, and the grace bounds that.
const SettleGrace = 200 * time.Millisecond

// ExchangeSettled sends raw (a request with id, or, with id "", a frame
// no answer can be matched to) and at once the request begin sends (a
// ping, or a cheap request where the era has none). It waits for raw's
// answer until the answer to that second request, plus SettleGrace, and
// never past timeout: a frame the server will never answer costs one
// round trip and the grace, not the whole timeout.
//
// settled is true when the second request's answer came and raw's did not
// within the grace: err is then a *TimeoutError, and raw is abandoned, so
// an answer that comes later is a late_reply event. With id "", it only
// waits (settled, nil error when the second request was answered).
func (s *Session) ExchangeSettled(ctx context.Context, raw []byte, id string, begin func() (*Pending, error), timeout time.Duration) (r Response, settled bool, err error) {
	start := time.Now()
	var p *Pending
	if id != "" {
		key, ok := idKey(gjson.Parse(id))
		if !ok {
			return Response{}, false, errors.New("id " + id + " is neither a number nor a string")
		}
		pc := &pendingCall{ch: make(chan Response, 1), method: "(raw)"}
		s.mu.Lock()
		s.pending[key] = pc
		s.mu.Unlock()
		p = &Pending{s: s, pc: pc, key: key, method: "(raw)"}
	}
	if err := s.conn.Send(raw); err != nil {
		if p != nil {
			s.forget(p.key, "")
		}
		if errors.Is(err, transport.ErrPeerGone) {
			return Response{}, false, &ClosedError{Method: "(raw)", Cause: err}
		}
		return Response{}, false, err
	}
	behind, berr := begin()
	var behindCh <-chan Response
	switch {
	case berr == nil:
		behindCh = behind.Answered()
		defer behind.Drop()
	case p == nil:
		// Nothing to wait for, and nothing behind it to settle by (the
		// connection is gone, most likely): the caller's health check
		// says what happened.
		return Response{}, false, nil
	}
	var answered <-chan Response
	if p != nil {
		answered = p.pc.ch
	}
	limit := time.NewTimer(timeout)
	defer limit.Stop()
	var grace <-chan time.Time
	for {
		select {
		case resp, open := <-answered:
			if !open {
				return Response{}, false, p.pc.err
			}
			if resp.Error != nil {
				return resp, false, resp.Error
			}
			return resp, false, nil
		case _, open := <-behindCh:
			behindCh = nil
			if !open {
				// The connection failed: raw's own channel says so; with
				// no id there is nothing more to wait for.
				if p == nil {
					return Response{}, false, nil
				}
				continue
			}
			t := time.NewTimer(SettleGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			if p == nil {
				return Response{}, true, nil
			}
			p.Abandon()
			return Response{}, true, &TimeoutError{Method: "(raw)", After: time.Since(start)}
		case <-limit.C:
			if p == nil {
				return Response{}, false, nil
			}
			p.Abandon()
			return Response{}, false, &TimeoutError{Method: "(raw)", After: timeout}
		case <-ctx.Done():
			if p != nil {
				p.Abandon()
			}
			return Response{}, false, ctx.Err()
		}
	}
}
