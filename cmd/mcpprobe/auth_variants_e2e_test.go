//go:build e2e

package main

// The auth audit against real server-side auth: the Go SDK's
// (fixtures/authserver: auth.RequireBearerToken and
// auth.ProtectedResourceMetadataHandler) and the TypeScript SDK's
// (fixtures/tsauth: requireBearerAuth and mcpAuthMetadataRouter, validating
// by introspection), both in front of fixtures/authserver's authorization
// server. Each variant misbehaves in one way, by configuration, and gets
// exactly the rows that name it; the well-behaved setup of each SDK gets
// only what that SDK itself does.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// authRows is how many rows an audit has: the 24 probes A1 to A24, one A25
// row per oauth row of probe/hosts/hosts.json, and the baseline.
const authRows = 24 + 4 + 1

// The A25 rows' ids.
const (
	hostClaude = "A25 Claude (claude.ai and Desktop connectors)"
	hostVSCode = "A25 VS Code"
)

// startTSAuth starts fixtures/tsauth with variant in front of a fresh
// fixture authorization server, and mints its tokens there: valid, for
// another resource, expired, and without the scope the server requires.
func startTSAuth(t *testing.T, variant string) authServer {
	t.Helper()
	entry, _ := filepath.Abs("../../fixtures/tsauth/server.mjs")
	if _, err := os.Stat("../../fixtures/tsauth/node_modules/@modelcontextprotocol/sdk"); err != nil {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatalf("fixtures/tsauth is not installed: run scripts/install-peers.sh")
		}
		t.Skip("fixtures/tsauth is not installed (scripts/install-peers.sh)")
	}
	as := startAuthServer(t, "")
	args := []string{entry, "--issuer", as.Issuer}
	if variant != "" {
		args = append(args, "--variant", variant)
	}
	cmd := exec.Command("node", args...)
	cmd.Stderr = os.Stderr
	line := stdinServerLine(t, cmd, "fixtures/tsauth")
	s := authServer{URL: gjson.Get(line, "url").String(), Issuer: as.Issuer, stderr: as.stderr}
	if s.URL == "" {
		t.Fatalf("fixtures/tsauth line %q", line)
	}
	mint := func(form url.Values) string {
		resp, err := http.PostForm(as.Issuer+"/mint", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m["access_token"] == "" {
			t.Fatalf("mint: %v %v", err, m)
		}
		return m["access_token"]
	}
	origin := strings.TrimSuffix(s.URL, "/mcp")
	s.Token = mint(url.Values{"resource": {s.URL}})
	s.ForeignToken = mint(url.Values{"resource": {origin + "/elsewhere"}})
	s.ExpiredToken = mint(url.Values{"resource": {s.URL}, "ttl": {"-1h"}})
	s.NarrowToken = mint(url.Values{"resource": {s.URL}, "scope": {""}})
	return s
}

// Every variant of each SDK's setup gets exactly the rows it should, and
// nothing else is a fail, a warning or an observation.
func TestAuthVariants(t *testing.T) {
	t.Parallel()
	// What each SDK's well-behaved setup gets: plain http on 127.0.0.1
	// (A13, observed); the Go SDK's challenges lack error="invalid_token"
	// (A15, RFC 6750 §3 SHOULD) and error="insufficient_scope" (A19).
	goSDK := map[string]string{"A13": "observed", "A15": "warn", "A19": "warn"}
	tsSDK := map[string]string{"A13": "observed"}
	for _, tc := range []struct {
		sdk, variant string
		want         map[string]string // id → outcome, beside the SDK's own
	}{
		{"go", "", nil},
		{"go", "no-resource-metadata", map[string]string{"A2": "warn", hostClaude: "observed"}},
		{"go", "wrong-resource", map[string]string{"A5": "fail", hostVSCode: "observed"}},
		{"go", "issuer-mismatch", map[string]string{"A9": "fail"}},
		{"go", "no-s256", map[string]string{"A10": "fail"}},
		{"go", "dcr-only", map[string]string{"A11": "warn"}},
		{"go", "cimd-only", map[string]string{"A11": "observed"}},
		{"go", "any-audience", map[string]string{"A17": "fail"}},
		{"go", "malformed-500", map[string]string{"A21": "fail"}},
		{"go", "unprotected-get", map[string]string{"A20": "fail"}},
		{"go", "offline-access", map[string]string{"A7": "warn"}},
		{"go", "open-redirects", map[string]string{"A12": "fail"}},
		{"go", "no-origin-check", map[string]string{"A23": "fail"}},
		{"go", "expired-accepted", map[string]string{"A16": "fail"}},
		{"go", "query-token", map[string]string{"A18": "observed"}},
		{"ts", "", nil},
		// The SDK's 403 has no resource_metadata either (A19).
		{"ts", "no-resource-metadata", map[string]string{"A2": "warn", "A19": "warn", hostClaude: "observed"}},
		{"ts", "any-audience", map[string]string{"A17": "fail"}},
	} {
		name := tc.sdk + "/" + tc.variant
		if tc.variant == "" {
			name = tc.sdk + "/well-behaved"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var s authServer
			want := maps.Clone(goSDK)
			if tc.sdk == "ts" {
				s, want = startTSAuth(t, tc.variant), maps.Clone(tsSDK)
			} else {
				s = startAuthServer(t, tc.variant)
			}
			maps.Copy(want, tc.want)
			args := append(append([]string{"auth", "--json", "--register", "--timeout", secs(5 * time.Second)}, authTokenFlags...), s.URL)
			r := probeRun(t, s.env(), nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			envelope(t, "auth", r.stdout) // validates against reports/jsonout/result.schema.json
			got := map[string]string{}
			rows := gjson.Get(r.stdout, "auth.rows").Array()
			if len(rows) != authRows {
				t.Fatalf("%d rows, want %d: %s", len(rows), authRows, r.stdout)
			}
			for _, row := range rows {
				id, o := row.Get("id").String(), row.Get("outcome").String()
				if o != "pass" && o != "not-run" {
					got[id] = o
				}
				if row.Get("clause.level").String() == "" || row.Get("clause.rev").String() == "" {
					t.Errorf("row %s cites no clause: %s", id, row.Raw)
				}
				if o == "fail" && row.Get("clause.level").String() != "MUST" {
					t.Errorf("row %s fails on a %s clause", id, row.Get("clause.level"))
				}
				if o == "warn" && row.Get("clause.level").String() == "info" {
					t.Errorf("row %s warns on an info clause", id)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("outcomes other than pass and not-run: %v, want %v", got, want)
			}
			// With every token given, the token probes run; the
			// registration probe runs where registration is advertised.
			mustRun := []string{"base", "A16", "A17", "A18", "A19", "A20", "A23"}
			if tc.variant != "cimd-only" && tc.variant != "issuer-mismatch" {
				mustRun = append(mustRun, "A12")
			}
			for _, id := range mustRun {
				if o := gjson.Get(r.stdout, `auth.rows.#(id=="`+id+`")`); o.Get("outcome").String() == "not-run" {
					t.Errorf("%s not run with every token given: %s", id, o.Get("why"))
				}
			}
			if p := gjson.Get(r.stdout, "protocol_version").String(); p == "" {
				t.Errorf("no protocol_version from the baseline session")
			}
			// The findings are the rows: one per fail, warn and host
			// that will fail.
			if n, w := len(gjson.Get(r.stdout, "findings").Array()), countFindings(want); n != w {
				t.Errorf("%d findings, want %d: %s", n, w, gjson.Get(r.stdout, "findings").Raw)
			}
		})
	}
}

// countFindings is how many findings the rows want: every fail and warn,
// and every host row observed.
func countFindings(want map[string]string) int {
	n := 0
	for id, o := range want {
		if o == "fail" || o == "warn" || (o == "observed" && strings.HasPrefix(id, "A25 ")) {
			n++
		}
	}
	return n
}

// --trace holds each HTTP exchange of the audit, in order, as a JSON line:
// the 401 and its challenge as the server sent them, and no token.
func TestAuthTrace(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	trace := filepath.Join(t.TempDir(), "auth.jsonl")
	args := append(append([]string{"auth", "--trace", trace}, authTokenFlags...), s.URL)
	r := probeRun(t, s.env(), nil, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 15 {
		t.Fatalf("%d trace lines, want one per exchange (15 or more)", len(lines))
	}
	first := lines[0]
	if gjson.Get(first, "dir").String() != "http" || gjson.Get(first, "probe").String() != "A1" || gjson.Get(first, "status").Int() != 401 ||
		!strings.Contains(gjson.Get(first, "headers.Www-Authenticate.0").String(), "resource_metadata=") ||
		!strings.Contains(gjson.Get(first, "request").String(), `"initialize"`) {
		t.Errorf("first trace line: %s", first)
	}
	for _, sec := range []string{s.Token, s.ForeignToken, s.ExpiredToken, s.NarrowToken} {
		if strings.Contains(string(b), sec) {
			t.Errorf("a token is in the trace")
		}
	}
}

// The report of a protected URL (the token by --header-env) has an
// Authorization section: the audit's rows as a table, the same on a second
// run, the token in no output; --auth on an unprotected URL gives the
// not-protected line, --auth on a command is refused, and --json carries
// the audit as report.auth.
func TestReportAuthorization(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "no-s256")
	env := []string{"AUTH_HEADER=Bearer " + s.Token}
	args := []string{"report", "--date", "2026-12-01", "--header-env", "Authorization=AUTH_HEADER", s.URL}
	r := probeRun(t, env, nil, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, sec, ok := strings.Cut(r.stdout, "\n## Authorization\n")
	if !ok {
		t.Fatalf("no Authorization section:\n%s", r.stdout)
	}
	for _, want := range []string{"| probe | check | clause | level | outcome |", "| A10 | code_challenge_methods_supported has S256 | 2025-11-25+ · Authorization Code Protection | MUST | ✗ fail |",
		"| base | the valid token opens a session (baseline) |", "- ✗ A10:", "Not run: A12,"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the Authorization section lacks %q:\n%s", want, sec)
		}
	}
	if !strings.Contains(r.stdout, "auth-fail") {
		t.Errorf("the findings lack auth-fail:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, s.Token) {
		t.Errorf("the token is in the report's output")
	}
	if again := probeRun(t, env, nil, args...); again.stdout != r.stdout {
		t.Errorf("a second report differs:\n%s", firstLineDiff(r.stdout, again.stdout))
	}
	j := probeRun(t, env, nil, append([]string{"report", "--json"}, args[1:]...)...)
	v := envelope(t, "report", j.stdout)
	if n := len(v.Get("report.auth.rows").Array()); n != authRows {
		t.Errorf("report.auth has %d rows, want %d", n, authRows)
	}

	u := strings.TrimSpace(strings.TrimPrefix(startHTTPServer(t, nil, "listening on", bin.good, "-http", "127.0.0.1:0"), "listening on"))
	r = probeRun(t, nil, nil, "report", "--date", "2026-12-01", "--auth", u)
	if r.code != 0 || !strings.Contains(r.stdout, "\n## Authorization\n\nNot protected: `POST initialize` without a token was answered 200, not 401") {
		t.Errorf("report --auth on an unprotected URL: exit %d\n%s", r.code, r.stdout)
	}
	if r := probeRun(t, nil, nil, "report", "--auth", "--", bin.good); r.code != 2 || !strings.Contains(r.stderr, "--auth audits a URL") {
		t.Errorf("report --auth on a command: exit %d, stderr %q", r.code, r.stderr)
	}
}

// firstLineDiff is the first line where a and b differ.
func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(al), len(bl))
}

// check --auth adds the audit to the verdict: its rows in --json as
// check.auth, its failing rows as findings, which --fail-on error counts.
func TestCheckAuth(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "no-s256")
	env := []string{"AUTH_HEADER=Bearer " + s.Token}
	r := probeRun(t, env, nil, "check", "--auth", "--json", "--header-env", "Authorization=AUTH_HEADER", s.URL)
	v := envelope(t, "check", r.stdout)
	if n := len(v.Get("check.auth.rows").Array()); n != authRows {
		t.Fatalf("check.auth has %d rows, want %d (exit %d: %s)", n, authRows, r.code, r.stderr)
	}
	if o := v.Get(`check.auth.rows.#(id=="A10").outcome`).String(); o != "fail" {
		t.Errorf("A10 = %s, want fail", o)
	}
	if v.Get(`findings.#(code=="auth-fail")`).Raw == "" {
		t.Errorf("no auth-fail finding: %s", v.Get("findings").Raw)
	}
	r = probeRun(t, env, nil, "check", "--auth", "--fail-on", "error", "--header-env", "Authorization=AUTH_HEADER", s.URL)
	if r.code != 1 || !strings.Contains(r.stdout, "A10") {
		t.Errorf("check --auth --fail-on error: exit %d, want 1", r.code)
	}
	if strings.Contains(r.stdout+r.stderr, s.Token) {
		t.Errorf("the token is in check's output")
	}
}
