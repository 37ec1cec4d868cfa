//go:build e2e

package main

// check, end to end: the recorded verdicts of the corpus's SDK servers
// (golden files under testdata/golden/check/), each rawserver break caught
// by exactly the check that names it, the baseline file, --era, HTTP.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// checkJSON runs check --json and parses its envelope.
func checkJSON(t *testing.T, args ...string) (gjson.Result, result) {
	t.Helper()
	r := mcpprobe(t, append([]string{"check", "--json", "--quiet"}, args...)...)
	v := envelope(t, "check", r.stdout) // validated against the schema
	if !v.Get("check").IsObject() {
		t.Fatalf("check %v: exit %d, no check section\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return v, r
}

// verdictLines are a run's verdicts as the golden files keep them: era,
// id, outcome, the clause's weight and why; what came back is left out,
// since it holds the server's own bytes (ids, instructions), which other
// goldens keep.
func verdictLines(v gjson.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", v.Get("check.summary").String())
	for _, e := range v.Get("check.eras").Array() {
		if !e.Get("served").Bool() {
			fmt.Fprintf(&b, "%s: not served: %s\n", e.Get("era"), e.Get("why"))
			continue
		}
		fmt.Fprintf(&b, "%s: served, protocol %s\n", e.Get("era"), e.Get("protocol"))
		for _, x := range e.Get("verdicts").Array() {
			kw := x.Get("clause.keyword").String()
			if x.Get("clause").Type == gjson.Null {
				kw = "-"
			} else if kw == "" {
				kw = "no keyword"
			}
			fmt.Fprintf(&b, "  %s %s (%s): %s\n", x.Get("id"), x.Get("outcome"), kw, x.Get("why"))
		}
	}
	return b.String()
}

// corpusMustBreaks are the fails of the corpus's SDK servers, each a MUST
// the server breaks ("era id MUST"), checked by hand against the text.
var corpusMustBreaks = map[string][]string{
	// After the session's first tools/list, the TypeScript SDK 2.x serves
	// a request asking for protocol version 2099-12-31 (a fresh process
	// answers it -32022): its stdio transport pins the connection to the
	// era and version it opened with and then delivers every message
	// unchecked (@modelcontextprotocol/server 2.4.0, dist/stdio.mjs, the
	// "pinned" phase). 2026-07-28 basic/versioning: "the server accepts or
	// rejects each request independently"; "If the server does not
	// implement the requested version […], it MUST respond with an
	// UnsupportedProtocolVersionError".
	"typescript-sdk-v2-serve": {"modern versioning.unsupported-version MUST"},
}

// Each SDK server of the corpus, over stdio: no fail but a MUST it
// breaks (corpusMustBreaks), and its verdicts as recorded.
func TestCheckCorpus(t *testing.T) {
	t.Parallel()
	for _, cs := range corpus {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			argv := cs.argv(t)
			v, r := checkJSON(t, append([]string{"--skip-malformed", "--"}, argv...)...)
			var fails []string
			for _, e := range v.Get("check.eras").Array() {
				for _, x := range e.Get("verdicts").Array() {
					if x.Get("outcome").String() == "fail" {
						fails = append(fails, e.Get("era").String()+" "+x.Get("id").String()+" "+x.Get("clause.keyword").String())
					}
				}
			}
			want, code := strings.Join(corpusMustBreaks[cs.name], ", "), 0
			if want != "" {
				code = 1
			}
			if got := strings.Join(fails, ", "); r.code != code || got != want {
				t.Errorf("exit %d, fails %q; want exit %d, fails %q:\n%s", r.code, got, code, want, verdictLines(v))
			}
			if got := v.Get(`check.eras.#(era=="legacy").served`).Bool(); !got {
				t.Errorf("the legacy era is not served:\n%s", verdictLines(v))
			}
			modern := v.Get(`check.eras.#(era=="modern").served`).Bool()
			if want := cs.protocol == "2026-07-28"; modern != want {
				t.Errorf("modern served %v, want %v (the corpus negotiates %s)", modern, want, cs.protocol)
			}
			golden(t, filepath.Join("check", cs.name+".txt"), []byte(verdictLines(v)))
		})
	}
}

// Each break of rawserver is caught by exactly the check that names it,
// in the era it breaks, with the outcome its clause's keyword gives (a
// MUST fails and exits 1; a sentence without a keyword warns, exit 0).
func TestCheckBreaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags   []string
		ids     []string
		outcome string
		code    int
	}{
		{[]string{"-ping-result", `{"pong":true}`}, []string{"ping.empty-result"}, "fail", 1},
		{[]string{"-ping-result", `[]`}, []string{"ping.empty-result"}, "fail", 1},
		{[]string{"-null-input-schema"}, []string{"tools.input-schema-object"}, "fail", 1},
		{[]string{"-modern", "-modern-no-result-type"}, []string{"lifecycle.result-type"}, "fail", 1},
		{[]string{"-reject-version", "2025-11-25"}, []string{"lifecycle.version-negotiation"}, "fail", 1},
		{[]string{"-logging-missing"}, []string{"logging.set-level-served"}, "warn", 0},
		{[]string{"-completions-missing"}, []string{"completion.complete-served"}, "warn", 0},
		{[]string{"-subscribe-missing"}, []string{"resources.subscribe-served", "resources.unsubscribe-served"}, "warn", 0},
		{[]string{"-prompts-missing"}, []string{"prompts.list-served"}, "warn", 0},
		{[]string{"-init-version", "2025-06-18"}, nil, "", 0},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			v, r := checkJSON(t, append([]string{"--skip-malformed", "--", bin.raw}, tc.flags...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			var flagged []string
			for _, x := range v.Get("check.eras.#.verdicts").Array() {
				for _, y := range x.Array() {
					if o := y.Get("outcome").String(); o == "fail" || o == "warn" {
						flagged = append(flagged, y.Get("id").String()+" "+o)
					}
				}
			}
			var want []string
			for _, id := range tc.ids {
				want = append(want, id+" "+tc.outcome)
			}
			if strings.Join(flagged, ", ") != strings.Join(want, ", ") {
				t.Errorf("flagged %v, want %v\n%s", flagged, want, verdictLines(v))
			}
		})
	}
}

// A version answered other than the one asked is observed, not judged:
// the server may not support the one asked for.
func TestCheckVersionObserved(t *testing.T) {
	t.Parallel()
	v, _ := checkJSON(t, "--skip-malformed", "--", bin.raw, "-init-version", "2025-06-18")
	x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="lifecycle.version-negotiation")`)
	if x.Get("outcome").String() != "observed" || !strings.Contains(x.Get("why").String(), "asked for 2025-11-25, answered 2025-06-18") {
		t.Errorf("version negotiation: %s", x.Raw)
	}
}

// --baseline: exit 0 when the only fails are listed, 1 on a new one, and
// the listed checks that pass now are named; an unknown id is a usage
// error before any server starts.
func TestCheckBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	known := file("known.txt", "# known failures of rawserver\nping.empty-result  # answers {\"pong\":true}\ntools.input-schema-object # fixed in 1.2\n")
	typo := file("typo.txt", "ping.empty # typo\n")
	server := []string{"--", bin.raw, "-ping-result", `{"pong":true}`}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"no baseline", server, 1, []string{"✗ fail · MUST"}, "1 check(s) failed"},
		{"listed", append([]string{"--baseline", known}, server...), 0,
			[]string{"✗ fail (known) · MUST", "known failure (baseline): answers {\"pong\":true}", "no new failure", "listed and passing now (remove them from the file): tools.input-schema-object"}, ""},
		{"a new failure", []string{"--baseline", known, "--", bin.raw, "-ping-result", `{"pong":true}`, "-modern", "-modern-no-result-type"}, 1,
			[]string{"1 new failure(s) it does not list: lifecycle.result-type"}, "that the baseline does not list"},
		{"unknown id", append([]string{"--baseline", typo}, server...), 2, nil, `no check has the id "ping.empty"`},
		{"missing file", append([]string{"--baseline", filepath.Join(dir, "none")}, server...), 2, nil, "--baseline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, append([]string{"check", "--quiet", "--skip-malformed"}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("no %q in\n%s", w, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr %q, want %q", r.stderr, tc.stderr)
			}
		})
	}
}

// --era picks a column; a legacy-only server graded modern has its one
// column not served, and no fail.
func TestCheckEra(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		era, server string
		eras        string
		served      bool
	}{
		{"legacy", bin.good, "legacy", true},
		{"modern", bin.good, "modern", true},
		{"modern", bin.raw, "modern", false},
	} {
		t.Run(tc.era+" "+filepath.Base(tc.server), func(t *testing.T) {
			t.Parallel()
			v, r := checkJSON(t, "--skip-malformed", "--era", tc.era, tc.server)
			if got := strings.Join(strs(v.Get("check.eras.#.era")), ","); got != tc.eras || r.code != 0 {
				t.Errorf("eras %s exit %d, want %s exit 0", got, r.code, tc.eras)
			}
			if v.Get("check.eras.0.served").Bool() != tc.served {
				t.Errorf("served %v, want %v: %s", !tc.served, tc.served, v.Get("check.eras.0").Raw)
			}
		})
	}
}

func strs(v gjson.Result) []string {
	var out []string
	for _, x := range v.Array() {
		out = append(out, x.String())
	}
	return out
}

// The malformed calls come in as verdicts of their own ids, judged by
// malformed's clauses; the Go SDK breaks no MUST there either.
func TestCheckMalformedImported(t *testing.T) {
	t.Parallel()
	v, r := checkJSON(t, "--timeout", bound(2*time.Second).String(), "--era", "legacy", bin.good)
	ids := map[string]bool{}
	for _, x := range v.Get("check.eras.0.verdicts").Array() {
		ids[x.Get("id").String()] = true
		if strings.HasPrefix(x.Get("id").String(), "malformed.") && x.Get("outcome").String() != "inconclusive" && x.Get("clause").Type == gjson.Null {
			t.Errorf("a malformed verdict without its clause: %s", x.Raw)
		}
	}
	for _, id := range []string{"ping.empty-result", "malformed.unknown-tool", "malformed.unknown-method", "malformed.missing-required"} {
		if !ids[id] {
			t.Errorf("no verdict %s", id)
		}
	}
	if r.code != 0 || v.Get("check.outcomes.fail").Int() != 0 {
		t.Errorf("exit %d, fails:\n%s", r.code, verdictLines(v))
	}
}

// Over Streamable HTTP the same checks apply, on the transport http.
func TestCheckHTTP(t *testing.T) {
	t.Parallel()
	line := startHTTPServer(t, nil, "listening on", bin.good, "-http", "127.0.0.1:0")
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on"))
	v, r := checkJSON(t, "--skip-malformed", url)
	if v.Get("check.transport").String() != "http" || r.code != 0 || v.Get("check.outcomes.fail").Int() != 0 {
		t.Errorf("transport %s exit %d:\n%s", v.Get("check.transport"), r.code, verdictLines(v))
	}
	if x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="ping.empty-result").outcome`).String(); x != "pass" {
		t.Errorf("ping over HTTP: %s\n%s", x, verdictLines(v))
	}
}

// check --list needs no target and starts no server.
func TestCheckList(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "check", "--list")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "lifecycle.initialize-result\tlegacy\t2025-11-25 MUST https://") || !strings.Contains(r.stdout, "\nmalformed.batch\t") {
		t.Errorf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
