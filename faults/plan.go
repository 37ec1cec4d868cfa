package faults

import (
	"fmt"
	"strings"
	"time"
)

// Plan is the set of faults to inject. Several can be combined.
type Plan struct {
	Crash   *Selector // kill the server's process group while it handles the call
	Slow    *Selector // hold the reply for Delay
	Delay   time.Duration
	Drop    *Selector // swallow the reply
	Garble  *Selector // corrupt the reply's bytes
	Pollute *Selector // stray stdout text before the reply
	// PolluteKind is "line" (a newline-terminated log line) or "partial"
	// (bytes with no newline, glued to the reply).
	PolluteKind string
	// Split delivers frames in small chunks at seeded random boundaries
	// (proxy only: every client reassembles lines, so only a host can
	// show a bug here).
	Split bool
	// StderrFlood writes this many lines on stderr at startup (proxy).
	StderrFlood int
	// ExitAtStartup kills the server before it answers its handshake.
	ExitAtStartup bool
	Seed          uint64
}

// Empty reports whether the plan injects nothing: the proxy is then
// transparent.
func (p Plan) Empty() bool {
	return p.Crash == nil && p.Slow == nil && p.Drop == nil && p.Garble == nil && p.Pollute == nil &&
		!p.Split && p.StderrFlood == 0 && !p.ExitAtStartup
}

// String describes the plan for people.
func (p Plan) String() string {
	var parts []string
	add := func(name string, s *Selector, extra string) {
		if s != nil {
			parts = append(parts, name+" at "+s.String()+extra)
		}
	}
	add("crash", p.Crash, "")
	add("slow", p.Slow, fmt.Sprintf(" (%v)", p.Delay))
	add("drop", p.Drop, "")
	add("garble", p.Garble, "")
	add("pollute ("+p.PolluteKind+")", p.Pollute, "")
	if p.Split {
		parts = append(parts, "split frames")
	}
	if p.StderrFlood > 0 {
		parts = append(parts, fmt.Sprintf("stderr flood (%d lines)", p.StderrFlood))
	}
	if p.ExitAtStartup {
		parts = append(parts, "exit at startup")
	}
	if len(parts) == 0 {
		return "no fault"
	}
	return strings.Join(parts, ", ")
}
