package faults

import (
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// slow: the reply is held for Delay, then delivered: a client with a
// shorter timeout gives up and must drop the late reply.
func (s *Shim) deliverLate(m transport.Message, d time.Duration) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			s.emit(m)
		case <-s.done:
		}
	}()
}
