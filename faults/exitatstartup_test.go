package faults

import "testing"

func TestExitAtStartup(t *testing.T) {
	r := newRig(t, Anywhere, Values{"exit-at-startup": "true"}, 1)
	if err := r.e.Open(); err != nil {
		t.Fatal(err)
	}
	diffLog(t, r.play("> "+call(1, "a")), []string{"KILL", sent("S", call(1, "a"))})
	diffLog(t, r.notes(), []string{"0: server killed at startup, before its handshake"})

	p, _ := ParsePlan(Values{"exit-at-startup": "true", "drop-at": "1"}.Get, 1)
	if !p.ActsAtStart() || p.Restarted().ActsAtStart() || p.Restarted().String() != "drop at call 1" {
		t.Errorf("a restarted server is spared the opening, and only it: %q", p.Restarted())
	}
}
