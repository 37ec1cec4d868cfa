package probe

import (
	"context"
	"testing"
	"time"
)

// An answerer answers what it knows, with the server's params in hand;
// the rest keeps the default answers.
func TestAnswererHook(t *testing.T) {
	tests := []struct {
		name, request, want string
	}{
		{"answered", `{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"message":"q"}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"action":"decline","echo":"q"}}`},
		{"left to the default", `{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}`,
			`{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"mcpprobe declared no sampling capability"}}`},
		{"ping still answered", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				s.SetAnswerer(func(method string, params []byte) ([]byte, bool) {
					if method != "elicitation/create" {
						return nil, false
					}
					return []byte(`{"action":"decline","echo":"` + string(params[len(`{"message":"`):len(params)-2]) + `"}`), true
				})
				c.reply(tc.request)
				if got := c.next(t); got.Raw != tc.want {
					t.Errorf("answered %s\nwant     %s", got.Raw, tc.want)
				}
				settle(t, s, c)
				n := s.AnsweredByPolicy()["elicitation/create"]
				if want := map[bool]int{true: 1, false: 0}[tc.name == "answered"]; n != want {
					t.Errorf("AnsweredByPolicy = %d, want %d", n, want)
				}
			})
		})
	}
}

// A pending call watched in slices stays pending between them, and a
// late response after Abandon is a late_reply.
func TestPendingWithinAndAbandon(t *testing.T) { inBubble(t, testPendingWithinAndAbandon) }

func testPendingWithinAndAbandon(t *testing.T) {
	s, c := newTestSession(t)
	p, err := s.Begin(context.Background(), "tools/call", []byte(`{"name":"slow"}`))
	if err != nil {
		t.Fatal(err)
	}
	if sent := c.next(t); sent.Get("id").Int() != p.ID {
		t.Fatalf("sent id %s, Pending.ID %d", sent.Get("id").Raw, p.ID)
	}
	start := time.Now()
	if _, ok, err := p.Within(context.Background(), 20*time.Millisecond); ok || err != nil {
		t.Fatalf("Within before a reply: ok %v err %v", ok, err)
	}
	if took := time.Since(start); took != 20*time.Millisecond {
		t.Errorf("Within before a reply returned after %v, want its slice, 20ms", took)
	}
	c.reply(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	r, ok, err := p.Within(context.Background(), 2*time.Second)
	if !ok || err != nil || string(r.Result) != `{"content":[]}` {
		t.Fatalf("Within after a reply: %v %v %s", ok, err, r.Result)
	}

	p2, _ := s.Begin(context.Background(), "tools/call", nil)
	c.next(t)
	p2.Abandon()
	c.reply(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	settle(t, s, c)
	ev := s.Events()
	if len(ev) != 1 || ev[0].Kind != "late_reply" {
		t.Errorf("events after Abandon: %+v", ev)
	}
}
