package terminal

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true).Label("wire", 60)
	p.Phase("waiting for initialize", time.Now().Add(-5200*time.Millisecond), 30*time.Second)
	if got := p.Line(); !strings.HasPrefix(got, "wire · waiting for initialize (5 s of 30 s) · ") {
		t.Errorf("Line = %q", got)
	}
	p.Report(3, 19)
	p.Step("run 1 of 4: spec client")
	if got := p.Line(); !strings.Contains(got, "run 1 of 4: spec client · 3/19 · ") || strings.Contains(got, " of 30 s") {
		t.Errorf("Line = %q", got)
	}
	p.Phase("case: x", time.Now(), 1500*time.Millisecond)
	if got := p.Line(); !strings.Contains(got, "(0 s of 1.5 s)") {
		t.Errorf("Line = %q", got)
	}
	p.Phase(strings.Repeat("long ", 40), time.Now(), 0)
	p.Done()
	out := b.String()
	if !strings.HasSuffix(out, "\r\x1b[2K") {
		t.Errorf("Done did not clear the line: %q", out)
	}
	for _, l := range strings.Split(out, "\r\x1b[2K") {
		if Width(l) > 59 {
			t.Errorf("a drawn line is wider than the terminal: %q", l)
		}
	}
	// Off: nothing drawn, whatever is reported; nil is off too.
	var none bytes.Buffer
	q := NewProgress(&none, false)
	q.Phase("x", time.Now(), time.Second)
	q.Report(1, 2)
	q.Done()
	var nilp *Progress
	nilp.Report(1, 2)
	nilp.Done()
	if none.Len() != 0 || nilp.On() {
		t.Errorf("an off progress line drew %q", none.String())
	}
}

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// bench's line: the request in flight with its own elapsed time and
// bound, the series' count against a total that does not grow, the run's
// time; a tools/list wait before it does not linger once calls start.
func TestProgressLineBench(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	var b bytes.Buffer
	p := newProgress(&b, true, clk.now).Label("bench", 120)
	defer p.Done()
	p.Phase("waiting for tools/list page 1", clk.now(), 10*time.Second)
	clk.advance(2 * time.Second)
	steps := []struct {
		advance    time.Duration // before the request is sent
		sent       string
		inFlight   time.Duration // after it is sent
		done, want string
	}{
		{0, "series 1/14 · tools/call echo", 300 * time.Millisecond, "0/100", "bench · series 1/14 · tools/call echo (0 s of 10 s) · 0/100 · 2 s"},
		{time.Second, "series 3/14 · tools/call get-sum", 7 * time.Second, "40/100", "bench · series 3/14 · tools/call get-sum (7 s of 10 s) · 40/100 · 10 s"},
		// 134 s into the run, the call under way was sent 9 s ago: its
		// elapsed time is its own, never the run's.
		{115 * time.Second, "series 9/14 · tools/call trigger-long-running-operation", 9 * time.Second, "1/100", "bench · series 9/14 · tools/call trigger-long-running-operation (9 s of 10 s) · 1/100 · 134 s"},
	}
	for _, s := range steps {
		clk.advance(s.advance)
		var done, total int
		if _, err := fmt.Sscanf(s.done, "%d/%d", &done, &total); err != nil {
			t.Fatal(err)
		}
		p.Report(done, total)
		p.Request(s.sent, clk.now(), 10*time.Second)
		clk.advance(s.inFlight)
		if got := p.Line(); got != s.want {
			t.Errorf("Line =\n%q, want\n%q", got, s.want)
		}
	}
}
