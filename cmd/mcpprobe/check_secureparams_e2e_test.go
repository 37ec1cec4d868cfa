//go:build e2e

package main

// check, end to end, for the Secure Parameters extension (SEP-3221,
// issue 39): rawserver -secure-params good passes every secure-params.*
// check in both eras, and each bug mode is caught by exactly the check
// that names it, with the outcome its clause's keyword gives.

import (
	"strings"
	"testing"
)

func TestCheckSecureParamsBreaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		want string // the check flagged in both eras, with its outcome
	}{
		{"overlap", "secure-params.no-overlap fail"},
		{"shape", "secure-params.schema-object fail"},
		{"list-unnegotiated", "secure-params.omit-unnegotiated warn"},
		{"no-32021", "secure-params.call-unnegotiated fail"},
		{"no-32602", "secure-params.collision fail"},
		{"echo", "secure-params.no-echo fail"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			flagged, lines, r := flaggedIn(t, bin.raw, "-modern", "-secure-params", tc.mode)
			want := "legacy " + tc.want + ", modern " + tc.want
			if got := strings.Join(flagged, ", "); got != want {
				t.Errorf("flagged %q, want %q\n%s", got, want, lines)
			}
			if code := map[bool]int{true: 1, false: 0}[strings.HasSuffix(tc.want, " fail")]; r.code != code {
				t.Errorf("exit %d, want %d\n%s", r.code, code, r.stderr)
			}
		})
	}
}

func TestCheckSecureParamsGood(t *testing.T) {
	t.Parallel()
	v, r := checkJSON(t, "--skip-malformed", "--", bin.raw, "-modern", "-secure-params", "good")
	if r.code != 0 {
		t.Errorf("exit %d\n%s", r.code, verdictLines(v))
	}
	for _, era := range []string{"legacy", "modern"} {
		for _, id := range []string{"secure-params.schema-object", "secure-params.no-overlap", "secure-params.omit-unnegotiated",
			"secure-params.call-unnegotiated", "secure-params.collision", "secure-params.no-echo"} {
			x := v.Get(`check.eras.#(era=="` + era + `").verdicts.#(id=="` + id + `")`)
			if x.Get("outcome").String() != "pass" || !strings.Contains(x.Get("clause.url").String(), "3221-secure-parameters.md#") {
				t.Errorf("%s %s: %s", era, id, x.Raw)
			}
		}
	}
}

// Consent: with --no-tool-calls nothing is called, so the checks that
// need a call are not run; the definition checks still judge.
func TestCheckSecureParamsNoCalls(t *testing.T) {
	t.Parallel()
	v, r := checkJSON(t, "--skip-malformed", "--no-tool-calls", "--", bin.raw, "-modern", "-secure-params", "no-32602")
	if r.code != 0 {
		t.Errorf("exit %d\n%s", r.code, verdictLines(v))
	}
	for _, id := range []string{"secure-params.call-unnegotiated", "secure-params.collision", "secure-params.no-echo"} {
		x := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="` + id + `")`)
		if x.Get("outcome").String() != "not-applicable" || !strings.Contains(x.Get("why").String(), "not run") {
			t.Errorf("%s: %s", id, x.Raw)
		}
	}
	if x := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="secure-params.no-overlap")`); x.Get("outcome").String() != "pass" {
		t.Errorf("no-overlap: %s", x.Raw)
	}
}

// A server that does not declare the extension gets not-applicable.
func TestCheckSecureParamsUndeclared(t *testing.T) {
	t.Parallel()
	v, _ := checkJSON(t, "--skip-malformed", "--", bin.raw, "-modern")
	n := 0
	for _, x := range v.Get(`check.eras.#(era=="modern").verdicts`).Array() {
		if !strings.HasPrefix(x.Get("id").String(), "secure-params.") {
			continue
		}
		n++
		if x.Get("outcome").String() != "not-applicable" || !strings.Contains(x.Get("why").String(), "io.modelcontextprotocol/secure-params") {
			t.Errorf("%s", x.Raw)
		}
	}
	if n != 6 {
		t.Errorf("%d secure-params verdicts, want 6", n)
	}
}

// The lint of tool definitions, in budget's findings, names a tool with
// required secure parameters (listed here to a client that did not
// declare the extension), and budget says what hosts do with its
// secureInputSchema.
func TestLintSecureParams(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "budget", "--json", "--", bin.raw, "-secure-params", "list-unnegotiated")
	v := envelope(t, "budget", r.stdout)
	if f := v.Get(`findings.#(code=="secure-required")`); f.Get("tool").String() != "lookup" || !strings.Contains(f.Get("message").String(), `"tenant"`) {
		t.Errorf("exit %d, secure-required: %s\n%s", r.code, f.Raw, r.stdout)
	}
	if f := v.Get(`findings.#(code=="secure-schema-delivery")`); f.Get("tool").String() != "lookup" || !strings.Contains(f.Get("message").String(), "unknown") {
		t.Errorf("secure-schema-delivery: %s\n%s", f.Raw, r.stdout)
	}
}
