package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// Progress is the one live line a run draws on a terminal's stderr: what
// it is doing, how much of it is done, and how long it has taken, e.g.
//
//	malformed · waiting for initialize (5 s of 30 s) · 3/19 · 12 s
//
// It takes what the domain packages report (a phase and its bound, steps
// done of a total, a step's name), redraws at most ten times a second,
// and once a second on its own so that a wait is seen to go on. It costs
// a measurement nothing worth counting. Off (not a terminal, --quiet), it
// draws nothing.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	label string
	width int
	start time.Time
	last  time.Time
	drawn bool

	what  string
	since time.Time
	limit time.Duration

	done, total int
	stop        chan struct{}
	now         func() time.Time // the clock: time.Now, or a test's
}

// NewProgress draws on w when on (stderr is a terminal and --quiet is not
// set); otherwise it draws nothing.
func NewProgress(w io.Writer, on bool) *Progress { return newProgress(w, on, time.Now) }

func newProgress(w io.Writer, on bool, now func() time.Time) *Progress {
	return &Progress{w: w, on: on, start: now(), now: now}
}

// On reports whether the line is drawn at all.
func (p *Progress) On() bool { return p != nil && p.on }

// Label names the run ("wire", "faults ./server") at the head of the
// line, and width bounds the line (0: 80 columns).
func (p *Progress) Label(label string, width int) *Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.label, p.width = label, width
	return p
}

// Phase is what the run now waits for, the time its bound counts from,
// and the bound (0: none).
func (p *Progress) Phase(what string, since time.Time, limit time.Duration) {
	p.update(func() { p.what, p.since, p.limit = what, since, limit }, true)
}

// Step is what the run now does, with no bound of its own.
func (p *Progress) Step(what string) {
	p.update(func() { p.what, p.since, p.limit = what, p.now(), 0 }, true)
}

// Request is a request just sent, when it was sent and its own bound:
// Phase for a run that sends many (bench), drawn at most ten times a
// second rather than at each, so that a fast series pays nothing for it.
func (p *Progress) Request(what string, sent time.Time, limit time.Duration) {
	p.update(func() { p.what, p.since, p.limit = what, sent, limit }, false)
}

// Report is the callback of a counted run: done steps out of total.
func (p *Progress) Report(done, total int) {
	p.update(func() { p.done, p.total = done, total }, false)
}

func (p *Progress) update(set func(), force bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	set()
	if !p.on {
		return
	}
	if p.stop == nil {
		p.stop = make(chan struct{})
		go p.tick(p.stop)
	}
	if force || p.now().Sub(p.last) >= 100*time.Millisecond {
		p.draw()
	}
}

// tick redraws once a second, so that elapsed time moves while the run
// waits on a silent server.
func (p *Progress) tick(stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// Line is the text of the progress line as it stands.
func (p *Progress) Line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.line()
}

func (p *Progress) line() string {
	var parts []string
	if p.label != "" {
		parts = append(parts, p.label)
	}
	if p.what != "" {
		s := p.what
		if p.limit > 0 {
			s += fmt.Sprintf(" (%s of %s)", elapsed(p.now().Sub(p.since)), bound(p.limit))
		}
		parts = append(parts, s)
	}
	if p.total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d", p.done, p.total))
	}
	parts = append(parts, elapsed(p.now().Sub(p.start)))
	return strings.Join(parts, " · ")
}

// elapsed is time gone as a person reads a wait: whole seconds, "5 s".
func elapsed(d time.Duration) string { return fmt.Sprintf("%d s", int(d.Seconds())) }

// bound is a limit as the user set it: "30 s", "1.5 s", "300 ms".
func bound(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d%time.Second == 0:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func (p *Progress) draw() {
	width := p.width
	if width <= 0 {
		width = 80
	}
	l := p.line()
	if twwidth.Width(l) > width-1 {
		l = twwidth.Truncate(l, width-1, "…")
	}
	fmt.Fprintf(p.w, "\r\x1b[2K%s", l)
	p.last, p.drawn = p.now(), true
}

// Done clears the line, if one was drawn, and stops redrawing it.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.drawn = false
	}
}
