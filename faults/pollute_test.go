package faults

import (
	"strings"
	"testing"
)

func TestPollute(t *testing.T) {
	tests := []struct {
		name  string
		v     Values
		want  []string
		notes []string
	}{
		{"a log line before reply 2", Values{"pollute": "line", "pollute-at": "2"},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b")), "C [debug] cache warmed in 12ms\n", sent("C", reply(2))},
			[]string{"2: a stray stdout line before reply 2"}},
		{"text without a newline before reply 1 (the default call)", Values{"pollute": "partial"},
			[]string{sent("S", call(1, "a")), "C Loading configuration...", sent("C", reply(1)), sent("S", call(2, "b")), sent("C", reply(2))},
			[]string{"1: stray text without a newline glued to reply 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Anywhere, tc.v, 1)
			diffLog(t, r.play("> "+call(1, "a"), "< "+reply(1), "> "+call(2, "b"), "< "+reply(2)), tc.want)
			diffLog(t, r.notes(), tc.notes)
		})
	}
	if _, err := ParsePlan(Values{"pollute": "banner"}.Get, 1); err == nil || !strings.Contains(err.Error(), "--pollute \"banner\": want line or partial") {
		t.Errorf("an unknown kind: %v", err)
	}
}
