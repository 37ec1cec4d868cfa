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

// Each injected bug is flagged by the check that names it, and only by it
// (a prompts/list answered input_required, in both eras, is also no list,
// which prompts.list-served warns of); rawserver -results, modern and legacy,
// flags nothing.
func TestCheckServerSends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-results"}, ""},
		{[]string{"-results", "-modern"}, ""},
		{[]string{"-results", "-call-sends-elicitation"}, "legacy elicitation.request-shape fail"},
		{[]string{"-results", "-call-sends-sampling"}, "legacy sampling.request-shape fail"},
		{[]string{"-results", "-call-sends-log"}, "legacy logging.message-declared fail"},
		{[]string{"-results", "-call-sends-progress"}, "legacy progress.known-token fail"},
		{[]string{"-results", "-modern", "-read-unknown-empty"}, "modern resources.read-unknown fail"},
		{[]string{"-results", "-modern", "-prompts-list-input-required"}, "legacy prompts.list-served warn, modern prompts.list-served warn, modern mrtr.supported-requests fail"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			flagged, lines, r := flaggedIn(t, append([]string{bin.raw}, tc.flags...)...)
			if got := strings.Join(flagged, ", "); got != tc.want {
				t.Errorf("flagged %q, want %q\n%s", got, tc.want, lines)
			}
			if code := map[bool]int{true: 1, false: 0}[strings.Contains(tc.want, " fail")]; r.code != code {
				t.Errorf("exit %d, want %d\n%s", r.code, code, r.stderr)
			}
		})
	}
}
