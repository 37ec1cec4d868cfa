package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"golang.org/x/oauth2"
)

// fakeAS is an authorization server that registers dynamically and
// approves at once, recording the client ids it sees.
type fakeAS struct {
	*httptest.Server
	name string
	mu   sync.Mutex
	regs int      // registrations
	auth []string // client ids at /authorize
	toks []string // client ids at /token
	n    int
}

func newFakeAS(t *testing.T, name string) *fakeAS {
	a := &fakeAS{name: name}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
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
		a.auth = append(a.auth, q.Get("client_id"))
		to, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {a.name + "-code"}, "state": {q.Get("state")}}
		to.RawQuery = v.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		a.toks = append(a.toks, r.PostForm.Get("client_id"))
		a.n++
		fmt.Fprintf(w, `{"access_token":"%s-tok-%d","token_type":"Bearer"}`, a.name, a.n)
	default:
		http.NotFound(w, r)
	}
}

// browser is a Prompt that opens the authorization URL mcpprobe prints,
// as a person at a browser would, following the redirect to the
// loopback listener.
type browser struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *browser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	for _, line := range strings.Split(string(p), "\n") {
		if u := strings.TrimSpace(line); strings.HasPrefix(line, "  http") {
			go func() {
				c := &http.Client{Timeout: 5 * time.Second}
				if resp, err := c.Get(u); err == nil {
					resp.Body.Close()
				}
			}()
		}
	}
	return len(p), nil
}

func (b *browser) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// migratingRS is a protected MCP endpoint whose metadata names the
// authorization server next() returns at each fetch.
func migratingRS(t *testing.T, next func() string) *httptest.Server {
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/mcp":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		case "/.well-known/oauth-protected-resource/mcp":
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, rs.URL+"/mcp", next())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(rs.Close)
	return rs
}

// A 401 after the metadata moved to another authorization server: the
// probe registers anew there and signs in with the new client, the old
// one never shown to the new server, and says so with the clause.
func TestMigrateReRegisters(t *testing.T) {
	as1, as2 := newFakeAS(t, "as1"), newFakeAS(t, "as2")
	var mu sync.Mutex
	current := as1.URL
	rs := migratingRS(t, func() string { mu.Lock(); defer mu.Unlock(); return current })
	prompt := &browser{}
	h := New(Options{URL: rs.URL + "/mcp", Interactive: true, Timeout: 5 * time.Second, Wait: 10 * time.Second, Prompt: prompt})
	tr := transport.NewTrace(time.Now())
	if err := h.Authorize(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	if h.AccessToken() != "as1-tok-1" {
		t.Fatalf("token %q, want as1's", h.AccessToken())
	}
	mu.Lock()
	current = as2.URL
	mu.Unlock()
	err := h.RefreshAfter(context.Background(), "Bearer as1-tok-1", []string{`Bearer resource_metadata="` + rs.URL + `/.well-known/oauth-protected-resource/mcp", error="invalid_token"`}, tr)
	if err != nil {
		t.Fatalf("RefreshAfter: %v\n%s", err, prompt)
	}
	if h.AccessToken() != "as2-tok-1" {
		t.Errorf("token %q after the change, want as2's", h.AccessToken())
	}
	if as2.regs != 1 {
		t.Errorf("%d registrations at the new server, want 1", as2.regs)
	}
	for _, id := range append(as2.auth, as2.toks...) {
		if strings.HasPrefix(id, "as1-") {
			t.Errorf("the old server's client %q was shown to the new one", id)
		}
	}
	if len(as2.auth) != 1 || as2.auth[0] != "as2-client-1" {
		t.Errorf("clients at the new /authorize %q, want [as2-client-1]", as2.auth)
	}
	if !strings.Contains(prompt.String(), "Authorization Server Binding") || !strings.Contains(prompt.String(), "change 1 of at most 2") {
		t.Errorf("stderr does not name the change and its clause:\n%s", prompt)
	}
	var change bool
	for _, f := range tr.Frames() {
		if f.Dir == transport.DirAuth && bytes.Contains(f.Raw, []byte(`"authorization_server_change"`)) {
			var m map[string]map[string]any
			_ = json.Unmarshal(f.Raw, &m)
			change = m["authorization_server_change"]["to"] == as2.URL && m["authorization_server_change"]["from"] == as1.URL
		}
	}
	if !change {
		t.Error("the trace has no authorization_server_change frame from as1 to as2")
	}
}

// Hostile: metadata that names the other server at every fetch, on a
// resource that refuses every token. Each change is followed once, the
// way back never: however many 401s, two sign-ins in all.
func TestMigrateFlipFlopIsBounded(t *testing.T) {
	as1, as2 := newFakeAS(t, "as1"), newFakeAS(t, "as2")
	var mu sync.Mutex
	n := 0
	rs := migratingRS(t, func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n%2 == 1 {
			return as1.URL
		}
		return as2.URL
	})
	prompt := &browser{}
	h := New(Options{URL: rs.URL + "/mcp", Interactive: true, Timeout: 5 * time.Second, Wait: 10 * time.Second, Prompt: prompt})
	tr := transport.NewTrace(time.Now())
	if err := h.Authorize(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for range 8 {
		if err := h.RefreshAfter(context.Background(), "Bearer "+h.AccessToken(), nil, tr); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if got := len(as1.auth) + len(as2.auth); got != 2 {
		t.Errorf("%d sign-ins, want 2 (the first, one change)", got)
	}
	if as1.regs+as2.regs != 2 {
		t.Errorf("%d registrations, want 2", as1.regs+as2.regs)
	}
	var back bool
	for _, e := range errs {
		back = back || strings.Contains(e, "does not go back")
	}
	if len(errs) != 7 || !back {
		t.Errorf("errors %q: want each of the 7 later 401s refused, one saying the probe does not go back", errs)
	}
}

// Credentials the user gave are bound to the server they were given
// for: a change is refused with the clause, nothing sent to the new one.
func TestMigrateRefusesGivenCredentials(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"client credentials", Options{ClientID: "ci", ClientSecret: "s3cret"}, "are bound to"},
		{"pre-registered client", Options{Interactive: true, ClientID: "pre"}, "--client-id pre was registered at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as2 := newFakeAS(t, "as2")
			rs := migratingRS(t, func() string { return as2.URL })
			tc.o.URL, tc.o.Timeout = rs.URL+"/mcp", 5*time.Second
			h := New(tc.o)
			h.rec = newRecorder(h.o, nil, h.guard)
			h.tok, h.issuer, h.resource = &oauth2.Token{AccessToken: "old"}, "https://as1.example", rs.URL+"/mcp"
			err := h.RefreshAfter(context.Background(), "Bearer old", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Authorization Server Binding") {
				t.Errorf("error %v, want one saying %q with the clause", err, tc.want)
			}
			if as2.regs+len(as2.auth)+len(as2.toks) != 0 {
				t.Error("the new server was sent something")
			}
		})
	}
}
