package faults

import (
	"strings"
	"testing"
)

func TestStderrFlood(t *testing.T) {
	tests := []struct {
		n    string
		want []string
	}{
		{"0", nil},
		{"2", []string{"E [mcpprobe proxy] stderr flood line 1 of 2\n", "E [mcpprobe proxy] stderr flood line 2 of 2\n"}},
	}
	for _, tc := range tests {
		r := newRig(t, InProxy, Values{"stderr-flood": tc.n}, 1)
		if err := r.e.Open(); err != nil {
			t.Fatal(err)
		}
		diffLog(t, r.play("> "+call(1, "a"), "< "+reply(1)), append(tc.want, sent("S", call(1, "a")), sent("C", reply(1))))
	}
	for _, bad := range []string{"-1", "many"} {
		if _, err := ParsePlan(Values{"stderr-flood": bad}.Get, 1); err == nil {
			t.Errorf("--stderr-flood %s accepted", bad)
		}
	}
	p, _ := ParsePlan(Values{"stderr-flood": "3"}.Get, 1)
	if err := p.Check(InShim); err == nil || !strings.HasPrefix(err.Error(), "--stderr-flood acts only in mcpprobe proxy: ") {
		t.Errorf("Check(InShim) = %v", err)
	}
}
