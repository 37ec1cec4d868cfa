package reports

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress draws a bar for a long run (bench) on a terminal's stderr. It
// takes the running totals a domain package's Progress callback reports,
// and redraws at most ten times a second, so that it costs the
// measurement nothing worth counting.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	last  time.Time
	drawn bool
}

// NewProgress draws on w when on (stderr is a terminal and --quiet is not
// set); otherwise it draws nothing.
func NewProgress(w io.Writer, on bool) *Progress { return &Progress{w: w, on: on} }

// Report is the callback: done steps out of total planned so far.
func (p *Progress) Report(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = time.Now(), true
	const width = 30
	filled := min(width*done/max(total, 1), width)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), done, total)
}

// Done clears the bar, if one was drawn.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.drawn = false
	}
}
