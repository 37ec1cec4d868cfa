package faults

import (
	"os"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	ks := Kinds()
	var names []string
	for i, k := range ks {
		names = append(names, k.Name)
		if i > 0 && ks[i-1].Rank >= k.Rank {
			t.Errorf("%s listed after %s", k.Name, ks[i-1].Name)
		}
		if k.Where != Anywhere && k.WhyOnly == "" {
			t.Errorf("%s acts in %s only and does not say why", k.Name, k.Where)
		}
		// One file per fault, with its test beside it.
		file := strings.ReplaceAll(k.Name, "-", "")
		for _, f := range []string{file + ".go", file + "_test.go"} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("fault %s: %v", k.Name, err)
			}
		}
		if got, ok := Lookup(k.Name); !ok || got.Rank != k.Rank {
			t.Errorf("Lookup(%q) = %v", k.Name, ok)
		}
	}
	// The listing order is the order of the flags in --help.
	if got := strings.Join(names, " "); got != "crash slow drop garble pollute split stderr-flood exit-at-startup" {
		t.Errorf("kinds: %s", got)
	}
}

func TestParsePlan(t *testing.T) {
	tests := []struct {
		v    Values
		want string // the plan, or the error
	}{
		{Values{}, "no fault"},
		{Values{"crash-at": "6"}, "crash at call 6"},
		{Values{"slow-at": "2"}, "slow at call 2 (3s)"}, // --delay's default
		{Values{"slow-at": "tool:x", "delay": "1s"}, "slow at every call of x (1s)"},
		{Values{"pollute": "line"}, "pollute (line) at call 1"}, // --pollute-at's default
		{Values{"pollute-at": "4"}, "no fault"},                 // only --pollute turns it on
		{Values{"drop-at": "p:0.25", "garble-at": "3", "split": "true", "exit-at-startup": "true"},
			"drop at each call with p=0.25, garble at call 3, split frames, exit at startup"},
		{Values{"split": "false", "stderr-flood": "0"}, "no fault"},
		{Values{"crash-at": "0"}, "no fault"}, // zero is "not given", as a CLI reports an unset number
		{Values{"crash-at": "six"}, `error: --crash-at "six": want a call number (1, 2, …), tool:NAME or p:PROBABILITY`},
		{Values{"pollute": "line", "pollute-at": "p:2"}, `error: --pollute-at "p:2": want p:PROBABILITY in (0, 1]`},
		{Values{"slow-at": "1", "delay": "soon"}, `error: --delay "soon": want a duration such as 3s`},
	}
	for _, tc := range tests {
		p, err := ParsePlan(tc.v.Get, 1)
		got := p.String()
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("ParsePlan(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		v     Values
		where Front
		err   string
	}{
		{Values{"crash-at": "1", "pollute": "partial"}, InShim, ""},
		{Values{"crash-at": "1", "split": "true"}, InProxy, ""},
		{Values{"crash-at": "1", "split": "true"}, InShim, "--split acts only in mcpprobe proxy"},
		{Values{"stderr-flood": "5"}, InShim, "--stderr-flood acts only in mcpprobe proxy"},
	}
	for _, tc := range tests {
		p, err := ParsePlan(tc.v.Get, 1)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Check(tc.where)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("%v in %s: %v", tc.v, tc.where, err)
		}
		// The front ends refuse it too, not just the command line.
		if _, err2 := NewEngine(p, Frontend{Where: tc.where}); (err2 == nil) != (err == nil) {
			t.Errorf("%v: newEngine disagrees with Check: %v", tc.v, err2)
		}
	}
}
