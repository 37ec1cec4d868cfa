package faults

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// fakeConn is a transport that hands the shim the replies it is given.
type fakeConn struct {
	tr   *transport.Trace
	in   chan transport.Message
	mu   sync.Mutex
	sent []string
}

func (c *fakeConn) Send(raw []byte) error {
	c.mu.Lock()
	c.sent = append(c.sent, string(raw))
	c.mu.Unlock()
	return nil
}
func (c *fakeConn) Messages() <-chan transport.Message { return c.in }
func (c *fakeConn) Err() error                         { return nil }
func (c *fakeConn) Problems() <-chan error             { return nil }
func (c *fakeConn) Trace() *transport.Trace            { return c.tr }

// TestShimClientModel: what a client of each policy makes of the bytes
// the faults let through, read as its line reader would.
func TestShimClientModel(t *testing.T) {
	tests := []struct {
		name   string
		v      Values
		policy Policy
		got    string // the replies the client received, by id
		err    string // why its stream ended early, if it did
		note   string // the call's event
	}{
		{"no fault", Values{}, Spec, "1 2 3", "", ""},
		{"garbled, spec", Values{"garble-at": "2"}, Spec, "1 3", "",
			"reply 2 garbled: the reply no longer parses and is lost (reported as a transport error)"},
		{"garbled, lenient", Values{"garble-at": "2"}, Lenient, "1 3", "",
			"reply 2 garbled: the reply no longer parses and is lost (skipped silently)"},
		{"garbled, strict", Values{"garble-at": "2"}, Strict, "1", "a reply did not parse",
			"reply 2 garbled: a strict client ends the session"},
		{"stray line, ts", Values{"pollute": "line", "pollute-at": "2"}, TS, "1 2 3", "",
			"a stray stdout line before reply 2 (reported as a transport error)"},
		{"stray line, strict", Values{"pollute": "line", "pollute-at": "2"}, Strict, "1", "stdout carried text that is not JSON-RPC",
			"a stray stdout line before reply 2: a strict client ends the session"},
		{"glued text, spec", Values{"pollute": "partial", "pollute-at": "2"}, Spec, "1 3", "",
			"stray text without a newline glued to reply 2: the reply no longer parses and is lost (reported as a transport error)"},
		{"glued text, strict", Values{"pollute": "partial", "pollute-at": "2"}, Strict, "1", "stdout carried text that is not JSON-RPC",
			"stray text without a newline glued to reply 2: a strict client ends the session"},
		{"dropped", Values{"drop-at": "2"}, Strict, "1 3", "", "reply dropped (call 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := ParsePlan(tc.v.Get, 1)
			if err != nil {
				t.Fatal(err)
			}
			fc := &fakeConn{tr: transport.NewTrace(time.Now()), in: make(chan transport.Message, 8)}
			s, err := NewShim(fc, func() {}, plan, tc.policy, nil)
			if err != nil {
				t.Fatal(err)
			}
			for id := 1; id <= 3; id++ {
				_ = s.Send([]byte(call(id, "a")))
				fc.in <- transport.Message{Raw: []byte(reply(id)), Seq: id}
			}
			close(fc.in)
			var got []string
			for m := range s.Messages() {
				if m.Seq == 0 || string(m.Raw) != reply(m.Seq) {
					t.Errorf("delivered %q as frame %d", m.Raw, m.Seq)
				}
				got = append(got, string(rune('0'+m.Seq)))
			}
			if strings.Join(got, " ") != tc.got {
				t.Errorf("client got replies %q, want %q", strings.Join(got, " "), tc.got)
			}
			if e := s.Err(); (e == nil) != (tc.err == "") || (e != nil && !strings.Contains(e.Error(), tc.err)) {
				t.Errorf("Err() = %v, want %q", e, tc.err)
			}
			note := ""
			for _, ev := range s.Events() {
				if ev.Call == 2 {
					note = ev.What
				}
			}
			if note != tc.note {
				t.Errorf("note %q, want %q", note, tc.note)
			}
		})
	}
}

func TestShimRefuses(t *testing.T) {
	p, _ := ParsePlan(Values{"split": "true"}.Get, 1)
	fc := &fakeConn{tr: transport.NewTrace(time.Now()), in: make(chan transport.Message)}
	if _, err := NewShim(fc, func() {}, p, Spec, nil); err == nil {
		t.Error("the shim took --split, which it cannot act")
	}
	if _, err := Drive(t.Context(), nil, DriveOptions{Plan: p}); err == nil || !strings.Contains(err.Error(), "--split acts only in mcpprobe proxy") {
		t.Errorf("Drive: %v", err)
	}
}
