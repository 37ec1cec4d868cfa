//go:build e2e

package main

// Issue 36, "Secrets stay home", the credentials half: a client secret
// goes to no authorization server on another origin unless the user
// named it (--issuer); --token-cache is kept like an ssh key; a server
// echoing the Basic value, the form-encoded secret or the refresh token
// gets *** in every output.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// TestClientSecretStaysHome: the fixture's authorization server is on a
// second loopback port, another origin than the resource's: without
// --issuer no command sends it the secret, and each says which origin
// asked; with --issuer the secret goes and stderr says where.
func TestClientSecretStaysHome(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	env := []string{"CI_SECRET=fixture-secret", "CI_REFRESH=" + s.Refresh}
	asOrigin := strings.TrimSuffix(s.Issuer, "/")
	for _, args := range [][]string{
		{"wire", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL},
		{"wire", "--client-id", "mcpprobe-app", "--refresh-token-env", "CI_REFRESH", s.URL},
		{"check", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL},
	} {
		r := probeRun(t, env, nil, args...)
		if r.code != 3 || !strings.Contains(r.stderr, "refuses to send") || !strings.Contains(r.stderr, asOrigin) || !strings.Contains(r.stderr, "--issuer") {
			t.Errorf("%v: exit %d, want 3 naming %s and --issuer:\n%s", args, r.code, asOrigin, r.stderr)
		}
	}
	r := probeRun(t, env, nil, "auth", "--json", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", s.URL)
	if !strings.Contains(r.stderr, "refused to send the client secret") || !strings.Contains(r.stderr, asOrigin) {
		t.Errorf("auth: stderr does not say the secret was refused:\n%s", r.stderr)
	}
	if n := len(s.issuedAll()); n != 0 {
		t.Errorf("the authorization server issued %d tokens: it got the secret or the refresh token", n)
	}
	// Named, it goes, and stderr says where.
	for _, args := range [][]string{
		{"wire", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer, s.URL},
		{"auth", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", s.Issuer, s.URL},
	} {
		r := probeRun(t, env, nil, args...)
		if want := "sent client secret to " + asOrigin + " (token endpoint)"; r.code != 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, want 0 and %q:\n%s", args[0], r.code, want, r.stderr)
		}
	}
	// An --issuer the resource does not list is refused too.
	r = probeRun(t, env, nil, "wire", "--client-id", "mcpprobe-ci", "--client-secret-env", "CI_SECRET", "--issuer", "https://other.example", s.URL)
	if r.code != 3 || !strings.Contains(r.stderr, "is not one of the authorization servers") {
		t.Errorf("foreign --issuer: exit %d\n%s", r.code, r.stderr)
	}
	if r := probeRun(t, env, nil, "wire", "--issuer", "not a url", "--client-id", "a", "--client-secret-env", "CI_SECRET", s.URL); r.code != 2 {
		t.Errorf("--issuer 'not a url': exit %d", r.code)
	}
}

// TestEchoedCredentials: a server (resource and authorization server on
// one origin) that echoes the Basic value it was sent, the form-encoded
// secret and the refresh token it issued, in its tools, instructions and
// errors: every output shows *** in their place.
func TestEchoedCredentials(t *testing.T) {
	t.Parallel()
	const secret = "s3cr/t+v@lue=&x y~!"
	const clientID = "ci:client"
	basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(clientID) + ":" + url.QueryEscape(secret)))
	const refresh = "rt-canary-0123456789abcdef"
	const access = "at-canary-0123456789abcdef"
	var mu sync.Mutex
	var seen []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		echo := strings.Join(seen, " | ")
		mu.Unlock()
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp":
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", srv.URL)
		case r.URL.Path == "/.well-known/oauth-authorization-server":
			fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q,"token_endpoint_auth_methods_supported":["client_secret_basic"]}`, srv.URL, srv.URL+"/token")
		case r.URL.Path == "/token":
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"), string(body), "Basic "+basic, url.QueryEscape(secret), refresh)
			mu.Unlock()
			fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600,"refresh_token":%q}`, access, refresh)
		case r.Header.Get("Authorization") != "Bearer "+access:
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
		default:
			body, _ := io.ReadAll(r.Body)
			msg := gjson.ParseBytes(body)
			id := msg.Get("id").Raw
			switch {
			case r.Method != http.MethodPost:
				w.WriteHeader(405)
			case msg.Get("method").String() == "initialize":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"},"instructions":%s}}`, id, q("Seen: "+echo))
			case msg.Get("method").String() == "tools/list":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"alpha","description":%s,"inputSchema":{"type":"object"}}]}}`, id, q("Seen "+echo))
			case msg.Get("id").Exists():
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%s}}`, id, q("no method for "+echo))
			default:
				w.WriteHeader(202)
			}
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	flags := []string{"--client-id", clientID, "--client-secret-env", "S", "--token-cache", p("cache.json")}
	texts := map[string]string{}
	for _, args := range [][]string{
		{"wire", "--trace", p("wire.jsonl")},
		{"wire", "--json", "--out", p("wire.json")},
		{"report", "--out", p("report.md")},
		{"snapshot", "-o", p("lock.json")},
	} {
		r := probeRun(t, []string{"S=" + secret}, nil, append(append(args, flags...), srv.URL+"/mcp")...)
		texts[args[0]+" "+args[1]+" stdout"], texts[args[0]+" "+args[1]+" stderr"] = r.stdout, r.stderr
		if r.code != 0 {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	for _, f := range []string{"wire.jsonl", "wire.json", "report.md", "lock.json", "cache.json"} {
		texts[f] = readAll(t, p(f))
	}
	if !strings.Contains(texts["wire --trace stdout"]+texts["wire.jsonl"], "***") {
		t.Errorf("nothing was hidden: the server echoed nothing?\n%s", texts["wire --trace stdout"])
	}
	for name, text := range texts {
		for _, c := range []string{basic, url.QueryEscape(secret), secret, refresh} {
			if name == "cache.json" && c == refresh {
				continue // the cache keeps the tokens: that is what it is for
			}
			if strings.Contains(text, c) {
				t.Errorf("%s shows %q:\n%s", name, c, text)
			}
			// Nor the head a display limit left of it before "…".
			for k := 8; k < len(c); k++ {
				if strings.Contains(text, c[:k]+"…") {
					t.Errorf("%s shows the head of %q cut: %q…", name, c, c[:k])
					break
				}
			}
		}
	}
	cache := texts["cache.json"]
	delete(texts, "cache.json")
	noLeak(t, "echo", texts, []string{secret, refresh})
	noLeak(t, "echo", map[string]string{"cache.json": cache}, []string{secret})
}
