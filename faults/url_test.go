package faults

import (
	"strings"
	"testing"
)

// A URL target has no process mcpprobe started: the faults that kill one,
// write on its stdout or start it again are refused, each named, and the
// refusal names the faults that do apply.
func TestCheckURL(t *testing.T) {
	tests := []struct {
		name    string
		v       Values
		restart bool
		refused []string // flags the error must name; none: accepted
	}{
		{"crash", Values{"crash-at": "2"}, false, []string{"--crash-at"}},
		{"exit at startup", Values{"exit-at-startup": "true"}, false, []string{"--exit-at-startup"}},
		{"pollute", Values{"pollute": "line"}, false, []string{"--pollute"}},
		{"restart alone", Values{"drop-at": "2"}, true, []string{"--restart"}},
		{"crash and restart", Values{"crash-at": "2"}, true, []string{"--crash-at", "--restart"}},
		{"drop", Values{"drop-at": "2"}, false, nil},
		{"garble and slow", Values{"garble-at": "1", "slow-at": "2"}, false, nil},
		{"no fault", Values{}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := mustPlan(t, tc.v).CheckURL(tc.restart)
			if len(tc.refused) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %v refused", tc.refused)
			}
			for _, f := range append(tc.refused, "--drop-at", "--garble-at", "--slow-at") {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("the refusal does not name %s: %v", f, err)
				}
			}
		})
	}
	got := strings.Join(URLFaults(), " ")
	if got != "--slow-at --drop-at --garble-at" {
		t.Errorf("URLFaults() = %q", got)
	}
}
