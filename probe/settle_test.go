package probe

import (
	"context"
	"errors"
	"testing"
	"time"
)

// ExchangeSettled: the answer to the ping sent behind a frame, plus the
// grace, settles "no answer"; an answer before that is the frame's.
func TestExchangeSettled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		id   string // "" for a frame without one
		// serve answers what the probe sent: the frame, then the ping
		serve       func(c *fakeConn, frame, ping string)
		settled     bool
		result      string // the frame's result, "" for none
		timeoutErr  bool
		lateReplyID string // an answer that comes after: a late_reply event
		short       bool   // a timeout short enough to wait out
	}{
		{"answered first", `"m-1"`, func(c *fakeConn, frame, ping string) {
			c.reply(`{"jsonrpc":"2.0","id":"m-1","result":{"ok":1}}`)
			c.reply(`{"jsonrpc":"2.0","id":` + ping + `,"result":{}}`)
		}, false, `{"ok":1}`, false, "", false},
		{"answered within the grace", `"m-1"`, func(c *fakeConn, frame, ping string) {
			c.reply(`{"jsonrpc":"2.0","id":` + ping + `,"result":{}}`)
			c.reply(`{"jsonrpc":"2.0","id":"m-1","result":{"ok":2}}`)
		}, false, `{"ok":2}`, false, "", false},
		{"never answered", `"m-1"`, func(c *fakeConn, frame, ping string) {
			c.reply(`{"jsonrpc":"2.0","id":` + ping + `,"result":{}}`)
		}, true, "", true, "", false},
		{"answered late", `"m-1"`, func(c *fakeConn, frame, ping string) {
			c.reply(`{"jsonrpc":"2.0","id":` + ping + `,"result":{}}`)
			time.Sleep(3 * SettleGrace)
			c.reply(`{"jsonrpc":"2.0","id":"m-1","result":{}}`)
		}, true, "", true, `"m-1"`, false},
		{"an error answer to the ping settles too", `"m-1"`, func(c *fakeConn, frame, ping string) {
			c.reply(`{"jsonrpc":"2.0","id":` + ping + `,"error":{"code":-32601,"message":"no ping"}}`)
		}, true, "", true, "", false},
		{"nothing answers: the timeout", `"m-1"`, func(c *fakeConn, frame, ping string) {}, false, "", true, "", true},
		{"no id, ping answered", "", func(c *fakeConn, frame, ping string) {
			c.reply(`{"jsonrpc":"2.0","id":` + ping + `,"result":{}}`)
		}, true, "", false, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				ctx := context.Background()
				frame := `{"jsonrpc":"2.0","id":` + tc.id + `,"method":"x"}`
				if tc.id == "" {
					frame = `{"jsonrpc":"2.0","method":"tools/list"`
				}
				go func() {
					f := c.next(t)
					p := c.next(t)
					if p.Get("method").String() != "ping" {
						t.Errorf("sent behind the frame: %s, want a ping", p.Raw)
					}
					tc.serve(c, f.Raw, p.Get("id").Raw)
				}()
				behind := func() (*Pending, error) { return s.BeginQuiet(ctx, "ping", nil) }
				timeout := 10 * time.Second
				if tc.short {
					timeout = 2 * SettleGrace
				}
				start := time.Now()
				r, settled, err := s.ExchangeSettled(ctx, []byte(frame), tc.id, behind, timeout)
				// On the bubble's clock a wait is exactly what decided it:
				// an answer at once, the grace after the ping's answer, or
				// the timeout.
				want := time.Duration(0)
				switch {
				case tc.settled:
					want = SettleGrace
				case tc.short:
					want = timeout
				}
				if took := time.Since(start); took != want {
					t.Errorf("returned after %v, want %v", took, want)
				}
				if settled != tc.settled {
					t.Errorf("settled %v, want %v", settled, tc.settled)
				}
				if string(r.Result) != tc.result {
					t.Errorf("result %s, want %s", r.Result, tc.result)
				}
				var te *TimeoutError
				if errors.As(err, &te) != tc.timeoutErr {
					t.Errorf("err %v, want a timeout: %v", err, tc.timeoutErr)
				}
				if tc.lateReplyID != "" {
					time.Sleep(4 * SettleGrace)
					settle(t, s, c)
					late := false
					for _, e := range s.Events() {
						late = late || e.Kind == "late_reply"
					}
					if !late {
						t.Errorf("no late_reply event: %+v", s.Events())
					}
				}
			})
		})
	}
}

// A connection that ends while the frame waits is a ClosedError, not a
// settled wait.
func TestExchangeSettledClosed(t *testing.T) {
	t.Parallel()
	inBubble(t, testExchangeSettledClosed)
}

func testExchangeSettledClosed(t *testing.T) {
	s, c := newTestSession(t)
	go func() {
		c.next(t)
		c.next(t)
		c.end(nil)
	}()
	behind := func() (*Pending, error) { return s.BeginQuiet(context.Background(), "ping", nil) }
	_, settled, err := s.ExchangeSettled(context.Background(), []byte(`{"jsonrpc":"2.0","id":"m-1"}`), `"m-1"`, behind, time.Minute)
	var ce *ClosedError
	if settled || err == nil || errors.As(err, new(*TimeoutError)) {
		t.Errorf("settled %v, err %v (%v), want the connection's end", settled, err, errors.As(err, &ce))
	}
}
