package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// fakeServer is a protected MCP endpoint and its authorization server on
// one origin, configured per test.
type fakeServer struct {
	*httptest.Server
	mu       *sync.Mutex
	issued   []string
	accept   func(n int) bool // whether the n-th token issued (from 1) is accepted
	prm      string           // the path the metadata is served at
	asMeta   string           // the path the AS metadata is served at
	issuer   string           // the issuer path under the origin
	header   bool             // the 401 names resource_metadata
	resource string           // the metadata's resource ("" for the endpoint)
	badIss   bool
}

func newFake(t *testing.T, f *fakeServer) *fakeServer {
	f.mu = &sync.Mutex{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/mcp":
		f.mu.Lock()
		n := slices.Index(f.issued, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) + 1
		f.mu.Unlock()
		if n == 0 || !f.accept(n) {
			if f.header {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+f.URL+f.prm+`", scope="mcp:x"`)
			} else {
				w.Header().Set("WWW-Authenticate", `Bearer`)
			}
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	case r.URL.Path == f.prm:
		res := f.resource
		if res == "" {
			res = f.URL + "/mcp"
		}
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, res, f.URL+f.issuer)
	case r.URL.Path == f.asMeta:
		iss := f.URL + f.issuer
		if f.badIss {
			iss += "/elsewhere"
		}
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q,"code_challenge_methods_supported":["S256"]}`, iss, f.URL+"/token")
	case r.URL.Path == "/token":
		if r.FormValue("resource") != f.URL+"/mcp" || r.FormValue("grant_type") != "client_credentials" {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_target"}`)
			return
		}
		f.mu.Lock()
		tok := fmt.Sprintf("tok-%d-abcdef", len(f.issued)+1)
		f.issued = append(f.issued, tok)
		f.mu.Unlock()
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, tok)
	default:
		http.NotFound(w, r)
	}
}

func ccHost(f *fakeServer, secrets *[]string) *Host {
	return New(Options{URL: f.URL + "/mcp", ClientID: "ci", ClientSecret: "s3cret", Timeout: 5 * time.Second,
		OnSecret: func(s string) { *secrets = append(*secrets, s) }})
}

// authGets are the GETs of the OAuth exchanges, in order.
func authGets(tr *transport.Trace) []string {
	var out []string
	for _, f := range tr.Frames() {
		if f.Dir == transport.DirAuth && f.HTTP != nil && f.HTTP.Method == http.MethodGet {
			out = append(out, f.HTTP.URL)
		}
	}
	return out
}

// The discovery walks the spec's orders: the header's metadata URL when
// there is one, else the path form, then the root; for the issuer, RFC
// 8414 path-inserted, then OpenID Connect path-inserted, path-appended.
func TestDiscoveryOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    fakeServer
		want []string // paths, in order
	}{
		{"header", fakeServer{header: true, prm: "/meta/prm", asMeta: "/.well-known/oauth-authorization-server"},
			[]string{"/meta/prm", "/.well-known/oauth-authorization-server"}},
		{"path form", fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", asMeta: "/.well-known/oauth-authorization-server"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}},
		{"root, then OIDC", fakeServer{prm: "/.well-known/oauth-protected-resource", asMeta: "/.well-known/openid-configuration"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"issuer with a path, OIDC appended", fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", issuer: "/tenant1", asMeta: "/tenant1/.well-known/openid-configuration"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.accept = func(int) bool { return true }
			f := newFake(t, &tc.f)
			var secrets []string
			h := ccHost(f, &secrets)
			tr := transport.NewTrace(time.Now())
			if err := h.Authorize(context.Background(), tr); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range authGets(tr) {
				got = append(got, strings.TrimPrefix(u, f.URL))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("order:\n got %q\nwant %q", got, tc.want)
			}
			if h.Grant() != "client_credentials" || h.Resource() != f.URL+"/mcp" {
				t.Errorf("grant %q, resource %q", h.Grant(), h.Resource())
			}
			if !slices.Contains(secrets, "s3cret") || !slices.Contains(secrets, "tok-1-abcdef") {
				t.Errorf("secrets handed over: %q", secrets)
			}
			if want := "mcp:x"; tc.f.header && h.scope != want {
				t.Errorf("scope %q, want the challenge's %q", h.scope, want)
			}
		})
	}
}

// Metadata a client MUST NOT use is refused, with the clause.
func TestDiscoveryRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    fakeServer
		want string
	}{
		{"issuer mismatch", fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", asMeta: "/.well-known/oauth-authorization-server", badIss: true}, "RFC 8414 §3.3"},
		{"resource mismatch", fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", asMeta: "/.well-known/oauth-authorization-server", resource: "https://elsewhere.example/mcp"}, "RFC 9728 §3.3"},
		// No protected-resource metadata: the 2025-03-26 fallback finds
		// the origin's authorization-server metadata, and checks it.
		{"no metadata, the origin's names another issuer", fakeServer{prm: "/nowhere", asMeta: "/.well-known/oauth-authorization-server", badIss: true}, "RFC 8414 §3.3"},
		{"no AS metadata", fakeServer{prm: "/.well-known/oauth-protected-resource", asMeta: "/nowhere"}, "no authorization-server metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.accept = func(int) bool { return true }
			f := newFake(t, &tc.f)
			var secrets []string
			err := ccHost(f, &secrets).Authorize(context.Background(), transport.NewTrace(time.Now()))
			var oe *Error
			if !errors.As(err, &oe) || !strings.Contains(oe.What, tc.want) || oe.Try == "" {
				t.Errorf("err %v, want an *Error naming %q with what to try", err, tc.want)
			}
		})
	}
}

// Through the transport: the token goes with every request to its
// origin; a 401 mid-session gets one refresh, then a clear error.
func TestRefreshOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		accept  func(int) bool
		wantErr string
		issued  int
	}{
		{"first token revoked, the fresh one taken", func(n int) bool { return n >= 2 }, "", 2},
		{"every token refused", func(int) bool { return false }, "refreshed to once", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, &fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", asMeta: "/.well-known/oauth-authorization-server", accept: tc.accept})
			var secrets []string
			h := ccHost(f, &secrets)
			tr := transport.NewTrace(time.Now())
			if err := h.Authorize(context.Background(), tr); err != nil {
				t.Fatal(err)
			}
			c, err := transport.NewHTTP(transport.HTTPOptions{URL: f.URL + "/mcp", Mode: "streamable", Trace: tr, Bearer: h, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("send: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("send: %v, want %q", err, tc.wantErr)
			}
			f.mu.Lock()
			n := len(f.issued)
			f.mu.Unlock()
			if n != tc.issued {
				t.Errorf("%d tokens issued, want %d (one refresh)", n, tc.issued)
			}
		})
	}
}

// The token is for its origin only.
func TestAuthorizationOriginOnly(t *testing.T) {
	f := newFake(t, &fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", asMeta: "/.well-known/oauth-authorization-server", accept: func(int) bool { return true }})
	var secrets []string
	h := ccHost(f, &secrets)
	if err := h.Authorize(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]bool{
		f.URL + "/mcp": true, f.URL + "/messages?session=1": true, strings.Replace(f.URL, "127.0.0.1", "localhost", 1) + "/mcp": false,
		"https://evil.example/mcp": false, strings.Replace(f.URL, "http:", "https:", 1) + "/mcp": false,
	} {
		if got := h.Authorization(context.Background(), mustURL(t, u), nil) != ""; got != want {
			t.Errorf("%s: token sent %v, want %v", u, got, want)
		}
	}
}

// --token-cache: a second run takes the token kept for the same resource
// and issuer (the token endpoint is not asked again); the file is 0600;
// another resource does not take it.
func TestTokenCache(t *testing.T) {
	f := newFake(t, &fakeServer{prm: "/.well-known/oauth-protected-resource/mcp", asMeta: "/.well-known/oauth-authorization-server", accept: func(int) bool { return true }})
	path := t.TempDir() + "/tokens.json"
	run := func() *Host {
		var secrets []string
		h := New(Options{URL: f.URL + "/mcp", ClientID: "ci", ClientSecret: "s3cret", CachePath: path, Timeout: 5 * time.Second,
			OnSecret: func(s string) { secrets = append(secrets, s) }})
		if err := h.Authorize(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(secrets, "tok-1-abcdef") {
			t.Errorf("the cached token is not a secret of the run: %q", secrets)
		}
		return h
	}
	run()
	h := run()
	f.mu.Lock()
	n := len(f.issued)
	f.mu.Unlock()
	if n != 1 || !strings.Contains(h.Grant(), "--token-cache") {
		t.Errorf("%d tokens issued, grant %q; want 1 and the cache's", n, h.Grant())
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file: %v %v, want 0600", err, fi)
	}
	c, _ := readCache(path)
	if _, ok := c.Entries[f.URL+"/mcp "+f.URL]; !ok || len(c.Entries) != 1 {
		t.Errorf("cache keys: %v", c.Entries)
	}
}

// The target's headers (-H) go to the MCP server's origin only, not to
// metadata the challenge names on another origin.
func TestHeadersStayOnOrigin(t *testing.T) {
	as := newFake(t, &fakeServer{prm: "/unused", asMeta: "/.well-known/oauth-authorization-server", accept: func(int) bool { return true }})
	var mu sync.Mutex
	var seen []string
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, as.URL+"/mcp", as.URL)
	}))
	t.Cleanup(meta.Close)
	var rsSaw string
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rsSaw = r.Header.Get("X-Api-Key")
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta.URL+`/prm"`)
		w.WriteHeader(401)
	}))
	t.Cleanup(rs.Close)
	h := New(Options{URL: rs.URL + "/mcp", ClientID: "ci", ClientSecret: "s", Headers: []string{"X-Api-Key: k1"}, Timeout: 5 * time.Second})
	err := h.Authorize(context.Background(), nil)
	// The metadata names another resource than rs: refused, after the fetch.
	if err == nil || !strings.Contains(err.Error(), "RFC 9728") {
		t.Errorf("err %v, want the resource mismatch", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if rsSaw != "k1" || len(seen) != 1 || seen[0] != "" {
		t.Errorf("the server saw %q, the foreign metadata %q; want k1 and no header", rsSaw, seen)
	}
}

// Without protected-resource metadata, a 2025-03-26 client takes the
// authorization-server metadata at the resource's origin, else the
// default endpoints there (legacy.go); metadata that is there but fails
// validation is no reason to fall back (TestDiscoveryRefusals).
func TestLegacyFallback(t *testing.T) {
	for _, tc := range []struct {
		name, asMeta string
	}{
		{"metadata at the origin", "/.well-known/oauth-authorization-server"},
		{"default endpoints", "/nowhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, &fakeServer{prm: "/nowhere", asMeta: tc.asMeta, accept: func(int) bool { return true }})
			var secrets []string
			var prompt strings.Builder
			h := ccHost(f, &secrets)
			h.o.Prompt = &prompt
			tr := transport.NewTrace(time.Now())
			if err := h.Authorize(context.Background(), tr); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range authGets(tr) {
				got = append(got, strings.TrimPrefix(u, f.URL))
			}
			want := []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"}
			if !slices.Equal(got, want) {
				t.Errorf("GETs %q, want %q", got, want)
			}
			if h.Grant() != "client_credentials" || h.AccessToken() != "tok-1-abcdef" || h.as.TokenEndpoint != f.URL+"/token" {
				t.Errorf("grant %q, token endpoint %q", h.Grant(), h.as.TokenEndpoint)
			}
			if !strings.Contains(prompt.String(), "MCP 2025-03-26 basic/authorization") {
				t.Errorf("the prompt does not name the clause: %q", prompt.String())
			}
		})
	}
}
