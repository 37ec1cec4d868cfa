package faults

import "testing"

func TestPolicies(t *testing.T) {
	tests := []struct {
		p             Policy
		end, reported bool
	}{{Strict, true, true}, {Lenient, false, false}, {TS, false, true}, {Spec, false, true}}
	for _, tc := range tests {
		end, rep := tc.p.onBadLine()
		if end != tc.end || rep != tc.reported {
			t.Errorf("%s: end %v reported %v", tc.p, end, rep)
		}
	}
	if _, ok := ParsePolicy("tolerant"); ok {
		t.Error("unknown policy accepted")
	}
}
