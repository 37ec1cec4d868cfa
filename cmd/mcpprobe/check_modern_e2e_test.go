//go:build e2e

package main

// check, end to end, for the 2026-07-28 era's own checks and the
// deterministic tools/list: each break flag of rawserver's modern.go is
// caught by exactly the check that names it, and rawserver -modern (and
// -modern-full) with none of them gets no fail and no warning.

import (
	"path/filepath"
	"strings"
	"testing"
)

// flaggedIn lists a check run's fail and warn verdicts as "era id outcome".
func flaggedIn(t *testing.T, args ...string) ([]string, string, result) {
	t.Helper()
	v, r := checkJSON(t, append([]string{"--skip-malformed", "--"}, args...)...)
	var flagged []string
	for _, e := range v.Get("check.eras").Array() {
		for _, y := range e.Get("verdicts").Array() {
			if o := y.Get("outcome").String(); o == "fail" || o == "warn" {
				flagged = append(flagged, e.Get("era").String()+" "+y.Get("id").String()+" "+o)
			}
		}
	}
	return flagged, verdictLines(v), r
}

func TestCheckModernBreaks(t *testing.T) {
	t.Parallel()
	order := filepath.Join(t.TempDir(), "starts")
	for _, tc := range []struct {
		flags []string
		want  string // "era id outcome"
	}{
		{[]string{"-modern-no-result-type"}, "modern lifecycle.result-type fail"},
		{[]string{"-modern-no-ttl"}, "modern caching.ttl-ms fail"},
		{[]string{"-modern-negative-ttl"}, "modern caching.ttl-ms fail"},
		{[]string{"-modern-no-cache-scope"}, "modern caching.cache-scope fail"},
		{[]string{"-modern-bad-cache-scope"}, "modern caching.cache-scope warn"},
		{[]string{"-pages", "2", "-modern-pages-mixed-scope"}, "modern caching.cache-scope fail"},
		{[]string{"-tools-order-random"}, "modern tools.list-deterministic warn"},
		{[]string{"-tools-order-per-start", order}, "modern tools.list-deterministic warn"},
		{[]string{"-unsupported-no-list"}, "modern versioning.unsupported-version fail"},
		{[]string{"-unsupported-ignored"}, "modern versioning.unsupported-version fail"},
		{[]string{"-input-required-empty"}, "modern mrtr.round-trip fail"},
		{[]string{"-input-required-ignores-state"}, "modern mrtr.round-trip warn"},
		{[]string{"-input-required-accepts-tampered"}, "modern mrtr.tampered-state warn"},
		{[]string{"-tasks-bad-shape"}, "modern tasks.extension-shape fail"},
		{[]string{"-tasks-unasked"}, "modern tasks.extension-shape fail"},
		{[]string{"-listen-missing"}, "modern subscriptions.listen warn"},
		{[]string{"-listen-no-ack"}, "modern subscriptions.listen fail"},
		{[]string{"-log-level-ignored"}, "modern logging.per-request-level fail"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			flagged, lines, r := flaggedIn(t, append([]string{bin.raw, "-modern"}, tc.flags...)...)
			if got := strings.Join(flagged, ", "); got != tc.want {
				t.Errorf("flagged %q, want %q\n%s", got, tc.want, lines)
			}
			if code := map[bool]int{true: 1, false: 0}[strings.HasSuffix(tc.want, " fail")]; r.code != code {
				t.Errorf("exit %d, want %d\n%s", r.code, code, r.stderr)
			}
		})
	}
}

// rawserver -modern, and -modern-full with every modern check applicable,
// break nothing: each of this era's checks passes where it applies.
func TestCheckModernClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags  []string
		passes []string
	}{
		{[]string{"-modern"}, []string{"tools.list-deterministic", "caching.ttl-ms", "caching.cache-scope", "versioning.unsupported-version", "subscriptions.listen", "lifecycle.result-type"}},
		{[]string{"-modern", "-modern-full"}, []string{"tools.list-deterministic", "caching.ttl-ms", "caching.cache-scope", "versioning.unsupported-version",
			"mrtr.round-trip", "mrtr.tampered-state", "tasks.extension-shape", "subscriptions.listen", "logging.per-request-level", "lifecycle.result-type"}},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			v, r := checkJSON(t, append([]string{"--skip-malformed", "--", bin.raw}, tc.flags...)...)
			if r.code != 0 || v.Get("check.outcomes.fail").Int() != 0 || v.Get("check.outcomes.warn").Int() != 0 {
				t.Errorf("exit %d:\n%s", r.code, verdictLines(v))
			}
			for _, id := range tc.passes {
				if o := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="` + id + `").outcome`).String(); o != "pass" {
					t.Errorf("%s: %s, want pass\n%s", id, o, verdictLines(v))
				}
			}
		})
	}
}

// The deterministic check shows where the bytes first differ, in both
// eras; legacy, whose text says nothing of the order, observes it.
func TestCheckDeterministicShowsTheDifference(t *testing.T) {
	t.Parallel()
	v, _ := checkJSON(t, "--skip-malformed", "--", bin.raw, "-tools-order-random")
	x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="tools.list-deterministic")`)
	if x.Get("outcome").String() != "observed" || !strings.Contains(x.Get("got").String(), "result bytes differ from call 1 at byte 19:") ||
		!strings.Contains(x.Get("why").String(), "another order (call 2 in the same session)") {
		t.Errorf("legacy verdict: %s", x.Raw)
	}
}

// wire says so too (issue 28's cache stability): a second tools/list with
// the same tools in the same order and other bytes is
// tools-not-byte-identical, with the first differing byte; a reorder is
// tools-unstable, as before, and a stable list neither.
func TestWireToolsNotByteIdentical(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		code  string
		text  string
	}{
		{[]string{"-tools-bytes-per-call"}, "tools-not-byte-identical", "first page's result differs at byte 27"},
		{[]string{"-tools-order-random"}, "tools-unstable", "same tools in another order"},
		{nil, "", ""},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, append([]string{"wire", "--json", "--quiet", "--", bin.raw}, tc.flags...)...)
			v := envelope(t, "wire", r.stdout)
			var got []string
			for _, f := range v.Get("findings").Array() {
				if c := f.Get("code").String(); c == "tools-not-byte-identical" || c == "tools-unstable" {
					got = append(got, c)
					if !strings.Contains(f.Get("message").String(), tc.text) {
						t.Errorf("%s: %s", c, f.Get("message"))
					}
				}
			}
			if strings.Join(got, ",") != tc.code {
				t.Errorf("findings %v, want %q\n%s", got, tc.code, r.stdout)
			}
		})
	}
}
