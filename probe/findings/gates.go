package findings

import (
	"fmt"
	"slices"
	"strings"
)

// Gate is a --fail-on gate: a condition on a command's findings (or, for
// a counted gate, on a number the command passes in) that fails the run.
type Gate struct {
	Name string
	Help string // what trips it, for usage text
	// match picks the findings that trip the gate; nil for a counted gate,
	// whose count the command passes to Trip because it is not findings.
	match func(Finding) bool
}

// Counted reports whether the command counts the gate itself: drift is
// a difference between two sides, not a finding.
func (g Gate) Counted() bool { return g.match == nil }

func atLeast(s Severity) func(Finding) bool {
	return func(f Finding) bool { return f.Severity.AtLeast(s) }
}

func lintAtLeast(s Severity) func(Finding) bool {
	return func(f Finding) bool {
		d, ok := Lookup(f.Code)
		return ok && d.Origin == OriginLint && f.Severity.AtLeast(s)
	}
}

func codes(cs ...Code) func(Finding) bool {
	return func(f Finding) bool {
		for _, c := range cs {
			if f.Code == c {
				return true
			}
		}
		return false
	}
}

// Gates are every gate --fail-on knows, the severities first. Which a
// command takes is the command's business: see CheckGates.
var Gates = []Gate{
	{Name: "error", Help: "a finding that is an error", match: atLeast(Error)},
	{Name: "warning", Help: "a finding that is a warning or an error", match: atLeast(Warning)},
	{Name: "info", Help: "any finding", match: atLeast(Info)},
	{Name: "cut", Help: "a description or the instructions cut on a host", match: codes(Cut, InstructionsCut)},
	{Name: "schema-drop", Help: "a host drops a tool's property descriptions", match: codes(SchemaDrop)},
	{Name: "lint-error", Help: "a lint finding that is an error", match: lintAtLeast(Error)},
	{Name: "lint-warning", Help: "a lint finding that is a warning or an error", match: lintAtLeast(Warning)},
	{Name: "drift", Help: "a difference from the reference"},
	{Name: "knee", Help: "a load step broke --max-p99 or --max-errors"},
}

// SeverityGates are the gates every command that has findings takes.
var SeverityGates = []string{"error", "warning", "info"}

// LookupGate finds a gate by name.
func LookupGate(name string) (Gate, bool) {
	for _, g := range Gates {
		if g.Name == name {
			return g, true
		}
	}
	return Gate{}, false
}

// GateError is a requested gate that the command cannot trip. A command
// refuses it rather than pass silently.
type GateError struct {
	Command string
	Gate    string
	Known   bool     // a gate of another command, not a typo
	Allowed []string // what the command takes
}

func (e *GateError) Error() string {
	if !e.Known {
		return fmt.Sprintf("--fail-on %q: %s takes %s", e.Gate, e.Command, strings.Join(e.Allowed, ", "))
	}
	return fmt.Sprintf("--fail-on %s does not apply to %s, which takes %s", e.Gate, e.Command, strings.Join(e.Allowed, ", "))
}

// CheckGates checks the gates requested of a command against what it
// takes: the severity gates and extra. It returns a *GateError for the
// first one the command cannot trip, or nil.
func CheckGates(command string, requested []string, extra ...string) error {
	allowed := append(append([]string(nil), SeverityGates...), extra...)
	for _, g := range requested {
		if !slices.Contains(allowed, g) {
			_, known := LookupGate(g)
			return &GateError{Command: command, Gate: g, Known: known, Allowed: allowed}
		}
	}
	return nil
}

// Tripped is a gate that failed, with what failed it.
type Tripped struct {
	Gate  string
	Count int
	// Findings are the findings that tripped it, in the order given; none
	// for a counted gate.
	Findings []Finding
}

// String is the gate as the exit message names it: "warning (3)".
func (t Tripped) String() string { return fmt.Sprintf("%s (%d)", t.Gate, t.Count) }

// Trip applies gates, in the order given, to a command's findings. A
// gate trips when the findings it picks plus counts[gate] (what the
// command counted for gates that are not findings, such as drift) are
// more than zero. Unknown gate names trip only by their count: checking
// them is CheckGates' job.
func Trip(gates []string, fs []Finding, counts map[string]int) []Tripped {
	var out []Tripped
	for _, name := range gates {
		t := Tripped{Gate: name, Count: counts[name]}
		if g, ok := LookupGate(name); ok && g.match != nil {
			for _, f := range fs {
				if g.match(f) {
					t.Findings = append(t.Findings, f)
				}
			}
			t.Count += Total(t.Findings) // a folded finding counts for all it stands for
		}
		if t.Count > 0 {
			out = append(out, t)
		}
	}
	return out
}

// Describe lists tripped gates as the exit message does, each finding
// counted once, at its own severity: with --fail-on error,warning one
// error reads "error (1)", not "error (1), warning (1)", and --fail-on
// warning tripped by an error says so. A finding a gate that is no
// severity picks (cut, lint-error) is counted under that gate, unless an
// earlier gate counted it; a counted gate (drift) adds its count:
// "error (1), warning (2), drift (1)".
func Describe(ts []Tripped) string {
	// The same finding is in every gate it trips; identical findings
	// (same code, tool and message) are told apart by how many of them
	// one gate holds.
	type key struct{ code, sev, tool, msg string }
	most := map[key]int{}
	for _, t := range ts {
		in := map[key]int{}
		for _, f := range t.Findings {
			k := key{f.Code.String(), string(f.Severity), f.Tool, f.Message}
			in[k]++
			most[k] = max(most[k], in[k])
		}
	}
	counted := map[key]int{}
	counts := map[string]int{}
	var order []string
	add := func(bucket string, n int) {
		if n == 0 {
			return
		}
		if _, ok := counts[bucket]; !ok {
			order = append(order, bucket)
		}
		counts[bucket] += n
	}
	for _, t := range ts {
		severity := slices.Contains(SeverityGates, t.Gate)
		for _, f := range t.Findings {
			k := key{f.Code.String(), string(f.Severity), f.Tool, f.Message}
			if counted[k] >= most[k] {
				continue
			}
			counted[k]++
			if severity {
				add(string(f.Severity), 1)
			} else {
				add(t.Gate, 1)
			}
		}
		add(t.Gate, t.Count-len(t.Findings))
	}
	// Severities first, most severe first; then the other gates in the
	// order given.
	rank := func(b string) int {
		if i := slices.Index(SeverityGates, b); i >= 0 {
			return i
		}
		return len(SeverityGates)
	}
	slices.SortStableFunc(order, func(a, b string) int { return rank(a) - rank(b) })
	s := make([]string, len(order))
	for i, b := range order {
		s[i] = fmt.Sprintf("%s (%d)", b, counts[b])
	}
	return strings.Join(s, ", ")
}
