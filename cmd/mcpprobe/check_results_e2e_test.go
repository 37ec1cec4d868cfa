//go:build e2e

package main

import (
	"strings"
	"testing"
)

// The results checks: rawserver -results answers well formed, and each of
// its breaks is caught by exactly the check that names it, with the
// outcome its clause's keyword gives (the schema's shapes carry no
// keyword and warn; outputSchema and x-mcp-header are MUSTs and fail).
func TestCheckResultsBreaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags   []string
		id      string // "" for none flagged
		era     string
		outcome string
		why     string
		code    int
	}{
		{[]string{"-results"}, "", "", "", "", 0},
		{[]string{"-results", "-modern"}, "", "", "", "", 0},
		{[]string{"-results-bad-block"}, "tools.call-result", "legacy", "warn", "text block 0 has no `text`", 0},
		{[]string{"-results-bad-structured"}, "tools.structured-content", "legacy", "fail", "/count", 1},
		{[]string{"-results-no-structured"}, "tools.structured-content", "legacy", "fail", "without structuredContent", 1},
		{[]string{"-results-bad-read"}, "resources.read-result", "legacy", "warn", "neither `text` nor `blob`", 0},
		{[]string{"-results-bad-prompt"}, "prompts.get-result", "legacy", "warn", `role "system"`, 0},
		{[]string{"-x-mcp-header-bad", "-modern"}, "tools.x-mcp-header", "modern", "fail", `"My Region"`, 1},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			v, r := checkJSON(t, append([]string{"--skip-malformed", "--", bin.raw}, tc.flags...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			var flagged []string
			for _, e := range v.Get("check.eras").Array() {
				for _, x := range e.Get("verdicts").Array() {
					if o := x.Get("outcome").String(); o == "fail" || o == "warn" {
						flagged = append(flagged, e.Get("era").String()+" "+x.Get("id").String()+" "+o)
						if !strings.Contains(x.Get("why").String(), tc.why) {
							t.Errorf("%s: why %q lacks %q", x.Get("id"), x.Get("why"), tc.why)
						}
					}
				}
			}
			want := ""
			if tc.id != "" {
				want = tc.era + " " + tc.id + " " + tc.outcome
			}
			if strings.Join(flagged, ", ") != want {
				t.Errorf("flagged %v, want %q\n%s", flagged, want, verdictLines(v))
			}
			// only the read-only tool is called: the pass names the tools it judged
			if tc.id == "" {
				why := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="tools.call-result").why`).String()
				if !strings.Contains(why, "each result of lookup has") || strings.Contains(why, "write") {
					t.Errorf("tools.call-result: %q, want only lookup called", why)
				}
			}
			for _, id := range []string{"tools.call-result", "resources.read-result", "prompts.get-result"} {
				if o := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="` + id + `").outcome`).String(); o == "not-applicable" || o == "" {
					t.Errorf("%s not judged (%q)", id, o)
				}
			}
		})
	}
}
