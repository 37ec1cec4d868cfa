package findings

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestTrip(t *testing.T) {
	noise := New(StdoutNoise, "noise")
	batch := New(Batch, "batch")
	http := New(HTTP, "http")
	cut := New(Cut, "cut").About("a")
	icut := New(InstructionsCut, "icut")
	drop := New(SchemaDrop, "drop").About("a")
	hidden := New(HiddenChars, "hidden").About("a")
	empty := New(EmptyDescription, "empty").About("b")
	emptyPrompt := NewAt(Info, EmptyDescription, "empty prompt").About("prompt:p")
	all := []Finding{noise, batch, http, cut, icut, drop, hidden, empty, emptyPrompt}

	type trip struct {
		gate  string
		count int
		fs    []Finding
	}
	tests := []struct {
		name   string
		gates  []string
		fs     []Finding
		counts map[string]int
		want   []trip
	}{
		{"no gates", nil, all, nil, nil},
		{"no findings", []string{"error", "warning", "info"}, nil, nil, nil},
		{"error counts errors only", []string{"error"}, all, nil,
			[]trip{{"error", 2, []Finding{noise, hidden}}}},
		{"warning counts errors too", []string{"warning"}, all, nil,
			[]trip{{"warning", 7, []Finding{noise, batch, cut, icut, drop, hidden, empty}}}},
		{"info counts everything", []string{"info"}, all, nil,
			[]trip{{"info", 9, all}}},
		{"a gate that does not trip is left out", []string{"error", "warning"}, []Finding{batch}, nil,
			[]trip{{"warning", 1, []Finding{batch}}}},
		{"cut counts description and instruction cuts", []string{"cut"}, all, nil,
			[]trip{{"cut", 2, []Finding{cut, icut}}}},
		{"schema-drop", []string{"schema-drop"}, all, nil,
			[]trip{{"schema-drop", 1, []Finding{drop}}}},
		{"lint-error counts lint findings only", []string{"lint-error"}, all, nil,
			[]trip{{"lint-error", 1, []Finding{hidden}}}},
		{"lint-warning leaves the prompt's info out", []string{"lint-warning"}, all, nil,
			[]trip{{"lint-warning", 2, []Finding{hidden, empty}}}},
		{"drift is counted by the command", []string{"drift"}, nil, map[string]int{"drift": 3},
			[]trip{{"drift", 3, nil}}},
		{"drift of zero does not trip", []string{"drift"}, all, map[string]int{"drift": 0}, nil},
		{"counts add to findings", []string{"warning"}, []Finding{batch}, map[string]int{"warning": 2},
			[]trip{{"warning", 3, []Finding{batch}}}},
		{"order is the gates'", []string{"cut", "error"}, all, nil,
			[]trip{{"cut", 2, []Finding{cut, icut}}, {"error", 2, []Finding{noise, hidden}}}},
		{"unknown gate trips by count only", []string{"nope"}, all, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Trip(tt.gates, tt.fs, tt.counts)
			var want []Tripped
			for _, w := range tt.want {
				want = append(want, Tripped{Gate: w.gate, Count: w.count, Findings: w.fs})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Trip = %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	// StdoutNoise is an error, Batch and HTTP are below it; Cut is a
	// warning a gate of its own also picks.
	fs := []Finding{New(Batch, "b"), New(StdoutNoise, "n"), New(HTTP, "h")}
	tests := []struct {
		gates  []string
		fs     []Finding
		counts map[string]int
		want   string
	}{
		{[]string{"error", "warning"}, []Finding{New(StdoutNoise, "n")}, nil, "error (1)"},
		{[]string{"warning"}, []Finding{New(StdoutNoise, "n")}, nil, "error (1)"},
		{[]string{"warning", "error"}, []Finding{New(StdoutNoise, "n")}, nil, "error (1)"},
		{[]string{"info", "warning", "error"}, fs, nil, describeWant(fs)},
		{[]string{"warning", "drift"}, fs, map[string]int{"drift": 1}, "error (1), warning (1), drift (1)"},
		{[]string{"cut", "warning"}, []Finding{New(Cut, "c"), New(Cut, "c")}, nil, "cut (2)"},
		{[]string{"warning", "cut"}, []Finding{New(Cut, "c"), New(Cut, "c")}, nil, "warning (2)"},
		{nil, nil, nil, ""},
	}
	for _, tt := range tests {
		if got := Describe(Trip(tt.gates, tt.fs, tt.counts)); got != tt.want {
			t.Errorf("--fail-on %v on %d findings: Describe = %q, want %q", tt.gates, len(tt.fs), got, tt.want)
		}
	}
}

// describeWant counts findings by severity, most severe first: what
// Describe says when a severity gate picks every one.
func describeWant(fs []Finding) string {
	n := map[Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	var s []string
	for _, sev := range []Severity{Error, Warning, Info} {
		if n[sev] > 0 {
			s = append(s, fmt.Sprintf("%s (%d)", sev, n[sev]))
		}
	}
	return strings.Join(s, ", ")
}

func TestCheckGates(t *testing.T) {
	tests := []struct {
		name      string
		requested []string
		extra     []string
		msg       string // "" for no error
	}{
		{"severities always", []string{"error", "warning", "info"}, nil, ""},
		{"extra", []string{"cut", "lint-warning"}, []string{"cut", "schema-drop", "lint-error", "lint-warning"}, ""},
		{"none requested", nil, nil, ""},
		{"typo", []string{"warn"}, nil, `--fail-on "warn": wire takes error, warning, info`},
		{"another command's gate", []string{"drift"}, []string{"cut"}, "--fail-on drift does not apply to wire, which takes error, warning, info, cut"},
		{"first bad one", []string{"error", "cut", "x"}, nil, "--fail-on cut does not apply to wire, which takes error, warning, info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckGates("wire", tt.requested, tt.extra...)
			if tt.msg == "" {
				if err != nil {
					t.Errorf("CheckGates: %v", err)
				}
				return
			}
			var ge *GateError
			if !errors.As(err, &ge) || err.Error() != tt.msg {
				t.Errorf("CheckGates = %v, want %s", err, tt.msg)
			}
		})
	}
}

// TestGates checks that every gate --fail-on documents exists, once.
func TestGates(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range Gates {
		if seen[g.Name] || g.Help == "" {
			t.Errorf("gate %q repeated or without help", g.Name)
		}
		seen[g.Name] = true
	}
	for _, n := range append(append([]string(nil), SeverityGates...), "cut", "schema-drop", "lint-error", "lint-warning", "drift") {
		if g, ok := LookupGate(n); !ok || g.Counted() != (n == "drift") {
			t.Errorf("gate %s: %+v, %v", n, g, ok)
		}
	}
}
