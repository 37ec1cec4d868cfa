package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// inBubble runs f in a synctest bubble: the session's timers run on the
// bubble's clock, which moves only when every goroutine waits, so a
// timeout fires exactly when it is due and nothing else could happen, on
// any machine at any load. The shared helpers' guards (next, settle,
// wait, run) are on that clock too, so they need no scaling for load:
// every test of the package that uses them runs in a bubble.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
}

// fakeConn is a transport.Conn whose other end is the test: what the probe
// sends arrives on sent, and reply delivers raw bytes as the server's.
type fakeConn struct {
	trace    *transport.Trace
	msgs     chan transport.Message
	problems chan error
	sent     chan []byte

	mu    sync.Mutex
	log   [][]byte // everything Send got, in order
	ended bool
	err   error
}

func newFakeConn() *fakeConn {
	return &fakeConn{
		trace:    transport.NewTrace(time.Now()),
		msgs:     make(chan transport.Message, 64),
		problems: make(chan error, 4),
		sent:     make(chan []byte, 4096),
	}
}

func (c *fakeConn) Send(raw []byte) error {
	cp := append([]byte(nil), raw...)
	c.trace.Add(transport.DirSend, cp)
	c.mu.Lock()
	c.log = append(c.log, cp)
	c.mu.Unlock()
	select {
	case c.sent <- cp:
		return nil
	default:
		return errors.New("fake conn: send buffer full")
	}
}

func (c *fakeConn) Messages() <-chan transport.Message { return c.msgs }
func (c *fakeConn) Problems() <-chan error             { return c.problems }
func (c *fakeConn) Trace() *transport.Trace            { return c.trace }

func (c *fakeConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// reply delivers raw, byte for byte, as a message from the server.
func (c *fakeConn) reply(raw string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	f := c.trace.Add(transport.DirRecv, []byte(raw))
	c.msgs <- transport.Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped}
}

// end closes the message stream; err is what Err reports after.
func (c *fakeConn) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.ended, c.err = true, err
	close(c.msgs)
}

func (c *fakeConn) sentLog() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.log...)
}

// next waits for the next message the probe sends.
func (c *fakeConn) next(t *testing.T) gjson.Result {
	t.Helper()
	select {
	case raw := <-c.sent:
		return gjson.ParseBytes(raw)
	case <-time.After(2 * time.Second):
		t.Fatalf("the probe sent nothing")
		return gjson.Result{}
	}
}

// nothingSent checks the probe sends nothing for a while.
func (c *fakeConn) nothingSent(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case raw := <-c.sent:
		t.Fatalf("unexpected message sent: %s", raw)
	case <-time.After(d):
	}
}

func newTestSession(t *testing.T) (*Session, *fakeConn) {
	t.Helper()
	c := newFakeConn()
	s := NewSession(c)
	t.Cleanup(func() {
		c.end(nil)
		<-s.Done()
	})
	return s, c
}

// settle ends the stream and waits until the session has read everything
// sent before, so its events are complete.
func settle(t *testing.T, s *Session, c *fakeConn) {
	t.Helper()
	c.end(nil)
	select {
	case <-s.Done():
	case <-time.After(2 * time.Second):
		t.Fatalf("session did not finish")
	}
}

type callResult struct {
	r   Response
	err error
}

func goCall(s *Session, method string, params []byte, timeout time.Duration) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		r, err := s.Call(context.Background(), method, params, timeout)
		ch <- callResult{r, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(3 * time.Second):
		t.Fatalf("Call did not return")
		return callResult{}
	}
}

func TestCallWireFormat(t *testing.T) {
	tests := []struct {
		method string
		params []byte
		want   string
	}{
		{"tools/list", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"tools/list", []byte(`{"cursor":"c 2"}`), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c 2"}}`},
		{`odd"name`, []byte(`{ }`), `{"jsonrpc":"2.0","id":1,"method":"odd\"name","params":{ }}`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				ch := goCall(s, tc.method, tc.params, time.Second)
				got := c.next(t)
				if got.Raw != tc.want {
					t.Errorf("sent %s\nwant %s", got.Raw, tc.want)
				}
				c.reply(`{"jsonrpc":"2.0","id":1,"result":{}}`)
				if r := wait(t, ch); r.err != nil {
					t.Errorf("Call: %v", r.err)
				}
			})
		})
	}
}

func TestCallIDsIncrease(t *testing.T) { inBubble(t, testCallIDsIncrease) }

func testCallIDsIncrease(t *testing.T) {
	s, c := newTestSession(t)
	for want := int64(1); want <= 3; want++ {
		ch := goCall(s, "ping", nil, time.Second)
		req := c.next(t)
		if got := req.Get("id").Int(); got != want {
			t.Fatalf("id = %d, want %d", got, want)
		}
		c.reply(`{"jsonrpc":"2.0","id":` + req.Get("id").Raw + `,"result":{}}`)
		if r := wait(t, ch); r.err != nil || string(r.r.Result) != `{}` {
			t.Fatalf("Call: %q, %v", r.r.Result, r.err)
		}
	}
}

func TestCallOutOfOrder(t *testing.T) { inBubble(t, testCallOutOfOrder) }

func testCallOutOfOrder(t *testing.T) {
	s, c := newTestSession(t)
	a := goCall(s, "a/one", nil, 2*time.Second)
	b := goCall(s, "b/two", nil, 2*time.Second)
	// Each goroutine got its own id; learn which from what was sent.
	reqs := []gjson.Result{c.next(t), c.next(t)}
	replies := map[string]string{}
	for _, r := range reqs {
		replies[r.Get("method").String()] = `{"jsonrpc":"2.0", "id" : ` + r.Get("id").Raw + ` ,"result":{ "for":"` + r.Get("method").String() + `" }}`
	}
	if len(replies) != 2 {
		t.Fatalf("sent %v", reqs)
	}
	// Answer in the reverse order of the requests.
	c.reply(replies[reqs[1].Get("method").String()])
	c.reply(replies[reqs[0].Get("method").String()])
	for name, ch := range map[string]<-chan callResult{"a/one": a, "b/two": b} {
		got := wait(t, ch)
		if got.err != nil {
			t.Fatalf("%s: %v", name, got.err)
		}
		if string(got.r.Raw) != replies[name] {
			t.Errorf("%s got Raw %s, want %s", name, got.r.Raw, replies[name])
		}
		if want := `{ "for":"` + name + `" }`; string(got.r.Result) != want {
			t.Errorf("%s got Result %s, want %s", name, got.r.Result, want)
		}
		frame := c.trace.Frames()[got.r.Seq]
		if frame.Dir != transport.DirRecv || string(frame.Raw) != replies[name] {
			t.Errorf("%s: Seq %d points at %s %q", name, got.r.Seq, frame.Dir, frame.Raw)
		}
	}
	settle(t, s, c)
	if ev := s.Events(); len(ev) != 0 {
		t.Errorf("events: %+v", ev)
	}
}

func TestCallIDSpelling(t *testing.T) {
	tests := []struct {
		name    string
		id      string
		matches bool
	}{
		{"integer", `1`, true},
		{"decimal 1.0", `1.0`, true},
		{"decimal 1.000", `1.000`, true},
		{"exponent 1e0", `1e0`, true},
		{"exponent 10E-1", `10E-1`, true},
		{"string \"1\" is another id", `"1"`, false},
		{"2 is another id", `2`, false},
		{"null", `null`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				ch := goCall(s, "ping", nil, 200*time.Millisecond)
				if id := c.next(t).Get("id").Raw; id != "1" {
					t.Fatalf("request id %s", id)
				}
				raw := `{"jsonrpc":"2.0","id":` + tc.id + `,"result":{"v":1}}`
				c.reply(raw)
				got := wait(t, ch)
				if tc.matches {
					if got.err != nil {
						t.Fatalf("Call: %v", got.err)
					}
					if string(got.r.Raw) != raw || string(got.r.Result) != `{"v":1}` {
						t.Errorf("Raw %s Result %s", got.r.Raw, got.r.Result)
					}
					settle(t, s, c)
					if ev := s.Events(); len(ev) != 0 {
						t.Errorf("events: %+v", ev)
					}
					return
				}
				var te *TimeoutError
				if !errors.As(got.err, &te) {
					t.Fatalf("err = %v, want a timeout", got.err)
				}
				settle(t, s, c)
				ev := s.Events()
				if len(ev) != 1 || ev[0].Kind != "unknown_id" || string(ev[0].Raw) != raw {
					t.Fatalf("events: %+v", ev)
				}
				if !strings.Contains(ev[0].Note, "id "+tc.id+" ") {
					t.Errorf("note %q does not name id %s", ev[0].Note, tc.id)
				}
			})
		})
	}
}

func TestCallErrorResponse(t *testing.T) {
	tests := []struct {
		name     string
		errObj   string
		code     int64
		message  string
		data     string
		notFound bool
	}{
		{"method not found", `{"code":-32601,"message":"Method not found"}`, -32601, "Method not found", "", true},
		{"with data kept raw", `{"code":-32022,"message":"Unsupported","data":{ "supported" : ["2025-11-25"] }}`,
			-32022, "Unsupported", `{ "supported" : ["2025-11-25"] }`, false},
		{"string data", `{"code":-32000,"message":"boom","data":"why"}`, -32000, "boom", `"why"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				ch := goCall(s, "tools/list", nil, time.Second)
				c.next(t)
				raw := `{"jsonrpc":"2.0","id":1,"error":` + tc.errObj + `}`
				c.reply(raw)
				got := wait(t, ch)
				var re *RPCError
				if !errors.As(got.err, &re) {
					t.Fatalf("err = %v, want *RPCError", got.err)
				}
				if re.Code != tc.code || re.Message != tc.message || string(re.Data) != tc.data {
					t.Errorf("got %d %q %q", re.Code, re.Message, re.Data)
				}
				if got.r.Error != re || string(got.r.Raw) != raw || got.r.Result != nil {
					t.Errorf("response: %+v", got.r)
				}
				if IsMethodNotFound(got.err) != tc.notFound {
					t.Errorf("IsMethodNotFound = %v", !tc.notFound)
				}
				if want := fmt.Sprintf("JSON-RPC error %d: %s", tc.code, tc.message); got.err.Error() != want {
					t.Errorf("Error() = %q, want %q", got.err.Error(), want)
				}
			})
		})
	}
}

func TestCallTimeout(t *testing.T) { inBubble(t, testCallTimeout) }

func testCallTimeout(t *testing.T) {
	s, c := newTestSession(t)
	start := time.Now()
	ch := goCall(s, "tools/list", nil, 100*time.Millisecond)
	c.next(t)
	got := wait(t, ch)
	var te *TimeoutError
	if !errors.As(got.err, &te) {
		t.Fatalf("err = %v, want *TimeoutError", got.err)
	}
	if te.Method != "tools/list" || te.After != 100*time.Millisecond {
		t.Errorf("TimeoutError = %+v", te)
	}
	if el := time.Since(start); el != 100*time.Millisecond {
		t.Errorf("returned after %v, want at the timeout, 100ms", el)
	}
	if want := "no response to tools/list within 100ms"; te.Error() != want {
		t.Errorf("Error() = %q", te.Error())
	}
}

func TestCallContextCanceled(t *testing.T) { inBubble(t, testCallContextCanceled) }

func testCallContextCanceled(t *testing.T) {
	s, c := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "slow", nil, 5*time.Second)
		ch <- err
	}()
	c.next(t)
	cancel()
	select {
	case err := <-ch:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Call ignored the context")
	}
	// The answer that comes after is a late reply.
	c.reply(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	settle(t, s, c)
	if ev := s.Events(); len(ev) != 1 || ev[0].Kind != "late_reply" || ev[0].Method != "slow" {
		t.Fatalf("events: %+v", ev)
	}
}

func TestUnsolicitedResponses(t *testing.T) {
	tests := []struct {
		name       string
		late       bool // let the request time out first
		reply      string
		wantKind   string
		wantMeth   string
		wantInNote string
	}{
		{"unknown id", false, `{"jsonrpc":"2.0","id":99,"result":{}}`, "unknown_id", "", "id 99 that matches no request"},
		{"unknown string id", false, `{"jsonrpc":"2.0","id":"x-1","error":{"code":-1,"message":"m"}}`, "unknown_id", "", `id "x-1"`},
		{"late reply", true, `{"jsonrpc":"2.0","id":1,"result":{"late":true}}`, "late_reply", "tools/list", "tools/list arrived after"},
		{"late reply spelled 1.0", true, `{"jsonrpc":"2.0","id":1.0,"result":{}}`, "late_reply", "tools/list", "after the probe stopped waiting"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				if tc.late {
					ch := goCall(s, "tools/list", nil, 50*time.Millisecond)
					c.next(t)
					var te *TimeoutError
					if got := wait(t, ch); !errors.As(got.err, &te) {
						t.Fatalf("err = %v, want timeout", got.err)
					}
				}
				c.reply(tc.reply)
				settle(t, s, c)
				ev := s.Events()
				if len(ev) != 1 {
					t.Fatalf("events: %+v", ev)
				}
				e := ev[0]
				if e.Kind != tc.wantKind || e.Method != tc.wantMeth || string(e.Raw) != tc.reply {
					t.Errorf("event %+v", e)
				}
				if !strings.Contains(e.Note, tc.wantInNote) {
					t.Errorf("note %q, want it to contain %q", e.Note, tc.wantInNote)
				}
				if f := c.trace.Frames()[e.Seq]; string(f.Raw) != tc.reply {
					t.Errorf("Seq %d points at %q", e.Seq, f.Raw)
				}
			})
		})
	}
}

func TestServerRequestsAnswered(t *testing.T) {
	tests := []struct {
		name    string
		request string
		want    string
	}{
		{"ping string id", `{"jsonrpc":"2.0","id":"r1","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"r1","result":{}}`},
		{"ping numeric id", `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"ping id spelled 3.0 echoed as is", `{"jsonrpc":"2.0","id":3.0,"method":"ping","params":{}}`,
			`{"jsonrpc":"2.0","id":3.0,"result":{}}`},
		{"ping escaped string id echoed as is", `{"jsonrpc":"2.0","id":"a\u0062\"c","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"a\u0062\"c","result":{}}`},
		{"roots/list", `{"jsonrpc":"2.0","id":3,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"mcpprobe declared no roots capability"}}`},
		{"sampling", `{"jsonrpc":"2.0","id":"r1","method":"sampling/createMessage","params":{"messages":[]}}`,
			`{"jsonrpc":"2.0","id":"r1","error":{"code":-32601,"message":"mcpprobe declared no sampling capability"}}`},
		{"elicitation", `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"mcpprobe declared no elicitation capability"}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"x/\"y\""}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"mcpprobe does not implement x/\"y\""}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				c.reply(tc.request)
				got := c.next(t)
				if got.Raw != tc.want {
					t.Errorf("answered %s\nwant     %s", got.Raw, tc.want)
				}
				settle(t, s, c)
				ev := s.Events()
				method := gjson.Get(tc.request, "method").String()
				if len(ev) != 1 || ev[0].Kind != "request" || ev[0].Method != method || string(ev[0].Raw) != tc.request {
					t.Errorf("events: %+v", ev)
				}
			})
		})
	}
}

func TestServerRequestWhileCallPending(t *testing.T) { inBubble(t, testServerRequestWhileCallPending) }

func testServerRequestWhileCallPending(t *testing.T) {
	s, c := newTestSession(t)
	ch := goCall(s, "tools/list", nil, time.Second)
	c.next(t)
	c.reply(`{"jsonrpc":"2.0","id":1,"method":"ping"}`) // the server's own id 1
	if got := c.next(t); got.Raw != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("answered %s", got.Raw)
	}
	c.reply(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	got := wait(t, ch)
	if got.err != nil || string(got.r.Result) != `{"tools":[]}` {
		t.Fatalf("Call: %s, %v", got.r.Result, got.err)
	}
}

func TestNotificationsAndInvalid(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		kinds []string
		meth  string
		note  string
	}{
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
			[]string{"notification"}, "notifications/message", ""},
		{"progress", `{"jsonrpc":"2.0","method":"notifications/progress"}`, []string{"notification"}, "notifications/progress", ""},
		{"wrong version", `{"jsonrpc":"1.0","method":"notifications/message"}`,
			[]string{"invalid", "notification"}, "notifications/message", `"jsonrpc" is not "2.0"`},
		{"neither", `{"jsonrpc":"2.0","foo":1}`, []string{"invalid"}, "", "neither a request"},
		{"id without result or error", `{"jsonrpc":"2.0","id":5}`, []string{"invalid"}, "", "neither a request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				c.reply(tc.raw)
				settle(t, s, c)
				ev := s.Events()
				if len(ev) != len(tc.kinds) {
					t.Fatalf("events: %+v", ev)
				}
				for i, k := range tc.kinds {
					if ev[i].Kind != k || string(ev[i].Raw) != tc.raw || ev[i].Seq != 0 {
						t.Errorf("event %d: %+v, want kind %s", i, ev[i], k)
					}
				}
				last := ev[len(ev)-1]
				if last.Method != tc.meth {
					t.Errorf("method %q, want %q", last.Method, tc.meth)
				}
				if tc.note != "" && !strings.Contains(ev[0].Note, tc.note) {
					t.Errorf("note %q, want %q", ev[0].Note, tc.note)
				}
			})
		})
	}
}

func TestNotify(t *testing.T) { inBubble(t, testNotify) }

func testNotify(t *testing.T) {
	s, c := newTestSession(t)
	if err := s.Notify("notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	if got := c.next(t).Raw; got != `{"jsonrpc":"2.0","method":"notifications/initialized"}` {
		t.Errorf("sent %s", got)
	}
	if err := s.Notify("notifications/cancelled", []byte(`{"requestId":1}`)); err != nil {
		t.Fatal(err)
	}
	if got := c.next(t).Raw; got != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` {
		t.Errorf("sent %s", got)
	}
}

func TestEventsInOrder(t *testing.T) { inBubble(t, testEventsInOrder) }

func testEventsInOrder(t *testing.T) {
	s, c := newTestSession(t)
	raws := []string{
		`{"jsonrpc":"2.0","method":"notifications/message"}`,
		`{"jsonrpc":"2.0","id":"p","method":"ping"}`,
		`{"jsonrpc":"2.0","id":42,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	}
	for _, r := range raws {
		c.reply(r)
	}
	settle(t, s, c)
	ev := s.Events()
	want := []string{"notification", "request", "unknown_id", "notification"}
	if len(ev) != len(want) {
		t.Fatalf("events: %+v", ev)
	}
	for i := range want {
		if ev[i].Kind != want[i] || string(ev[i].Raw) != raws[i] || ev[i].Seq != i {
			t.Errorf("event %d = %+v", i, ev[i])
		}
	}
}

func TestProblemFailsPendingCall(t *testing.T) { inBubble(t, testProblemFailsPendingCall) }

func testProblemFailsPendingCall(t *testing.T) {
	s, c := newTestSession(t)
	ch := goCall(s, "tools/list", nil, 2*time.Second)
	c.next(t) // the request is in flight
	problem := fmt.Errorf("%w: a stdout line of 999 bytes exceeded the limit of 10 bytes (frame 1)", transport.ErrLineTooLong)
	c.problems <- problem
	got := wait(t, ch)
	if !errors.Is(got.err, transport.ErrLineTooLong) {
		t.Fatalf("err = %v, want one wrapping ErrLineTooLong", got.err)
	}
	if got.err.Error() != problem.Error() {
		t.Errorf("err = %q", got.err)
	}
	var ce *ClosedError
	var te *TimeoutError
	if errors.As(got.err, &ce) || errors.As(got.err, &te) {
		t.Errorf("err %T is not the problem", got.err)
	}
	// The session goes on: the next request is answered.
	ch = goCall(s, "prompts/list", nil, time.Second)
	req := c.next(t)
	c.reply(`{"jsonrpc":"2.0","id":` + req.Get("id").Raw + `,"result":{"prompts":[]}}`)
	if got := wait(t, ch); got.err != nil || string(got.r.Result) != `{"prompts":[]}` {
		t.Fatalf("after the problem: %s, %v", got.r.Result, got.err)
	}
}

func TestProblemWithNothingPending(t *testing.T) { inBubble(t, testProblemWithNothingPending) }

func testProblemWithNothingPending(t *testing.T) {
	s, c := newTestSession(t)
	c.problems <- fmt.Errorf("%w: x", transport.ErrLineTooLong)
	time.Sleep(20 * time.Millisecond)
	ch := goCall(s, "ping", nil, time.Second)
	c.next(t)
	c.reply(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if got := wait(t, ch); got.err != nil {
		t.Fatalf("a problem with nothing pending failed a later Call: %v", got.err)
	}
}

func TestStreamEndFailsPendingCall(t *testing.T) {
	cause := errors.New("read |0: broken pipe")
	tests := []struct {
		name  string
		cause error
	}{
		{"clean eof", nil},
		{"read error", cause},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				ch := goCall(s, "initialize", []byte(`{}`), 2*time.Second)
				c.next(t)
				c.end(tc.cause)
				got := wait(t, ch)
				var ce *ClosedError
				if !errors.As(got.err, &ce) {
					t.Fatalf("err = %v (%T), want *ClosedError", got.err, got.err)
				}
				if ce.Method != "initialize" || ce.Cause != tc.cause {
					t.Errorf("ClosedError = %+v", ce)
				}
				if tc.cause != nil && !errors.Is(got.err, tc.cause) {
					t.Errorf("cause not unwrapped")
				}
				select {
				case <-s.Done():
				case <-time.After(time.Second):
					t.Fatal("Done not closed")
				}
				// A Call after the end fails at once.
				start := time.Now()
				_, err := s.Call(context.Background(), "tools/list", nil, time.Second)
				if !errors.As(err, &ce) || ce.Method != "tools/list" || ce.Cause != tc.cause {
					t.Errorf("Call after end: %v", err)
				}
				if waited := time.Since(start); waited != 0 {
					t.Errorf("Call after end waited %v", waited)
				}
				c.nothingSent(t, 20*time.Millisecond)
			})
		})
	}
}

func TestSendErrorReturned(t *testing.T) { inBubble(t, testSendErrorReturned) }

func testSendErrorReturned(t *testing.T) {
	c := newFakeConn()
	c.sent = make(chan []byte) // unbuffered and never read: Send fails
	s := NewSession(c)
	defer func() { c.end(nil); <-s.Done() }()
	_, err := s.Call(context.Background(), "ping", nil, time.Second)
	if err == nil || !strings.Contains(err.Error(), "send buffer full") {
		t.Fatalf("err = %v", err)
	}
	s.mu.Lock()
	n, a := len(s.pending), len(s.abandoned)
	s.mu.Unlock()
	if n != 0 || a != 0 {
		t.Errorf("pending %d abandoned %d after a failed send", n, a)
	}
}

func TestBatch(t *testing.T) { inBubble(t, testBatch) }

func testBatch(t *testing.T) {
	s, c := newTestSession(t)
	ch := goCall(s, "ping", nil, time.Second)
	c.next(t)
	batch := `[{"jsonrpc":"2.0","method":"notifications/message"},{"jsonrpc":"2.0","id":1,"result":{"ok":true}}]`
	c.reply(batch)
	got := wait(t, ch)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`; string(got.r.Raw) != want {
		t.Errorf("Raw = %s, want the batch element", got.r.Raw)
	}
	settle(t, s, c)
	ev := s.Events()
	if len(ev) != 2 || ev[0].Kind != "batch" || string(ev[0].Raw) != batch || ev[1].Kind != "notification" {
		t.Errorf("events: %+v", ev)
	}
}

func TestBatchResponseResult(t *testing.T) { inBubble(t, testBatchResponseResult) }

func testBatchResponseResult(t *testing.T) {
	s, c := newTestSession(t)
	ch := goCall(s, "ping", nil, time.Second)
	c.next(t)
	c.reply(`[{"jsonrpc":"2.0","id":1,"result":{"ok":true}}]`)
	got := wait(t, ch)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if string(got.r.Result) != `{"ok":true}` {
		t.Fatalf("Result = %q, want {\"ok\":true}", got.r.Result)
	}
}

func TestResultIsServerBytes(t *testing.T) {
	tests := []struct {
		name, raw, result string
	}{
		{"compact", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"a":1}`},
		{"odd spacing", `{ "jsonrpc" : "2.0" , "id" : 1 , "result" :  { "a" :	[ 1 , 2 ] }  }`, `{ "a" :	[ 1 , 2 ] }`},
		{"escapes kept", `{"jsonrpc":"2.0","id":1,"result":{"s":"\u00e9\/"}}`, `{"s":"\u00e9\/"}`},
		{"result first", `{"result":"x","id":1,"jsonrpc":"2.0"}`, `"x"`},
		{"leading whitespace", "  \t{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1, 2]}", `[1, 2]`},
		{"null result", `{"jsonrpc":"2.0","id":1,"result":null}`, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				s, c := newTestSession(t)
				ch := goCall(s, "x", nil, time.Second)
				c.next(t)
				c.reply(tc.raw)
				got := wait(t, ch)
				if got.err != nil {
					t.Fatal(got.err)
				}
				if string(got.r.Result) != tc.result || string(got.r.Raw) != tc.raw {
					t.Errorf("Result %q Raw %q", got.r.Result, got.r.Raw)
				}
			})
		})
	}
}

func TestIDKey(t *testing.T) { inBubble(t, testIDKey) }

func testIDKey(t *testing.T) {
	tests := []struct {
		json string
		want string
		ok   bool
	}{
		{`{"id":1}`, "n:1", true},
		{`{"id":1.0}`, "n:1", true},
		{`{"id":999999}`, "n:999999", true},
		{`{"id":"1"}`, "s:1", true},
		{`{"id":"a\"b"}`, `s:a"b`, true},
		{`{"id":null}`, "", false},
		{`{"id":true}`, "", false},
		{`{"id":{}}`, "", false},
	}
	for _, tc := range tests {
		k, ok := idKey(gjson.Get(tc.json, "id"))
		got := ""
		if ok {
			got = k.String()
		}
		if got != tc.want || ok != tc.ok {
			t.Errorf("idKey(%s) = %q, %v; want %q, %v", tc.json, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLargeIDMatches(t *testing.T) { inBubble(t, testLargeIDMatches) }

func testLargeIDMatches(t *testing.T) {
	s, c := newTestSession(t)
	s.mu.Lock()
	s.nextID = 999999 // the next request is the millionth
	s.mu.Unlock()
	ch := goCall(s, "ping", nil, 200*time.Millisecond)
	if id := c.next(t).Get("id").Raw; id != "1000000" {
		t.Fatalf("request id %s", id)
	}
	c.reply(`{"jsonrpc":"2.0","id":1000000,"result":{}}`)
	if got := wait(t, ch); got.err != nil {
		t.Fatalf("response to id 1000000 not matched: %v", got.err)
	}
}

// A quiet request is the probe's own business: its error code is not one
// of the server's, and once dropped its answer is traced and nothing
// more, where a plain request's would be a late_reply.
func TestQuietRequest(t *testing.T) { inBubble(t, testQuietRequest) }

func testQuietRequest(t *testing.T) {
	s, c := newTestSession(t)
	ctx := context.Background()
	answered, err := s.BeginQuiet(ctx, "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.next(t)
	dropped, err := s.BeginQuiet(ctx, "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.next(t)
	select {
	case <-s.Heard():
		t.Fatal("heard from a server that has sent nothing")
	default:
	}
	c.reply(`{"jsonrpc":"2.0","id":1,"error":{"code":"E1","message":"no ping here"}}`)
	r, err := answered.Wait(ctx, time.Second)
	if r.Error == nil || r.Error.Message != "no ping here" || err == nil {
		t.Fatalf("r %+v err %v", r, err)
	}
	<-s.Heard()
	if at, ok := s.HeardAt(); !ok || at != r.T {
		t.Errorf("HeardAt %v %v, want %v", at, ok, r.T)
	}
	dropped.Drop()
	c.reply(`{"jsonrpc":"2.0","id":2,"error":{"code":"E2","message":"late"}}`)
	c.reply(`{"jsonrpc":"2.0","id":2,"result":{}}`) // twice: the second matches nothing
	settle(t, s, c)
	if codes := s.ErrorCodes(); len(codes) != 0 {
		t.Errorf("quiet answers' codes counted as the server's: %+v", codes)
	}
	ev := s.Events()
	if len(ev) != 1 || ev[0].Kind != "unknown_id" {
		t.Errorf("events %+v, want the second answer to id 2 only, as unknown_id", ev)
	}
	if n := len(c.trace.Frames()); n != 5 {
		t.Errorf("%d frames traced, want all 5", n)
	}
	// Adopted, the answer's code is the server's after all.
	answered.Adopt(r)
	if codes := s.ErrorCodes(); len(codes) != 1 || codes[0].Raw != `"E1"` {
		t.Errorf("adopted: codes %+v", codes)
	}
}

// TestWatchdogTimesOutEachRequest: the session's one watchdog times out
// every request at its own deadline, a later request with an earlier
// deadline first, and leaves one answered in time alone.
func TestWatchdogTimesOutEachRequest(t *testing.T) { inBubble(t, testWatchdogTimesOutEachRequest) }

func testWatchdogTimesOutEachRequest(t *testing.T) {
	s, c := newTestSession(t)
	long := goCall(s, "long", nil, 5*time.Second)
	if m := c.next(t).Get("method").String(); m != "long" {
		t.Fatalf("sent %q", m)
	}
	short := goCall(s, "short", nil, 30*time.Millisecond)
	c.next(t)
	r := wait(t, short)
	var te *TimeoutError
	if !errors.As(r.err, &te) || te.Method != "short" || te.After != 30*time.Millisecond {
		t.Fatalf("short: %v", r.err)
	}
	c.reply(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)
	if r := wait(t, long); r.err != nil || string(r.r.Result) != `{"ok":true}` {
		t.Fatalf("long: %+v, %v", r.r, r.err)
	}
	c.reply(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	settle(t, s, c)
	if ev := s.Events(); len(ev) != 1 || ev[0].Kind != "late_reply" || ev[0].Method != "short" {
		t.Fatalf("events %+v", ev)
	}
}

// TestTopMembersAsGet: the one-pass read of a message's members finds
// what gjson's Get finds, member by member, offsets included.
func TestTopMembersAsGet(t *testing.T) { inBubble(t, testTopMembersAsGet) }

func testTopMembersAsGet(t *testing.T) {
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}`,
		`  {"jsonrpc" : "2.0", "id":"x","error":{"code":-1,"message":"m"}}`,
		`{"id":1,"id":2,"m\u0065thod":"a","params":{"p":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/x","params":[1]}`,
		`{}`, `[]`, `"method"`, `12`, `[{"method":"x"}]`,
	} {
		m := topMembers([]byte(raw))
		for _, tc := range []struct {
			name string
			got  gjson.Result
		}{{"jsonrpc", m.jsonrpc}, {"method", m.method}, {"id", m.id}, {"error", m.err}, {"result", m.result}, {"params", m.params}} {
			want := gjson.Get(raw, tc.name)
			if tc.got.Raw != want.Raw || tc.got.Exists() != want.Exists() || (want.Exists() && tc.got.Index != want.Index) {
				t.Errorf("%s in %s: %q at %d; Get finds %q at %d", tc.name, raw, tc.got.Raw, tc.got.Index, want.Raw, want.Index)
			}
		}
	}
}

// gatedConn is a fakeConn whose Send of an answer (a message with no
// method) waits until gate is closed.
type gatedConn struct {
	*fakeConn
	gate chan struct{}
}

func (g *gatedConn) Send(raw []byte) error {
	if !gjson.GetBytes(raw, "method").Exists() {
		<-g.gate
	}
	return g.fakeConn.Send(raw)
}

// TestFlushAnswers: FlushAnswers waits, bounded, until every answer queued
// to the server's requests is written, and says whether they were.
func TestFlushAnswers(t *testing.T) { inBubble(t, testFlushAnswers) }

func testFlushAnswers(t *testing.T) {
	g := &gatedConn{fakeConn: newFakeConn(), gate: make(chan struct{})}
	s := NewSession(g)
	defer func() {
		g.end(nil)
		<-s.Done()
	}()
	if !s.FlushAnswers(0) {
		t.Fatal("nothing queued, yet not flushed")
	}
	g.reply(`{"jsonrpc":"2.0","id":"a","method":"ping"}`)
	g.reply(`{"jsonrpc":"2.0","id":"b","method":"roots/list"}`)
	synctest.Wait() // the first answer is queued, the writer held at the gate
	if s.unsent.Load() < 1 {
		t.Fatal("no answer queued")
	}
	if s.FlushAnswers(20 * time.Millisecond) {
		t.Fatal("flushed while the writer was held")
	}
	close(g.gate)
	if !s.FlushAnswers(2 * time.Second) {
		t.Fatal("not flushed once the writer could write")
	}
	got := map[string]bool{}
	for _, m := range g.sentLog() {
		got[gjson.GetBytes(m, "id").String()] = true
	}
	if !got["a"] || !got["b"] {
		t.Errorf("sent %q, want the answers to a and b", g.sentLog())
	}
}
