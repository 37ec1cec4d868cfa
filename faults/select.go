// Package faults injects failures between an MCP client and a server: a
// crash, a slow or lost reply, corrupted bytes, stray stdout text.
//
// One engine (engine.go) runs every fault. A fault is a small interface
// (Fault) acting on one frame in one direction through an Injection; each
// kind lives in its own file with its test beside it and registers itself
// (registry.go), which is all the plan parser and the command line know
// of it. The engine numbers the client's tools/calls, asks each fault's
// Selector once per call, and passes the call's frames through the
// faults that hit it. Two front ends feed it: the shim (shim.go, in
// process, messages: mcpprobe is the client and models what each client
// policy makes of a broken line) and the proxy (proxy.go, standalone,
// bytes: a real host is the client).
package faults

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// whichUsage documents a selector flag.
const whichUsage = "`WHICH`: a tools/call number (6), tool:NAME, or p:PROBABILITY"

// Selector picks the tools/call a fault hits: the Nth (1-based), every
// call of a tool, or each call with a probability (seeded, so a run can
// be repeated).
type Selector struct {
	At   int
	Tool string
	Prob float64
}

// ParseSelector reads "6", "tool:get_device" or "p:0.1".
func ParseSelector(s string) (Selector, error) {
	switch {
	case strings.HasPrefix(s, "tool:"):
		return Selector{Tool: strings.TrimPrefix(s, "tool:")}, nil
	case strings.HasPrefix(s, "p:"):
		p, err := strconv.ParseFloat(strings.TrimPrefix(s, "p:"), 64)
		if err != nil || p <= 0 || p > 1 {
			return Selector{}, fmt.Errorf("%q: want p:PROBABILITY in (0, 1]", s)
		}
		return Selector{Prob: p}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Selector{}, fmt.Errorf("%q: want a call number (1, 2, …), tool:NAME or p:PROBABILITY", s)
	}
	return Selector{At: n}, nil
}

// Match reports whether the nth call, of tool, is hit.
func (s Selector) Match(n int, tool string, rng *rand.Rand) bool {
	switch {
	case s.At > 0:
		return n == s.At
	case s.Tool != "":
		return tool == s.Tool
	case s.Prob > 0:
		return rng.Float64() < s.Prob
	}
	return false
}

func (s Selector) String() string {
	switch {
	case s.At > 0:
		return fmt.Sprintf("call %d", s.At)
	case s.Tool != "":
		return "every call of " + s.Tool
	case s.Prob > 0:
		return fmt.Sprintf("each call with p=%g", s.Prob)
	}
	return "never"
}
