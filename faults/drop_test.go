package faults

import "testing"

func TestDrop(t *testing.T) {
	tests := []struct {
		name  string
		v     Values
		want  []string
		notes []string
	}{
		{"the reply to call 2", Values{"drop-at": "2"},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b")), sent("S", call(3, "a")), sent("C", reply(3))},
			[]string{"2: reply dropped (call 2)"}},
		{"every call of a", Values{"drop-at": "tool:a"},
			[]string{sent("S", call(1, "a")), sent("S", call(2, "b")), sent("C", reply(2)), sent("S", call(3, "a"))},
			[]string{"1: reply dropped (call 1)", "3: reply dropped (call 3)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Anywhere, tc.v, 1)
			got := r.play("> "+call(1, "a"), "< "+reply(1), "> "+call(2, "b"), "< "+reply(2), "> "+call(3, "a"), "< "+reply(3))
			diffLog(t, got, tc.want)
			diffLog(t, r.notes(), tc.notes)
		})
	}
}
