//go:build e2e

package main

// The auth audit against fixtures/authserver: the Go SDK's bearer
// middleware and metadata handler in front of a fixture authorization
// server. Each -variant misbehaves in one way and must get exactly the
// rows that name it; the well-behaved setup none. Tokens are secrets.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// authServerBin builds fixtures/authserver once, beside the other binaries.
func authServerBin(t *testing.T) string { return fixtureBin(t, "authserver") }

// authServer is a running fixture and the tokens it issued.
type authServer struct {
	URL, Issuer                                    string
	Token, ForeignToken, ExpiredToken, NarrowToken string
	Refresh                                        string      // for client mcpprobe-app (oauth_e2e_test.go)
	ClientKey                                      string      // PEM, for client mcpprobe-jwt (oauth_jwt_e2e_test.go)
	stderr                                         *syncBuffer // a line per token its token endpoint issued
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// issued are the tokens the fixture's token endpoint issued so far.
func (s authServer) issued() []string {
	s.stderr.mu.Lock()
	defer s.stderr.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.stderr.b.String(), "\n") {
		if t := gjson.Get(l, "issued").String(); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// startAuthServer starts the fixture with variant; it stops when the test
// ends (its stdin closes, then it is killed).
func startAuthServer(t *testing.T, variant string) authServer {
	t.Helper()
	cmd := exec.Command(authServerBin(t), "-variant", variant)
	errb := &syncBuffer{}
	cmd.Stderr = errb
	line := stdinServerLine(t, cmd, fmt.Sprintf("authserver -variant %q", variant))
	var m map[string]string
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("authserver line %q: %v", line, err)
	}
	return authServer{URL: m["url"], Issuer: m["issuer"], Token: m["token"], ForeignToken: m["foreign_token"], ExpiredToken: m["expired_token"],
		NarrowToken: m["narrow_token"], Refresh: m["refresh_token"], ClientKey: m["client_key"], stderr: errb}
}

// stdinServerLine starts cmd, a fixture that runs until its stdin
// closes, and returns the first line it writes on stdout (at most 20 s).
// At the test's end its stdin is closed, and it is killed if it has not
// gone 5 s later.
func stdinServerLine(t *testing.T, cmd *exec.Cmd, what string) string {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(bound(5 * time.Second)):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- l
	}()
	select {
	case l := <-lines:
		if l == "" {
			t.Fatalf("%s printed no line", what)
		}
		return l
	case <-time.After(bound(20 * time.Second)):
		t.Fatalf("%s printed no line within %v", what, bound(20*time.Second))
	}
	return ""
}

// The three tokens, by environment: --token-env and its siblings.
func (s authServer) env() []string {
	return []string{"AUTH_TOKEN=" + s.Token, "AUTH_FOREIGN=" + s.ForeignToken, "AUTH_EXPIRED=" + s.ExpiredToken, "AUTH_NARROW=" + s.NarrowToken}
}

var authTokenFlags = []string{"--token-env", "AUTH_TOKEN", "--foreign-token-env", "AUTH_FOREIGN", "--expired-token-env", "AUTH_EXPIRED", "--narrow-token-env", "AUTH_NARROW"}

// Without tokens, the probes that need one say which flag to pass, and
// --fail-on error trips on a MUST row (exit 1).
func TestAuthWithoutTokens(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	r := probeRun(t, nil, nil, "auth", "--json", s.URL)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	why := map[string]string{}
	if n := len(gjson.Get(r.stdout, "auth.rows").Array()); n != authRows {
		t.Errorf("%d rows without tokens, want %d", n, authRows)
	}
	for _, row := range gjson.Get(r.stdout, "auth.rows").Array() {
		if row.Get("outcome").String() == "not-run" {
			why[row.Get("id").String()] = row.Get("why").String()
		}
	}
	for id, flag := range map[string]string{"A16": "--expired-token-env", "A17": "--foreign-token-env", "A18": "--token-env", "base": "--token-env",
		"A19": "--narrow-token-env", "A12": "--register"} {
		if !strings.Contains(why[id], flag) {
			t.Errorf("%s not run: %q, want it to name %s", id, why[id], flag)
		}
	}
	bad := startAuthServer(t, "no-s256")
	r = probeRun(t, nil, nil, "auth", "--fail-on", "error", bad.URL)
	if r.code != 1 || !strings.Contains(r.stdout, "A10") || !strings.Contains(r.stderr, "--fail-on tripped") {
		t.Errorf("--fail-on error on no-s256: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := probeRun(t, nil, nil, "auth", "--token-env", "AUTH_UNSET_VAR", s.URL); r.code != 2 || !strings.Contains(r.stderr, "AUTH_UNSET_VAR") {
		t.Errorf("unset --token-env: exit %d, stderr %q", r.code, r.stderr)
	}
}

// No token given to the audit appears in its text, its JSON or its --out
// file, from the fixture or from a server that echoes every credential it
// receives into its 401's challenge and body.
func TestAuthSecretCanaries(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "any-audience") // accepts the foreign token: its answers are read too
	echo := echoServer(t)
	canaries := []string{"authT0ka1b2c3d4", "authF0ka1b2c3d4", "authE0ka1b2c3d4", "authN0ka1b2c3d4"}
	echoEnv := []string{"AUTH_TOKEN=" + canaries[0], "AUTH_FOREIGN=" + canaries[1], "AUTH_EXPIRED=" + canaries[2], "AUTH_NARROW=" + canaries[3]}
	dir := t.TempDir()
	for i, tc := range []struct {
		name    string
		env     []string
		url     string
		secrets []string
	}{
		{"fixture", s.env(), s.URL, []string{s.Token, s.ForeignToken, s.ExpiredToken, s.NarrowToken}},
		{"echoing server", echoEnv, echo.URL + "/fail/mcp", canaries},
		{"echoing server that accepts", echoEnv, echo.URL + "/ok/mcp", canaries},
	} {
		for _, format := range []string{"--json", "--no-color"} {
			out := filepath.Join(dir, fmt.Sprintf("out-%d%s", i, format))
			trace := out + ".trace"
			args := append(append([]string{"auth", format, "--out", out, "--trace", trace}, authTokenFlags...), tc.url)
			r := probeRun(t, tc.env, nil, args...)
			saved, _ := os.ReadFile(out)
			traced, _ := os.ReadFile(trace)
			if len(saved) == 0 || len(traced) == 0 {
				t.Errorf("%s %s: nothing in --out or --trace (exit %d: %s)", tc.name, format, r.code, r.stderr)
			}
			for _, sec := range tc.secrets {
				for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "--out": string(saved), "--trace": string(traced)} {
					if strings.Contains(text, sec) {
						t.Errorf("%s %s: a token is in %s", tc.name, format, name)
					}
				}
			}
			if tc.name == "echoing server" && format == "--json" && !slices.Contains([]bool{strings.Contains(string(saved), "***")}, true) {
				t.Errorf("echoing server: the echoed token is not shown redacted in --out: %s", saved)
			}
		}
	}
}

// With a client instead of tokens, the audit gets its own by
// client_credentials: one for the endpoint (the baseline) and one for a
// sibling resource (A17), both secrets of the run; a wrong secret leaves
// the baseline observed with the server's error.
func TestAuthClientCredentials(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	out := filepath.Join(t.TempDir(), "audit.json")
	r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, "auth", "--json", "--out", out, "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer, s.URL)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	saved, _ := os.ReadFile(out)
	v := envelope(t, "auth", string(saved))
	outcome := map[string]string{}
	for _, row := range v.Get("auth.rows").Array() {
		outcome[row.Get("id").String()] = row.Get("outcome").String()
	}
	for id, want := range map[string]string{"base": "pass", "A17": "pass", "A18": "pass", "A20": "pass", "A23": "pass", "A16": "not-run"} {
		if outcome[id] != want {
			t.Errorf("%s = %s, want %s", id, outcome[id], want)
		}
	}
	issued := s.issued()
	if len(issued) != 2 {
		t.Fatalf("the token endpoint issued %d tokens, want 2 (the endpoint's, a sibling's)", len(issued))
	}
	for _, sec := range append(issued, "fixture-secret") {
		for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "--out": string(saved)} {
			if strings.Contains(text, sec) {
				t.Errorf("a secret is in %s", name)
			}
		}
	}
	r = probeRun(t, []string{"CI_SECRET=wrong"}, nil, "auth", "--json", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer, s.URL)
	base := gjson.Get(r.stdout, `auth.rows.#(id=="base")`)
	if base.Get("outcome").String() != "observed" || !strings.Contains(base.Get("got").String(), "invalid_client") {
		t.Errorf("a wrong client secret: base %s, want observed with invalid_client", base.Raw)
	}
}

// An authorization server that ignores resource (RFC 8707) hands out the
// valid token again for another resource: the audit names it, with what
// it was asked, and does not fail the resource server's A17 (unjudged).
func TestAuthIgnoresResource(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "ignores-resource")
	args := []string{"--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer, s.URL}
	r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, append([]string{"auth", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	v := envelope(t, "auth", r.stdout)
	a17 := v.Get(`auth.rows.#(id=="A17")`)
	if a17.Get("outcome").String() != "not-run" || !strings.Contains(a17.Get("why").String(), "byte for byte") {
		t.Errorf("A17 %s, want not-run: the token for another audience is the valid one", a17.Raw)
	}
	as := v.Get(`auth.rows.#(id=="A17 authorization server")`)
	if as.Get("outcome").String() != "observed" || !strings.Contains(as.Get("why").String(), "the authorization server "+s.Issuer+" ignored resource") ||
		!strings.Contains(as.Get("sent").String(), s.Issuer+"/token") {
		t.Errorf("the authorization server's row %s, want observed, naming it and what it was asked", as.Raw)
	}
	if n := v.Get(`auth.rows.#(outcome=="fail")#.id`).Array(); len(n) != 0 {
		t.Errorf("fails %v: nothing here breaks a MUST", n)
	}
	if issued := s.issued(); len(issued) != 1 || strings.Contains(r.stdout, issued[0]) {
		t.Errorf("the token endpoint issued %d tokens, want 1 (asked twice), never printed", len(issued))
	}
	r = probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, append([]string{"auth"}, args...)...)
	if !strings.Contains(r.stdout, "A17 authorization server: the authorization server "+s.Issuer+" ignored resource") {
		t.Errorf("the report does not name the authorization server:\n%s", r.stdout)
	}
}

// A server with no protected-resource metadata, its authorization server
// at its own origin (2025-03-26): the client finds it there (metadata, or
// the default endpoints) and calls through; the audit reaches it the same
// way and judges what it finds (A10 PKCE with metadata).
func TestAuthLegacyDiscovery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		variant string
		want    map[string]string
	}{
		{"legacy-metadata", map[string]string{"A8": "pass", "A9": "pass", "A10": "pass", "base": "pass"}},
		{"legacy-defaults", map[string]string{"A8": "observed", "A10": "not-run", "base": "pass"}},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			s := startAuthServer(t, tc.variant)
			env := []string{"CI_SECRET=fixture-secret"}
			r := probeRun(t, env, nil, "call", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL, "whoami")
			if r.code != 0 || !strings.Contains(r.stdout, "authorized") || !strings.Contains(r.stderr, "MCP 2025-03-26 basic/authorization") {
				t.Errorf("call: exit %d, want the call through, the fallback said:\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			r = probeRun(t, env, nil, "auth", "--json", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL)
			v := envelope(t, "auth", r.stdout)
			for id, want := range tc.want {
				if got := v.Get(`auth.rows.#(id=="` + id + `").outcome`).String(); got != want {
					t.Errorf("%s = %s, want %s", id, got, want)
				}
			}
			if rev := v.Get(`auth.rows.#(id=="A8").clause.rev`).String(); rev != "2025-03-26" {
				t.Errorf("A8 rests on %q, want the 2025-03-26 clause", rev)
			}
		})
	}
}
