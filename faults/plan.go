package faults

import (
	"fmt"
	"sort"
	"strings"
)

// Plan is the set of faults to inject. Several can be combined; each
// acts in its rank's place in the pipeline, whatever the order given.
type Plan struct {
	Rules []Rule
	Seed  uint64 // for p: selectors and for faults that draw numbers
}

// Rule is one fault of a plan and the calls it hits.
type Rule struct {
	Kind  Kind
	Fault Fault
	At    *Selector // nil for a fault that selects no call
}

// Empty reports whether the plan injects nothing: the proxy is then
// transparent.
func (p Plan) Empty() bool { return len(p.Rules) == 0 }

// String describes the plan for people.
func (p Plan) String() string {
	var parts []string
	for _, r := range p.ordered() {
		at := ""
		if r.At != nil {
			at = r.At.String()
		}
		parts = append(parts, r.Fault.Describe(at))
	}
	if len(parts) == 0 {
		return "no fault"
	}
	return strings.Join(parts, ", ")
}

func (p Plan) ordered() []Rule {
	out := append([]Rule(nil), p.Rules...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Kind.Rank < out[j].Kind.Rank })
	return out
}

// ActsAtStart reports whether a fault acts when the connection opens, so
// that a server failing to answer its handshake is an outcome, not an
// error.
func (p Plan) ActsAtStart() bool {
	for _, r := range p.Rules {
		if r.Kind.Stage == AtStart {
			return true
		}
	}
	return false
}

// Restarted is the plan for a server started again within a run: the
// faults of the opening acted on the first start only, as a host that
// restarts a server that died at startup gets one that starts.
func (p Plan) Restarted() Plan {
	q := Plan{Seed: p.Seed}
	for _, r := range p.Rules {
		if r.Kind.Stage != AtStart {
			q.Rules = append(q.Rules, r)
		}
	}
	return q
}

// Check refuses a fault that front end f cannot act, rather than let it
// be silently ignored.
func (p Plan) Check(f Front) error {
	for _, r := range p.ordered() {
		if r.Kind.Where&f == 0 {
			return fmt.Errorf("--%s acts only in %s: %s", r.Kind.Flags[0].Name, r.Kind.Where, r.Kind.WhyOnly)
		}
	}
	return nil
}

// CheckURL refuses, for a URL target, a fault that acts on the server's
// process, and a restart: mcpprobe starts no process for a URL, so a
// "kill" would only end mcpprobe's own HTTP session and a "restart" open
// a new one, while the server ran on untouched; reporting either as a
// crash or a restart would say what did not happen.
func (p Plan) CheckURL(restart bool) error {
	var refused []string
	for _, r := range p.ordered() {
		if r.Kind.Process {
			refused = append(refused, "--"+r.Kind.Flags[0].Name)
		}
	}
	if restart {
		refused = append(refused, "--restart")
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("%s act(s) on the server's process (kill its process group, write on its stdout, start it again), and a URL target has no process mcpprobe started: nothing would be done to the server. For a URL use %s; run the server as a command (mcpprobe faults -- CMD ARGS…) to crash or restart it",
		strings.Join(refused, ", "), strings.Join(URLFaults(), ", "))
}

// URLFaults are the flags of the faults mcpprobe faults can act on a URL
// target: those that act on messages in the client, not on a process.
func URLFaults() []string {
	var out []string
	for _, k := range Kinds() {
		if k.Where&InShim != 0 && !k.Process {
			out = append(out, "--"+k.Flags[0].Name)
		}
	}
	return out
}
