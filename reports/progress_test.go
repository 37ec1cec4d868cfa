package reports

import (
	"bytes"
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
