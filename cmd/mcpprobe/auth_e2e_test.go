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

var authFixture struct {
	once sync.Once
	path string
	err  error
}

// authServerBin builds fixtures/authserver once, beside the other binaries.
func authServerBin(t *testing.T) string {
	t.Helper()
	authFixture.once.Do(func() {
		authFixture.path = filepath.Join(bin.dir, "authserver")
		out, err := exec.Command("go", "build", "-o", authFixture.path, "../../fixtures/authserver").CombinedOutput()
		if err != nil {
			authFixture.err = fmt.Errorf("building fixtures/authserver: %v\n%s", err, out)
		}
	})
	if authFixture.err != nil {
		t.Fatal(authFixture.err)
	}
	return authFixture.path
}

// authServer is a running fixture and the tokens it issued.
type authServer struct {
	URL, Issuer                       string
	Token, ForeignToken, ExpiredToken string
	Refresh                           string      // for client mcpprobe-app (oauth_e2e_test.go)
	stderr                            *syncBuffer // a line per token its token endpoint issued
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
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("authserver -variant %q printed no line: %v", variant, err)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("authserver line %q: %v", line, err)
	}
	return authServer{URL: m["url"], Issuer: m["issuer"], Token: m["token"], ForeignToken: m["foreign_token"], ExpiredToken: m["expired_token"], Refresh: m["refresh_token"], stderr: errb}
}

// The three tokens, by environment: --token-env and its siblings.
func (s authServer) env() []string {
	return []string{"AUTH_TOKEN=" + s.Token, "AUTH_FOREIGN=" + s.ForeignToken, "AUTH_EXPIRED=" + s.ExpiredToken}
}

var authTokenFlags = []string{"--token-env", "AUTH_TOKEN", "--foreign-token-env", "AUTH_FOREIGN", "--expired-token-env", "AUTH_EXPIRED"}

// Every variant gets exactly the rows it should, and nothing else is a
// fail or a warning; the well-behaved setup gets only what the Go SDK
// itself does (no error="invalid_token", RFC 6750 §3 SHOULD) and the
// loopback http observation.
func TestAuthVariants(t *testing.T) {
	t.Parallel()
	// Common to every variant: the SDK's challenge without
	// error="invalid_token", and http on 127.0.0.1.
	common := map[string]string{"A15": "warn", "A13": "observed"}
	for _, tc := range []struct {
		variant string
		want    map[string]string // id → outcome, beside common
	}{
		{"", nil},
		{"no-resource-metadata", map[string]string{"A2": "warn"}},
		{"wrong-resource", map[string]string{"A5": "fail"}},
		{"issuer-mismatch", map[string]string{"A9": "fail"}},
		{"no-s256", map[string]string{"A10": "fail"}},
		{"dcr-only", map[string]string{"A11": "warn"}},
		{"cimd-only", map[string]string{"A11": "observed"}},
		{"any-audience", map[string]string{"A17": "fail"}},
		{"malformed-500", map[string]string{"A21": "fail"}},
		{"unprotected-get", map[string]string{"A20": "fail"}},
	} {
		name := tc.variant
		if name == "" {
			name = "well-behaved"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startAuthServer(t, tc.variant)
			args := append(append([]string{"auth", "--json", "--timeout", secs(5 * time.Second)}, authTokenFlags...), s.URL)
			r := probeRun(t, s.env(), nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			envelope(t, "auth", r.stdout) // validates against reports/result.schema.json
			want := map[string]string{}
			for k, v := range common {
				want[k] = v
			}
			for k, v := range tc.want {
				want[k] = v
			}
			got := map[string]string{}
			rows := gjson.Get(r.stdout, "auth.rows").Array()
			if len(rows) != 26 { // the 25 probes and the baseline
				t.Fatalf("%d rows, want 26: %s", len(rows), r.stdout)
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
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("outcomes other than pass and not-run: %v, want %v", got, want)
			}
			// With every token given, the token probes run and the
			// baseline negotiated a version.
			for _, id := range []string{"base", "A16", "A17", "A18", "A20", "A23"} {
				for _, row := range rows {
					if row.Get("id").String() == id && row.Get("outcome").String() == "not-run" {
						t.Errorf("%s not run with every token given: %s", id, row.Get("why"))
					}
				}
			}
			if p := gjson.Get(r.stdout, "protocol_version").String(); p == "" {
				t.Errorf("no protocol_version from the baseline session")
			}
		})
	}
}

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
	if n := len(gjson.Get(r.stdout, "auth.rows").Array()); n != 26 {
		t.Errorf("%d rows without tokens, want 26", n)
	}
	for _, row := range gjson.Get(r.stdout, "auth.rows").Array() {
		if row.Get("outcome").String() == "not-run" {
			why[row.Get("id").String()] = row.Get("why").String()
		}
	}
	for id, flag := range map[string]string{"A16": "--expired-token-env", "A17": "--foreign-token-env", "A18": "--token-env", "base": "--token-env"} {
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
	canaries := []string{"authT0ka1b2c3d4", "authF0ka1b2c3d4", "authE0ka1b2c3d4"}
	echoEnv := []string{"AUTH_TOKEN=" + canaries[0], "AUTH_FOREIGN=" + canaries[1], "AUTH_EXPIRED=" + canaries[2]}
	dir := t.TempDir()
	for i, tc := range []struct {
		name    string
		env     []string
		url     string
		secrets []string
	}{
		{"fixture", s.env(), s.URL, []string{s.Token, s.ForeignToken, s.ExpiredToken}},
		{"echoing server", echoEnv, echo.URL + "/fail/mcp", canaries},
		{"echoing server that accepts", echoEnv, echo.URL + "/ok/mcp", canaries},
	} {
		for _, format := range []string{"--json", "--no-color"} {
			out := filepath.Join(dir, fmt.Sprintf("out-%d%s", i, format))
			args := append(append([]string{"auth", format, "--out", out}, authTokenFlags...), tc.url)
			r := probeRun(t, tc.env, nil, args...)
			saved, _ := os.ReadFile(out)
			if len(saved) == 0 {
				t.Errorf("%s %s: nothing in --out (exit %d: %s)", tc.name, format, r.code, r.stderr)
			}
			for _, sec := range tc.secrets {
				for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "--out": string(saved)} {
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
	r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, "auth", "--json", "--out", out, "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL)
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
	r = probeRun(t, []string{"CI_SECRET=wrong"}, nil, "auth", "--json", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL)
	base := gjson.Get(r.stdout, `auth.rows.#(id=="base")`)
	if base.Get("outcome").String() != "observed" || !strings.Contains(base.Get("got").String(), "invalid_client") {
		t.Errorf("a wrong client secret: base %s, want observed with invalid_client", base.Raw)
	}
}
