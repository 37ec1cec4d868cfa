//go:build e2e

package main

// Every command on a protected server (fixtures/authserver) after mcpprobe
// got its token the way a host does (probe/oauth): client_credentials, a
// refresh token from the environment, and the interactive flow with a
// scripted browser (the test follows the printed URL; the fixture's
// consent redirects to mcpprobe's loopback listener). No token, refresh
// token, client secret or PKCE verifier appears in any output, in any
// encoding (the canary checker's); the token goes to no other origin; an
// authorization server without S256 is refused.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// issuedAll is every access and refresh token the fixture issued so far.
func (s authServer) issuedAll() []string {
	s.stderr.mu.Lock()
	defer s.stderr.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.stderr.b.String(), "\n") {
		for _, k := range []string{"issued", "issued_refresh"} {
			if v := gjson.Get(l, k).String(); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// noLeak fails for each secret found, in any form, in any text.
func noLeak(t *testing.T, where string, texts map[string]string, secrets []string) {
	t.Helper()
	for name, text := range texts {
		for _, sec := range secrets {
			if sec == "" {
				continue
			}
			if found := leaks(text, sec); len(found) > 0 {
				t.Errorf("%s: a secret (%.6s…) is in %s as %v", where, sec, name, found)
			}
		}
	}
}

// TestOAuthNonInteractive: wire, budget, call, report and snapshot work
// on the protected fixture after client_credentials and after a refresh
// token from the environment, and no secret is in any output.
func TestOAuthNonInteractive(t *testing.T) {
	t.Parallel()
	for _, flow := range []struct {
		name  string
		flags []string
		env   func(s authServer) []string
	}{
		{"client_credentials", []string{"--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET"},
			func(authServer) []string { return []string{"CI_SECRET=fixture-secret"} }},
		{"refresh token", []string{"--client-id", "mcpprobe-app", "--refresh-token-env", "CI_REFRESH"},
			func(s authServer) []string { return []string{"CI_REFRESH=" + s.Refresh} }},
	} {
		t.Run(flow.name, func(t *testing.T) {
			t.Parallel()
			s := startAuthServer(t, "")
			dir := t.TempDir()
			p := func(n string) string { return filepath.Join(dir, n) }
			type run struct {
				args  []string
				files []string
			}
			runs := []run{
				{[]string{"wire", "--trace", p("wire.jsonl"), "--save", p("saved")}, []string{"wire.jsonl", "saved"}},
				{[]string{"wire", "--json", "--out", p("wire.json")}, []string{"wire.json"}},
				{[]string{"budget", "--json"}, nil},
				{[]string{"budget"}, nil},
				{[]string{"call", "--trace", p("call.jsonl")}, []string{"call.jsonl"}},
				{[]string{"call", "--json"}, nil},
				{[]string{"report", "--out", p("report.md")}, []string{"report.md"}},
				{[]string{"report", "--json"}, nil},
				{[]string{"snapshot", "-o", p("lock.json")}, []string{"lock.json"}},
			}
			texts := map[string]string{}
			for _, r := range runs {
				args := append(append(append([]string{}, r.args...), flow.flags...), "--issuer", s.Issuer, s.URL)
				if r.args[0] == "call" {
					args = append(args, "whoami")
				}
				res := probeRun(t, flow.env(s), nil, args...)
				name := strings.Join(r.args[:min(2, len(r.args))], " ")
				if res.code != 0 {
					t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", name, res.code, res.stdout, res.stderr)
				}
				texts[name+" stdout"], texts[name+" stderr"] = res.stdout, res.stderr
				for _, f := range r.files {
					texts[name+" "+f] = readAll(t, p(f))
				}
			}
			if !strings.Contains(texts["wire --trace stdout"], "whoami") || !strings.Contains(texts["call --json stdout"], "authorized") {
				t.Errorf("the protected server's tools were not reached:\n%s\n%s", texts["wire --trace stdout"], texts["call --json stdout"])
			}
			if v := gjson.Get(texts["wire --json wire.json"], "wire.tools.#"); v.Exists() && v.Int() != 1 {
				t.Errorf("wire --json: %d tools", v.Int())
			}
			// The trace keeps the raw view of the OAuth exchanges.
			trace := texts["wire --trace wire.jsonl"]
			for _, want := range []string{`"dir":"auth"`, "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/token"} {
				if !strings.Contains(trace, want) {
					t.Errorf("the trace lacks %s", want)
				}
			}
			secrets := append(s.issuedAll(), "fixture-secret", s.Refresh)
			if len(s.issuedAll()) < len(runs) {
				t.Errorf("the fixture issued %d tokens for %d runs", len(s.issuedAll()), len(runs))
			}
			noLeak(t, flow.name, texts, secrets)
		})
	}
}

// readAll is a file's text, or every file's under a directory.
func readAll(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(path, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			data, _ := os.ReadFile(p)
			b.Write(data)
			b.WriteByte('\n')
		}
		return nil
	})
	if b.Len() == 0 {
		t.Errorf("%s: nothing written", path)
	}
	return b.String()
}

// interactive runs mcpprobe with --oauth and plays the browser: it
// follows the authorization URL printed on stderr with an HTTP client,
// the fixture's scripted consent redirecting it to mcpprobe's loopback
// listener.
func interactive(t *testing.T, env []string, args ...string) (result, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	var urls []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			errText.WriteString(line + "\n")
			if u := strings.TrimSpace(line); strings.HasPrefix(u, "http://") && strings.Contains(u, "/authorize?") {
				urls = append(urls, u)
				go browse(u)
			}
		}
	}()
	err := cmd.Wait()
	pw.Close()
	wg.Wait()
	r := result{stdout: out.String(), stderr: errText.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r, urls
}

// browse is the scripted browser: GET the URL, follow the redirects.
func browse(u string) {
	c := &http.Client{Timeout: 20 * time.Second}
	if resp, err := c.Get(u); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// TestOAuthInteractive: the authorization code flow completes with the
// scripted browser, by a pre-registered client, by dynamic registration
// and by a Client ID Metadata Document; the authorization URL carries
// PKCE S256 and the resource; the token cache then serves a second run
// without a browser.
func TestOAuthInteractive(t *testing.T) {
	t.Parallel()
	cimd := httptest.NewServer(nil)
	t.Cleanup(cimd.Close)
	cimdURL := cimd.URL + "/client.json"
	cimd.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": cimdURL, "client_name": "mcpprobe test", "redirect_uris": []string{"http://127.0.0.1/callback"}})
	})
	for _, tc := range []struct {
		name, variant string
		flags         []string
		grant         string
	}{
		{"pre-registered", "", []string{"--client-id", "mcpprobe-app"}, "pre-registered"},
		{"dynamic registration", "dcr-only", nil, "dynamic registration"},
		{"client id metadata document", "cimd-only", []string{"--client-id", cimdURL}, "Client ID Metadata Document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startAuthServer(t, tc.variant)
			dir := t.TempDir()
			cache, trace := filepath.Join(dir, "tokens.json"), filepath.Join(dir, "t.jsonl")
			args := append(append([]string{"wire", "--json", "--oauth", "--token-cache", cache, "--trace", trace, "--oauth-wait", secs(30 * time.Second)}, tc.flags...), s.URL)
			r, urls := interactive(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if len(urls) != 1 {
				t.Fatalf("%d authorization URLs printed, want 1:\n%s", len(urls), r.stderr)
			}
			for _, want := range []string{"code_challenge_method=S256", "resource=" + strings.ReplaceAll(strings.ReplaceAll(s.URL, ":", "%3A"), "/", "%2F"), "state=", "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
				if !strings.Contains(urls[0], want) {
					t.Errorf("the authorization URL lacks %s: %s", want, urls[0])
				}
			}
			if n := gjson.Get(r.stdout, "wire.tools.#").Int(); n != 1 {
				t.Errorf("%d tools, want 1: %s", n, r.stdout)
			}
			fi, err := os.Stat(cache)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("--token-cache: %v, mode %v; want 0600", err, fi)
			}
			traceText := readAll(t, trace)
			if tc.grant == "dynamic registration" && !strings.Contains(traceText, "/register") {
				t.Errorf("no registration in the trace")
			}
			// A second run takes the cached token: no browser.
			r2 := probeRun(t, nil, nil, "wire", "--json", "--oauth", "--token-cache", cache, "--oauth-wait", "1s", s.URL)
			if r2.code != 0 || strings.Contains(r2.stderr, "/authorize?") {
				t.Errorf("second run with the cache: exit %d, stderr %s", r2.code, r2.stderr)
			}
			secrets := s.issuedAll()
			if len(secrets) < 2 {
				t.Errorf("the fixture issued %d tokens", len(secrets))
			}
			noLeak(t, tc.name, map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": traceText, "second stdout": r2.stdout, "second stderr": r2.stderr}, secrets)
			// The verifier is a secret: the trace's token request shows it redacted.
			if !strings.Contains(traceText, "code_verifier=%2A%2A%2A") && !strings.Contains(traceText, "code_verifier=***") {
				t.Errorf("the token request in the trace does not show the verifier hidden")
			}
		})
	}
}

// TestOAuthRefusals: an authorization server without S256 is refused
// with the clause; flags that cannot apply are usage errors.
func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "no-s256")
	r, urls := interactive(t, nil, "wire", "--oauth", "--client-id", "mcpprobe-app", "--oauth-wait", "5s", s.URL)
	if r.code != 3 || len(urls) != 0 || !strings.Contains(r.stderr, "S256") || !strings.Contains(r.stderr, "MUST refuse") {
		t.Errorf("no S256: exit %d, %d URLs, stderr %s", r.code, len(urls), r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"wire", "--oauth", "--", bin.good}, "URL targets"},
		{[]string{"wire", "--client-secret-env", "X", s.URL}, "needs --client-id"},
		{[]string{"wire", "--client-id", "mcpprobe-app", s.URL}, "say how to get the token"},
		{[]string{"wire", "--oauth", "-H", "Authorization: Bearer x", s.URL}, "one credential"},
		{[]string{"budget", "--client-id", "a", "--client-secret-env", "OAUTH_UNSET_VAR", s.URL}, "OAUTH_UNSET_VAR"},
		{[]string{"call", "--client-id", "a", "--refresh-token-env", "R", "--oauth", s.URL, "whoami"}, "one way"},
		{[]string{"wire", "--oauth-browser-cmd", "true", "--client-id", "a", "--client-secret-env", "HOME", s.URL}, "with --oauth"},
	} {
		r := probeRun(t, nil, nil, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestOAuthNoForeignOrigin: a protected server that redirects the
// authorized request to another origin: the token goes there never.
func TestOAuthNoForeignOrigin(t *testing.T) {
	t.Parallel()
	as := startAuthServer(t, "")
	var mu sync.Mutex
	var seen []string
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(500)
	}))
	t.Cleanup(foreign.Close)
	var front *httptest.Server
	front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, front.URL+"/mcp", as.Issuer)
		case r.Header.Get("Authorization") == "":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+front.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
		case r.URL.Path == "/mcp":
			http.Redirect(w, r, front.URL+"/moved", http.StatusTemporaryRedirect) // same origin: followed
		default:
			http.Redirect(w, r, foreign.URL+"/mcp", http.StatusTemporaryRedirect)
		}
	}))
	t.Cleanup(front.Close)
	r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, "wire", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", as.Issuer, front.URL+"/mcp")
	if r.code != 3 || !strings.Contains(r.stderr, "another origin") {
		t.Errorf("exit %d, stderr %s; want 3 and the refused redirect", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 0 {
		t.Errorf("the foreign origin was reached: %q", seen)
	}
	noLeak(t, "foreign redirect", map[string]string{"stdout": r.stdout, "stderr": r.stderr}, append(as.issuedAll(), "fixture-secret"))
}

// oauthRefusedRows are the flag matrix's rows for the OAuth flags where
// line's target is a command (or --config FILE --all): each is refused,
// exit 2, naming it. Their effect on a URL target is this file's tests.
func oauthRefusedRows(line func(flags ...string) []string) []flagRow {
	return []flagRow{
		refusedRow("oauth", line("--oauth")...),
		refusedRow("client-id", line("--client-id", "a", "--client-secret-env", "HOME")...),
		refusedRow("client-secret-env", line("--client-secret-env", "HOME")...),
		refusedRow("refresh-token-env", line("--refresh-token-env", "HOME")...),
		refusedRow("client-key", line("--client-key", "/tmp/mcpprobe-matrix-key.pem")...),
		refusedRow("oauth-scope", line("--oauth-scope", "mcp")...),
		refusedRow("token-cache", line("--token-cache", "/tmp/mcpprobe-matrix-cache")...),
		refusedRow("oauth-browser-cmd", line("--oauth-browser-cmd", "true")...),
		refusedRow("oauth-wait", line("--oauth-wait", "1s")...),
		refusedRow("issuer", line("--issuer", "https://as.example")...),
	}
}

// --oauth-browser-cmd: the command is run with the authorization URL (a
// curl that follows the redirects stands in for the browser); nothing
// else follows it.
func TestOAuthBrowserCmd(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl to stand in for the browser")
	}
	s := startAuthServer(t, "")
	r := probeRun(t, nil, nil, "wire", "--json", "--oauth", "--client-id", "mcpprobe-app", "--oauth-browser-cmd", curl+" -sfL -o /dev/null", "--oauth-wait", secs(30*time.Second), s.URL)
	if r.code != 0 || gjson.Get(r.stdout, "wire.tools.#").Int() != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	noLeak(t, "browser cmd", map[string]string{"stdout": r.stdout, "stderr": r.stderr}, s.issuedAll())
}

// --oauth-scope replaces the challenge's scope in the token request,
// which carries the resource (RFC 8707) too.
func TestOAuthScope(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	dir := t.TempDir()
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, "scope=mcp&"},
		{[]string{"--oauth-scope", "mcp extra"}, "scope=mcp+extra"},
	} {
		tr := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", len(tc.flags)))
		args := append(append([]string{"wire", "--trace", tr, "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer}, tc.flags...), s.URL)
		if r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, args...); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var tokenReq string
		for _, l := range strings.Split(readAll(t, tr), "\n") {
			if gjson.Get(l, "dir").String() == "auth" && strings.HasSuffix(gjson.Get(l, "http.url").String(), "/token") && gjson.Get(l, "http.method").String() == "POST" {
				tokenReq = gjson.Get(l, "raw").String()
			}
		}
		if !strings.Contains(tokenReq+"&", tc.want) || !strings.Contains(tokenReq, "resource=") {
			t.Errorf("%q: the token request %q lacks %s or the resource", tc.flags, tokenReq, tc.want)
		}
	}
}

// A 401 in the session: one refresh (client_credentials again at the
// fixture's authorization server) and the request again; a server that
// refuses the fresh token too gets the clear message.
func TestOAuthRefreshMidSession(t *testing.T) {
	t.Parallel()
	as := startAuthServer(t, "")
	for _, tc := range []struct {
		name    string
		refuse  func(n int) bool // tools/list refused with the n-th distinct token (from 1)
		code    int              // wire's exit
		want    string
		minToks int
	}{
		{"the first token revoked", func(n int) bool { return n == 1 }, 0, "whoami", 2},
		// wire reports a list that failed as a finding (list-http-error), with the message.
		{"every token refused", func(int) bool { return true }, 0, "the fresh one it was refreshed to once", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var order []string
			var front *httptest.Server
			front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, front.URL+"/mcp", as.Issuer)
					return
				}
				body, _ := io.ReadAll(r.Body)
				msg := gjson.ParseBytes(body)
				mu.Lock()
				n := slices.Index(order, tok) + 1
				if n == 0 && tok != "" {
					order = append(order, tok)
					n = len(order)
				}
				mu.Unlock()
				if tok == "" || (msg.Get("method").String() == "tools/list" && tc.refuse(n)) {
					w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
					w.WriteHeader(401)
					return
				}
				id := msg.Get("id").Raw
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.Method != http.MethodPost:
					w.WriteHeader(405)
				case msg.Get("method").String() == "initialize":
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"front","version":"1"}}}`, id)
				case msg.Get("method").String() == "tools/list":
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}}`, id)
				case msg.Get("id").Exists():
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, id)
				default:
					w.WriteHeader(202)
				}
			}))
			t.Cleanup(front.Close)
			r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, "wire", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", as.Issuer, front.URL+"/mcp")
			if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Errorf("exit %d, want %d and %q:\n%s\n%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(order) != tc.minToks {
				t.Errorf("%d distinct tokens reached the server, want %d (one refresh)", len(order), tc.minToks)
			}
			noLeak(t, tc.name, map[string]string{"stdout": r.stdout, "stderr": r.stderr}, append(as.issuedAll(), "fixture-secret"))
		})
	}
}

// report --auth and check --auth take the OAuth flags' token as the
// audit's baseline.
func TestOAuthAuditBaseline(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	for _, cmd := range []string{"report", "check"} {
		r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, cmd, "--auth", "--json", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer, s.URL)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, r.code, r.stderr)
		}
		if o := gjson.Get(r.stdout, cmd+`.auth.rows.#(id=="base").outcome`).String(); o != "pass" {
			t.Errorf("%s --auth: baseline %q, want pass with the OAuth token", cmd, o)
		}
		noLeak(t, cmd, map[string]string{"stdout": r.stdout, "stderr": r.stderr}, append(s.issuedAll(), "fixture-secret"))
	}
}

// A tool that needs a scope the token lacks gets 403 insufficient_scope:
// mcpprobe re-authorizes with the challenged scope (union with its own),
// says so with the clause, and the call succeeds (it failed with the 403).
func TestOAuthStepUp(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "tool-scope")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	r := probeRun(t, []string{"CI_SECRET=fixture-secret"}, nil, "call", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET",
		"--issuer", s.Issuer, "--trace", trace, s.URL, "admin")
	if r.code != 0 || !strings.Contains(r.stdout, "admin granted") {
		t.Fatalf("exit %d, want the call through after a step-up:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, `step-up 1 of at most 2: the server answered 403 insufficient_scope asking for scope "mcp admin"`) ||
		!strings.Contains(r.stderr, "Scope Challenge Handling") {
		t.Errorf("stderr does not say the step-up and its clause:\n%s", r.stderr)
	}
	b, _ := os.ReadFile(trace)
	if n := strings.Count(string(b), `\"step_up\"`); n != 1 {
		t.Errorf("%d step_up frames in the trace, want 1", n)
	}
	if issued := s.issued(); len(issued) != 2 {
		t.Errorf("the token endpoint issued %d tokens, want 2 (the first, the stepped-up one)", len(issued))
	}
}
