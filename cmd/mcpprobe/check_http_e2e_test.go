//go:build e2e

package main

// check over Streamable HTTP: the transport's own checks (http.*), each
// bug of rawserver -http caught by exactly the check that names it, the
// well-behaved fronts with no fail, and the recorded verdicts of the
// corpus's SDK servers over HTTP (testdata/golden/check/*-http.txt).

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// flaggedIDs lists a run's fails and warns as "era id outcome".
func flaggedIDs(v gjson.Result) []string {
	var out []string
	for _, e := range v.Get("check.eras").Array() {
		for _, x := range e.Get("verdicts").Array() {
			if o := x.Get("outcome").String(); o == "fail" || o == "warn" {
				out = append(out, e.Get("era").String()+" "+x.Get("id").String()+" "+o)
			}
		}
	}
	return out
}

// Each transport bug of rawserver -http is caught by exactly the check
// that names it, in the era it breaks, with its clause's outcome (a MUST
// fails and exits 1, a SHOULD or a sentence without a keyword warns, exit
// 0). A row with base flags is judged against a run of rawserver with
// those flags alone: -modern has a bug of its own (no resultType), which
// TestCheckBreaks names.
func TestCheckHTTPBreaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		base  []string
		want  []string // era id outcome
		code  int
	}{
		{[]string{"-http-notify-200"}, nil, []string{"legacy http.notification-accepted fail"}, 1},
		{[]string{"-http-wrong-content-type"}, nil, []string{"legacy http.request-content-type fail"}, 1},
		{[]string{"-http-bad-protocol-version-ok"}, nil, []string{"legacy http.protocol-version-header fail"}, 1},
		{[]string{"-http-session-charset"}, nil, []string{"legacy http.session-id-charset fail"}, 1},
		{[]string{"-http-unknown-session-200"}, nil, []string{"legacy http.session-unknown warn"}, 0},
		{[]string{"-http-no-session-404"}, nil, []string{"legacy http.session-required warn"}, 0},
		{[]string{"-http-delete-keeps"}, nil, []string{"legacy http.session-delete fail"}, 1},
		{[]string{"-http-origin-any"}, nil, []string{"legacy http.origin fail"}, 1},
		{[]string{"-http-get-200"}, nil, []string{"legacy http.get-stream fail"}, 1},
		{[]string{"-http-sse", "-http-sse-no-priming"}, []string{"-http-sse"}, []string{"legacy http.sse-priming warn"}, 0},
		{[]string{"-modern", "-http-header-mismatch-ok"}, []string{"-modern"}, []string{"modern http.header-mismatch fail"}, 1},
		{[]string{"-modern", "-http-name-mismatch-ok"}, []string{"-modern"}, []string{"modern http.header-mismatch fail"}, 1},
		{[]string{"-modern", "-http-origin-any"}, []string{"-modern"}, []string{"legacy http.origin fail", "modern http.origin fail"}, 1},
		{[]string{"-modern", "-http-notify-200"}, []string{"-modern"}, []string{"legacy http.notification-accepted fail", "modern http.notification-accepted fail"}, 1},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			run := func(flags []string) (gjson.Result, result) {
				u := serveOn(t, append([]string{bin.raw, "-http", "127.0.0.1:0"}, flags...)...)
				return checkJSON(t, "--skip-malformed", u)
			}
			var known []string
			if tc.base != nil {
				b, _ := run(tc.base)
				known = flaggedIDs(b)
			}
			v, r := run(tc.flags)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			var got []string
			for _, f := range flaggedIDs(v) {
				if !slices.Contains(known, f) {
					got = append(got, f)
				}
			}
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("flagged %v, want %v\n%s", got, tc.want, verdictLines(v))
			}
			for _, x := range v.Get("check.eras.#.verdicts").Array() {
				for _, y := range x.Array() {
					if strings.HasPrefix(y.Get("id").String(), "http.") && y.Get("outcome").String() == "fail" && y.Get("clause.keyword").String() != "MUST" {
						t.Errorf("a fail resting on %s: %s", y.Get("clause.keyword"), y.Raw)
					}
				}
			}
		})
	}
}

// The well-behaved fronts break nothing the transport checks judge:
// rawserver -http (JSON and SSE answers, modern or not) and goodserver
// -http (sessions and stateless); each http.* check that applies is
// judged, none reads "no HTTP answer", a resumable stream is seen
// resumed, and stdio has them not applicable.
func TestCheckHTTPWellBehaved(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{
		{bin.raw, "-http", "127.0.0.1:0"},
		{bin.raw, "-http", "127.0.0.1:0", "-http-sse"},
		{bin.good, "-http", "127.0.0.1:0"},
		{bin.good, "-http", "127.0.0.1:0", "-stateless"},
		{bin.good, "-http", "127.0.0.1:0", "-json-response"},
	} {
		t.Run(strings.Join(argv[1:], " "), func(t *testing.T) {
			t.Parallel()
			v, r := checkJSON(t, "--skip-malformed", serveOn(t, argv...))
			if r.code != 0 || v.Get("check.outcomes.fail").Int() != 0 {
				t.Errorf("exit %d:\n%s", r.code, verdictLines(v))
			}
			judged := 0
			for _, e := range v.Get("check.eras").Array() {
				for _, x := range e.Get("verdicts").Array() {
					if !strings.HasPrefix(x.Get("id").String(), "http.") {
						continue
					}
					if x.Get("outcome").String() != "not-applicable" {
						judged++
					}
					if strings.Contains(x.Get("why").String(), "no HTTP answer") {
						t.Errorf("%s: %s", x.Get("id"), x.Get("why"))
					}
				}
			}
			if judged < 6 {
				t.Errorf("only %d transport verdicts judged:\n%s", judged, verdictLines(v))
			}
			if slices.Contains(argv, "-http-sse") {
				// Its priming event's id, as Last-Event-ID, replays the
				// response that followed it.
				legacy := `check.eras.#(era=="legacy").verdicts.#(id==`
				if p := v.Get(legacy + `"http.sse-priming")`); p.Get("outcome").String() != "pass" {
					t.Errorf("priming: %s", p.Raw)
				}
				if r := v.Get(legacy + `"http.sse-resume")`); r.Get("outcome").String() != "observed" || !strings.Contains(r.Get("why").String(), "replaying the response") {
					t.Errorf("resume: %s", r.Raw)
				}
			}
		})
	}
	t.Run("legacy HTTP+SSE", func(t *testing.T) {
		t.Parallel()
		line := startHTTPServer(t, nil, "listening on", bin.good, "-sse", "127.0.0.1:0")
		v, _ := checkJSON(t, "--skip-malformed", strings.TrimSpace(strings.TrimPrefix(line, "listening on")))
		x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="http.notification-accepted")`)
		if x.Get("outcome").String() != "not-applicable" || !strings.Contains(x.Get("why").String(), "HTTP+SSE") {
			t.Errorf("http.notification-accepted over HTTP+SSE: %s", x.Raw)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		v, _ := checkJSON(t, "--skip-malformed", bin.raw)
		x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="http.origin")`)
		if x.Get("outcome").String() != "not-applicable" || !strings.Contains(x.Get("why").String(), "stdio") {
			t.Errorf("http.origin over stdio: %s", x.Raw)
		}
	})
}

// The corpus's SDK servers over Streamable HTTP, each as its SDK serves it
// by default: every fail rests on a MUST (a client's MUST never
// fails a server: http.accept-negotiation is observed) (the Origin 403 each of them leaves to the server; mcp-go's id
// served after its DELETE was answered 200), none reads "no HTTP answer",
// and the verdicts are as recorded.
func TestCheckCorpusHTTP(t *testing.T) {
	t.Parallel()
	for _, cs := range []struct {
		name string
		argv func(*testing.T) []string
	}{
		{"typescript-sdk-v1", func(t *testing.T) []string { return append(tsServer(t, "corpus"), "--http", "127.0.0.1:0") }},
		{"typescript-sdk-v2", func(t *testing.T) []string { return append(tsServer2(t, "http"), "127.0.0.1:0") }},
		{"go-sdk", func(t *testing.T) []string {
			return []string{goodServer(t), "-corpus", "-sdk-origin", "-http", "127.0.0.1:0"}
		}},
		{"mcp-go", func(t *testing.T) []string { return []string{mcpgoServer(t), "-http", "127.0.0.1:0"} }},
	} {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			v, r := checkJSON(t, "--skip-malformed", serveOn(t, cs.argv(t)...))
			if r.code == 3 || v.Get("check.transport").String() != "http" {
				t.Fatalf("exit %d, transport %s: %s", r.code, v.Get("check.transport"), r.stderr)
			}
			for _, e := range v.Get("check.eras").Array() {
				for _, x := range e.Get("verdicts").Array() {
					if x.Get("outcome").String() == "fail" && x.Get("clause.keyword").String() != "MUST" {
						t.Errorf("a fail not resting on a MUST: %s", x.Raw)
					}
					if w := x.Get("why").String(); strings.Contains(w, "no HTTP answer") || strings.Contains(w, "no reply") {
						t.Errorf("%s %s: %s", e.Get("era"), x.Get("id"), w)
					}
				}
			}
			if !v.Get(`check.eras.#(era=="legacy").served`).Bool() {
				t.Errorf("the legacy era is not served:\n%s", verdictLines(v))
			}
			golden(t, filepath.Join("check", cs.name+"-http.txt"), []byte(verdictLines(v)))
		})
	}
}

// A subscription acknowledged at once in an application/json body that
// never ends is read at once: subscriptions.listen passes (it was "no
// notifications/subscriptions/acknowledged … within --timeout").
func TestCheckListenOpenJSONBody(t *testing.T) {
	t.Parallel()
	v, _ := checkJSON(t, "--skip-malformed", serveOn(t, bin.raw, "-http", "127.0.0.1:0", "-modern", "-http-listen-json-open"))
	x := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="subscriptions.listen")`)
	if x.Get("outcome").String() != "pass" || !strings.Contains(x.Get("why").String(), "acknowledged with subscriptionId") {
		t.Errorf("subscriptions.listen %s, want pass", x.Raw)
	}
}
