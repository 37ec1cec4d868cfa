package probe

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// A flood of notifications is counted whole but kept only in part: the
// session's memory does not grow with what the server sends.
func TestSessionEventsBounded(t *testing.T) {
	s, c := newTestSession(t)
	const n = maxEvents + 2500
	go func() {
		for i := 0; i < n; i++ {
			c.reply(`{"jsonrpc":"2.0","method":"notifications/message","params":{"i":` + fmt.Sprint(i) + `}}`)
		}
		c.end(nil)
	}()
	<-s.Done()
	if got := len(s.Events()); got != maxEvents {
		t.Errorf("%d events kept, want %d", got, maxEvents)
	}
	counts, notKept := s.EventCounts()
	if counts["notification\x00notifications/message"] != n || notKept != 2500 {
		t.Errorf("counts %v, not kept %d", counts, notKept)
	}
}

// A server request flood gets at most maxAnswers answers: each is a
// write the server may never read.
func TestServerRequestsAnsweredBounded(t *testing.T) { inBubble(t, testServerRequestsAnsweredBounded) }

func testServerRequestsAnsweredBounded(t *testing.T) {
	// The fake conn's reply holds its lock while it delivers, and an
	// answer takes it: room for every request keeps them apart.
	c := newFakeConn()
	c.msgs = make(chan transport.Message, maxAnswers+100)
	s := NewSession(c)
	t.Cleanup(func() { c.end(nil); <-s.Done() })
	for i := 0; i < maxAnswers+50; i++ {
		c.reply(`{"jsonrpc":"2.0","id":"p` + fmt.Sprint(i) + `","method":"ping"}`)
	}
	// Once every goroutine waits, the session has read every request and
	// written every answer it will: an answer too many would be there.
	synctest.Wait()
	if got := len(s.Events()); got != maxAnswers+50 {
		t.Errorf("%d requests seen, want %d", got, maxAnswers+50)
	}
	if got := len(c.sentLog()); got != maxAnswers {
		t.Errorf("%d answers sent, want %d", got, maxAnswers)
	}
}

// A page whose frame the trace did not keep (its budget spent) stops the
// list there, with one capture-capped finding; nothing of it is held.
func TestListStopsWhereThePageWasNotKept(t *testing.T) {
	inBubble(t, testListStopsWhereThePageWasNotKept)
}

func testListStopsWhereThePageWasNotKept(t *testing.T) {
	big := strings.Repeat("d", 4000)
	conn := startServer(t, scripted(`{"tools":{},"prompts":{}}`, map[string]route{
		"tools/list": func(r req) []string {
			return ok(r, `{"tools":[{"name":"t`+r.ID+`","description":"`+big+`"}],"nextCursor":"n`+r.ID+`"}`)
		},
	}))
	conn.trace.Keep(10000)
	c, err := run(t, conn, fastOptions("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Tools.Pages); n < 1 || n > 3 {
		t.Errorf("%d pages kept under a 10,000-byte budget of 4 KB pages", n)
	}
	if !strings.Contains(c.Tools.Error, "keep budget") {
		t.Errorf("list error %q", c.Tools.Error)
	}
	if c.Prompts.Asked || !strings.Contains(c.Prompts.Skipped, "keep budget") {
		t.Errorf("prompts asked after the budget was spent: %+v", c.Prompts)
	}
	wantFinding(t, c, "warning", "capture-capped", "tools/list stopped at page")
	if got := len(findingsOf(c, "capture-capped")); got != 1 {
		t.Errorf("%d capture-capped findings", got)
	}
}

// An interrupted run blames nobody: the list stops, no finding is made of
// the interrupt, and nothing more is sent.
func TestInterruptedListNoFinding(t *testing.T) { inBubble(t, testInterruptedListNoFinding) }

func testInterruptedListNoFinding(t *testing.T) {
	conn := startServer(t, scripted(`{"tools":{},"prompts":{}}`, map[string]route{"tools/list": silent}))
	ctx, cancel := context.WithCancel(context.Background())
	cl, err := Connect(ctx, conn, fastOptions("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	cl.Lists(ctx)
	cl.Finish()
	c := cl.Capture
	if c.Tools.Error != "interrupted" || c.Prompts.Asked {
		t.Errorf("tools %q, prompts asked %v", c.Tools.Error, c.Prompts.Asked)
	}
	for _, f := range c.Findings {
		t.Errorf("a finding of an interrupt: %s %s", f.Code, f.Message)
	}
	if _, err := cl.Session.Call(ctx, "ping", nil, time.Second); err != context.Canceled {
		t.Errorf("Call after the interrupt: %v, want context.Canceled and nothing sent", err)
	}
}
