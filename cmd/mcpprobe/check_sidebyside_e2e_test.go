//go:build e2e

package main

// check, end to end, for the checks added to judge what the official
// suite's newer scenarios judge (docs/conformance.md): each is caught by
// its injected bug, and passes on the fixture without it.

import (
	"strings"
	"testing"
)

func TestCheckDeclaredInputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags   []string
		want    string // the flagged verdicts
		outcome string // mrtr.declared-inputs
	}{
		{[]string{"-modern", "-modern-full"}, "", "pass"},
		{[]string{"-modern", "-modern-full", "-input-required-ignores-caps"}, "modern mrtr.declared-inputs fail", "fail"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			v, _ := checkJSON(t, append([]string{"--skip-malformed", "--era", "modern", "--", bin.raw}, tc.flags...)...)
			var flagged []string
			for _, y := range v.Get(`check.eras.#(era=="modern").verdicts`).Array() {
				if o := y.Get("outcome").String(); o == "fail" || o == "warn" {
					flagged = append(flagged, "modern "+y.Get("id").String()+" "+o)
				}
			}
			if got := strings.Join(flagged, ", "); got != tc.want {
				t.Errorf("flagged %q, want %q\n%s", got, tc.want, verdictLines(v))
			}
			if o := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="mrtr.declared-inputs").outcome`).String(); o != tc.outcome {
				t.Errorf("mrtr.declared-inputs: %s, want %s\n%s", o, tc.outcome, verdictLines(v))
			}
		})
	}
}
