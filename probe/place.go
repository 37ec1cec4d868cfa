package probe

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/transport"
)

// Places names the frames of a trace for people by their place in their
// own stream: "stdout line 3", "stderr line 2", "stdin line 4" over
// stdio; "received message 3", "sent message 2", "HTTP exchange 1" over
// HTTP. The trace's Seq numbers every frame of every stream in the order
// they arrived, so a server's stderr lines, which interleave with its
// stdout as the scheduler pleases, move it; a frame's place in its own
// stream is what the server wrote, and a report that shows it comes out
// the same on every run. Seq stays the trace's own number.
type Places struct {
	at map[int]place
}

// place is a frame's stream, its number on it, and whether a frame the
// trace did not keep came before it.
type place struct {
	stream string
	n      int
	gap    bool
}

// NewPlaces indexes every frame the trace holds, once.
func NewPlaces(t *transport.Trace) Places {
	p := Places{at: map[int]place{}}
	if t == nil {
		return p
	}
	n := map[string]int{}
	gap := false
	prev := -1
	for _, f := range t.Frames() {
		// Seq numbers every frame added; a frame the trace did not keep
		// leaves a hole, and a count past it is of the frames kept.
		gap = gap || f.Seq != prev+1
		prev = f.Seq
		s := stream(f)
		n[s]++
		p.at[f.Seq] = place{s, n[s], gap}
	}
	return p
}

// Of names the frame numbered seq.
func (p Places) Of(seq int) string {
	pl, ok := p.at[seq]
	switch {
	case !ok:
		return "a frame the trace did not keep"
	case pl.gap:
		return fmt.Sprintf("%s %d of those the trace kept", pl.stream, pl.n)
	}
	return fmt.Sprintf("%s %d", pl.stream, pl.n)
}

// stream is the name of the stream a frame came on, its unit singular.
func stream(f transport.Frame) string {
	if f.HTTP != nil {
		switch f.Dir {
		case transport.DirSend:
			return "sent message"
		case transport.DirHTTP:
			return "HTTP exchange"
		}
		return "received message"
	}
	switch f.Dir {
	case transport.DirSend:
		return "stdin line"
	case transport.DirStderr:
		return "stderr line"
	case transport.DirHTTP:
		return "HTTP exchange"
	}
	return "stdout line" // recv and noise: both are lines of stdout
}
