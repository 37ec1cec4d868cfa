package report

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// TestCanonical: findings come out in one order whatever order they came
// in: severity, code, tool, then message, numbers compared as numbers.
func TestCanonical(t *testing.T) {
	want := []findings.Finding{
		findings.New(findings.InvalidMessage, "stdout line 2: neither a request, a notification nor a response"),
		findings.New(findings.InvalidMessage, "stdout line 9: neither a request, a notification nor a response"),
		findings.New(findings.InvalidMessage, "stdout line 10: neither a request, a notification nor a response"),
		findings.New(findings.EmptyDescription, "there is no description").About("alpha"),
		findings.New(findings.EmptyDescription, "there is no description").About("beta"),
		findings.New(findings.UnknownID, "a response with id 999 that matches no request in flight (stdout line 4)"),
		findings.New(findings.Notification, "the server sent notifications/message ×1 during the probe"),
		findings.New(findings.Notification, "the server sent notifications/tools/list_changed ×1 during the probe"),
		findings.New(findings.ServerRequest, "the server sent ping ×1 during the probe; mcpprobe answered it"),
		findings.New(findings.ServerRequest, "the server sent roots/list ×1 during the probe; mcpprobe answered -32601, as it declares no such capability"),
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		got := slices.Clone(want)
		rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		Canonical(got)
		if !slices.Equal(got, want) {
			t.Fatalf("got %v", got)
		}
	}
}

func TestNaturalLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		less bool
	}{
		{"line 9", "line 10", true},
		{"line 10", "line 9", false},
		{"line 010", "line 10", false}, // equal numbers: fewer leading zeros first
		{"line 10", "line 010", true},
		{"a", "b", true},
		{"a", "a1", true},
		{"x2y", "x2z", true},
		{"same", "same", false},
		{"", "a", true},
	} {
		if got := naturalLess(tc.a, tc.b); got != tc.less {
			t.Errorf("naturalLess(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.less)
		}
	}
}
