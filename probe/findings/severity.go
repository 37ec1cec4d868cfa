// Package findings holds what mcpprobe can tell a server's author: the
// registry of finding codes (codes.go), the Finding itself, and the
// --fail-on gates that findings trip. It depends on nothing else in
// mcpprobe, so every analysis, renderer and command can share it.
package findings

// Severity is how much a finding matters. Its value is what the text and
// JSON output print, so the strings are part of the output format.
type Severity string

// The severities, most severe first.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Severities lists every severity, most severe first.
var Severities = []Severity{Error, Warning, Info}

// Rank orders severities: a more severe one ranks higher. An unknown
// severity ranks 0, below info, so that it never trips a gate.
func (s Severity) Rank() int {
	switch s {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// AtLeast reports whether s is as severe as min or more.
func (s Severity) AtLeast(min Severity) bool {
	return s.Rank() > 0 && s.Rank() >= min.Rank()
}

// Valid reports whether s is one of the three severities.
func (s Severity) Valid() bool { return s.Rank() > 0 }

// ParseSeverity reads a severity as the output prints it.
func ParseSeverity(v string) (Severity, bool) {
	s := Severity(v)
	return s, s.Valid()
}
