//go:build e2e

package main

// A change of authorization server mid-run (2026-07-28 basic/authorization
// client-registration, "Authorization Server Binding"): a resource whose
// metadata moves from one authorization server to another once the first
// token served; mcpprobe registers anew at the second and signs in there
// (the old client never shown to it); and, hostile, metadata that names
// the other server at every fetch on a resource that then refuses every
// token: each change followed once, the way back never, the run ends.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// migAS is an authorization server that registers dynamically and
// approves at once; it records the client ids it is shown.
type migAS struct {
	*httptest.Server
	name  string
	mu    sync.Mutex
	regs  int
	shown []string
	toks  []string
}

func newMigAS(t *testing.T, name string) *migAS {
	a := &migAS{name: name}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"registration_endpoint":%q,"code_challenge_methods_supported":["S256"]}`,
				a.URL, a.URL+"/authorize", a.URL+"/token", a.URL+"/register")
		case "/register":
			a.regs++
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"client_id":"%s-client-%d"}`, a.name, a.regs)
		case "/authorize":
			q := r.URL.Query()
			a.shown = append(a.shown, q.Get("client_id"))
			to, _ := url.Parse(q.Get("redirect_uri"))
			to.RawQuery = url.Values{"code": {a.name + "-code"}, "state": {q.Get("state")}}.Encode()
			http.Redirect(w, r, to.String(), http.StatusFound)
		case "/token":
			_ = r.ParseForm()
			a.shown = append(a.shown, r.PostForm.Get("client_id"))
			tok := fmt.Sprintf("%s-token-%d-0123456789", a.name, len(a.toks)+1)
			a.toks = append(a.toks, tok)
			fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer"}`, tok)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *migAS) issued(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.toks {
		if t == tok {
			return true
		}
	}
	return false
}

// migRS is a protected MCP server (2025-11-25, one tool) whose metadata
// names the authorization server current() returns at each fetch, and
// which serves a token when accept says so.
func migRS(t *testing.T, current func() *migAS, accept func(tok string) bool) *httptest.Server {
	return scopedRS(t, current, func(tok, _ string) bool { return accept(tok) }, nil, "")
}

// scopedRS is migRS whose accept also sees the method, whose metadata
// lists scopes_supported, and whose 401 names scope when not "".
func scopedRS(t *testing.T, current func() *migAS, accept func(tok, method string) bool, supported []string, scope string) *httptest.Server {
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			sup, _ := json.Marshal(supported)
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q],"scopes_supported":%s}`, rs.URL+"/mcp", current().URL, sup)
			return
		}
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if !accept(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), msg.Method) {
			challenge := `Bearer error="invalid_token", resource_metadata="` + rs.URL + `/.well-known/oauth-protected-resource/mcp"`
			if scope != "" {
				challenge += `, scope="` + scope + `"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var res string
		switch msg.Method {
		case "initialize":
			res = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"migrating","version":"1"}}`
		case "tools/list":
			res = `{"tools":[{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"}}]}`
		case "ping":
			res = `{}`
		default:
			if msg.ID == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, msg.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, res)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func TestOAuthAuthorizationServerChange(t *testing.T) {
	t.Parallel()
	as1, as2 := newMigAS(t, "as1"), newMigAS(t, "as2")
	var mu sync.Mutex
	moved := false
	rs := migRS(t, func() *migAS {
		mu.Lock()
		defer mu.Unlock()
		if moved {
			return as2
		}
		return as1
	}, func(tok string) bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case as2.issued(tok):
			return true
		case as1.issued(tok) && !moved:
			moved = true // served once; then the resource moves
			return true
		}
		return false
	})
	res, urls := interactive(t, nil, "wire", "--oauth", "--oauth-wait", "20s", rs.URL+"/mcp")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if len(urls) != 2 || !strings.HasPrefix(urls[0], as1.URL) || !strings.HasPrefix(urls[1], as2.URL) {
		t.Errorf("authorization URLs %q: want as1's, then as2's", urls)
	}
	if as2.regs != 1 {
		t.Errorf("%d registrations at the new server, want 1", as2.regs)
	}
	for _, id := range as2.shown {
		if strings.HasPrefix(id, "as1-") {
			t.Errorf("the old server's client %q was shown to the new one", id)
		}
	}
	if !strings.Contains(res.stderr, "Authorization Server Binding") || !strings.Contains(res.stdout, "echo") {
		t.Errorf("stderr does not name the change's clause, or the tool was not listed:\nstdout %s\nstderr %s", res.stdout, res.stderr)
	}
}

func TestOAuthAuthorizationServerFlipFlop(t *testing.T) {
	t.Parallel()
	as1, as2 := newMigAS(t, "as1"), newMigAS(t, "as2")
	var mu sync.Mutex
	fetches, served := 0, false
	rs := migRS(t, func() *migAS {
		mu.Lock()
		defer mu.Unlock()
		fetches++
		if fetches%2 == 1 {
			return as1
		}
		return as2
	}, func(tok string) bool {
		mu.Lock()
		defer mu.Unlock()
		if !served && as1.issued(tok) {
			served = true
			return true
		}
		return false
	})
	res, urls := interactive(t, nil, "wire", "--oauth", "--oauth-wait", "20s", rs.URL+"/mcp")
	if res.code != 3 {
		t.Errorf("exit %d, want 3 (the server refuses every token)\nstderr %s", res.code, res.stderr)
	}
	if len(urls) > 2 {
		t.Errorf("%d sign-ins, want at most 2 (the first, one change)", len(urls))
	}
	if as1.regs+as2.regs > 2 {
		t.Errorf("%d registrations, want at most 2", as1.regs+as2.regs)
	}
}

// A server that serves initialize without a token and asks for one
// after it: the scope asked first is its first 401's (2025-11-25
// basic/authorization, Scope Selection Strategy), not scopes_supported.
func TestOAuthScopeFromFirst401(t *testing.T) {
	t.Parallel()
	as := newMigAS(t, "as")
	rs := scopedRS(t, func() *migAS { return as }, func(tok, method string) bool {
		return method == "initialize" || strings.HasPrefix(method, "notifications/") || as.issued(tok)
	}, []string{"mcp:profile"}, "mcp:basic")
	res, urls := interactive(t, nil, "wire", "--oauth", "--oauth-wait", "20s", rs.URL+"/mcp")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if len(urls) != 1 || !strings.Contains(urls[0], "scope=mcp%3Abasic") {
		t.Errorf("authorization URLs %q: want one asking scope mcp:basic", urls)
	}
}
