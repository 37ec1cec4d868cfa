package authz

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func TestPathPrefix(t *testing.T) {
	for _, tc := range []struct {
		res, url string
		want     bool
	}{
		{"https://h", "https://h/mcp", true},
		{"https://h/", "https://h/mcp", true},
		{"https://h/api", "https://h/api/mcp", true},
		{"https://h/mc", "https://h/mcp", false},
		{"https://other", "https://h/mcp", false},
	} {
		if got := pathPrefix(tc.res, tc.url); got != tc.want {
			t.Errorf("pathPrefix(%q, %q) = %v", tc.res, tc.url, got)
		}
	}
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"HTTPS://Host.Example/mcp", "https://host.example/mcp"},
		{"https://host/mcp#frag", "https://host/mcp"},
		{"https://host/MCP/", "https://host/MCP/"}, // the path is case-sensitive, and the slash kept
	} {
		if got := canonical(tc.in); got != tc.want {
			t.Errorf("canonical(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The order clients MUST try ("Authorization Server Metadata Discovery").
func TestASCandidates(t *testing.T) {
	for _, tc := range []struct {
		issuer string
		want   []string
	}{
		{"https://auth.example.com", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
	} {
		if got := asCandidates(tc.issuer); !slices.Equal(got, tc.want) {
			t.Errorf("asCandidates(%q) = %q, want %q", tc.issuer, got, tc.want)
		}
	}
}

// server is a configurable protected endpoint for the cases the SDK
// fixture cannot be made to show.
type server struct {
	unprotected   bool   // serves POST without a token
	noTokenStatus int    // the status without a token (default 401)
	prmAt         string // "path", "root", "none"
	prmType       string // the PRM's Content-Type
	rootResource  string // "origin" or "endpoint"
	pathResource  string // the path form's resource, past the origin (default "/mcp")
	issuerPath    string // the issuer's path ("" or "/tenant1")
	asAt          int    // which of the discovery URLs serves (0-based)
	queryAccepted bool   // accepts ?access_token=
	token         string
	narrow        string // a valid token without the scope "mcp": 403
	stepUp        string // the 403's challenge (default: the full one)
	offline       bool   // scopes_supported has offline_access
	openRedirects bool   // registration accepts any redirect URI
	stepUpStatus  int    // the narrow token's status (default 403)
	noRegister    bool   // the registration endpoint the metadata names is 404
	noAS          bool   // no authorization-server metadata anywhere
	sameToken     bool   // a token endpoint that ignores resource: token to every client_credentials request
}

func (s server) start(t *testing.T) *httptest.Server {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mcp := func(w http.ResponseWriter, r *http.Request) {
		authz := r.Header.Get("Authorization")
		if s.narrow != "" && authz == "Bearer "+s.narrow {
			ch := s.stepUp
			if ch == "" {
				ch = `Bearer error="insufficient_scope", scope="mcp", resource_metadata="` + srv.URL + `/.well-known/oauth-protected-resource/mcp"`
			}
			w.Header().Set("WWW-Authenticate", ch)
			w.WriteHeader(cmp.Or(s.stepUpStatus, 403))
			return
		}
		ok := s.unprotected || authz == "Bearer "+s.token || (s.queryAccepted && r.URL.Query().Get("access_token") == s.token)
		if !ok {
			if authz == "" && s.noTokenStatus != 0 {
				w.WriteHeader(s.noTokenStatus)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", scope="mcp"`)
			w.WriteHeader(401)
			fmt.Fprintf(w, "denied %s", authz) // an echo: the rows and exchanges must not carry it
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(405)
			return
		}
		if r.Header.Get("Origin") != "" {
			w.WriteHeader(403)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`)
	}
	mux.HandleFunc("/mcp", mcp)
	prm := func(w http.ResponseWriter, r *http.Request) {
		res := srv.URL + "/mcp"
		if s.pathResource != "" {
			res = srv.URL + s.pathResource
		}
		if r.URL.Path == "/.well-known/oauth-protected-resource" && s.rootResource == "origin" {
			res = srv.URL
		}
		ct := s.prmType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		doc := map[string]any{"resource": res, "authorization_servers": []string{srv.URL + s.issuerPath}}
		if s.offline {
			doc["scopes_supported"] = []string{"mcp", "offline_access"}
		}
		_ = json.NewEncoder(w).Encode(doc)
	}
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if !s.sameToken {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"unsupported_grant_type"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, s.token)
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		if s.noRegister {
			http.NotFound(w, r)
			return
		}
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if !s.openRedirects && len(req.RedirectURIs) > 0 && !strings.HasPrefix(req.RedirectURIs[0], "http://127.0.0.1") {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_redirect_uri"}`)
			return
		}
		w.WriteHeader(201)
		fmt.Fprint(w, `{"client_id":"c1"}`)
	})
	switch s.prmAt {
	case "path", "":
		mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", prm)
	case "root":
		mux.HandleFunc("/.well-known/oauth-protected-resource", prm)
	}
	as := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL + s.issuerPath, "authorization_endpoint": srv.URL + "/authorize",
			"token_endpoint": srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"}, "client_id_metadata_document_supported": true,
			"registration_endpoint": srv.URL + "/register"})
	}
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cands := asCandidates(srv.URL + s.issuerPath)
	if !s.noAS {
		mux.HandleFunc(strings.TrimPrefix(cands[s.asAt], srv.URL), as)
	}
	return srv
}

// protectedRows is how many rows the audit of a protected endpoint has:
// A1 to A24, one A25 row per host, and the baseline.
func protectedRows() int { return len(checklist) - 1 + len(hosts.KnownOAuth()) + 1 }

// The probes that need more than a token: the step-up answer (A19), the
// registration (A12, only with Register), offline_access (A7).
func TestRunStepUpRegistration(t *testing.T) {
	const token, narrow = "tok-0a1b2c3d", "narrow-0a1b2c3d"
	for _, tc := range []struct {
		name     string
		s        server
		register bool
		want     map[string]string
		why      map[string]string // id → what its reason quotes
		not      map[string]string // id → what its reason must not say
	}{
		{"full challenge, registration refused as it should", server{}, true, map[string]string{"A19": Pass, "A12": Pass, "A7": Pass}, nil, nil},
		{"403 without error", server{stepUp: `Bearer scope="mcp"`}, false, map[string]string{"A19": Warn, "A12": NotRun},
			map[string]string{"A19": `403 Forbidden, WWW-Authenticate: Bearer scope="mcp"`}, nil},
		{"any redirect registered", server{openRedirects: true}, true, map[string]string{"A12": Fail}, map[string]string{"A12": "201 Created"}, nil},
		{"offline_access asked", server{offline: true}, false, map[string]string{"A7": Warn}, nil, nil},
		// The server calls the narrow token invalid: the reason quotes
		// that, and does not call it a scope answer.
		{"401 invalid_token to the narrow token", server{stepUpStatus: 401, stepUp: `Bearer error="invalid_token", error_description="token expired"`}, false,
			map[string]string{"A19": Warn}, map[string]string{"A19": `401 Unauthorized, WWW-Authenticate: Bearer error="invalid_token", error_description="token expired"`},
			map[string]string{"A19": "a token with insufficient scope SHOULD get 403 (401"}},
		// A 404 is no endpoint, not a refusal of the client.
		{"registration endpoint 404", server{noRegister: true}, true, map[string]string{"A12": Observed},
			map[string]string{"A12": "404 Not Found: nothing is served at the registration_endpoint"}, map[string]string{"A12": "refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.token, tc.s.narrow = token, narrow
			srv := tc.s.start(t)
			r, err := Run(context.Background(), Options{URL: srv.URL + "/mcp", Token: token, NarrowToken: narrow, Register: tc.register, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := outcomes(r)
			for id, want := range tc.want {
				if got[id] != want {
					t.Errorf("%s = %s, want %s", id, got[id], want)
				}
			}
			for _, row := range r.Rows {
				if w, ok := tc.why[row.ID]; ok && !strings.Contains(row.Why, w) {
					t.Errorf("%s's reason %q does not quote %q", row.ID, row.Why, w)
				}
				if w, ok := tc.not[row.ID]; ok && strings.Contains(row.Why, w) {
					t.Errorf("%s's reason %q says %q", row.ID, row.Why, w)
				}
			}
		})
	}
}

// A token for another resource that is the valid one byte for byte is no
// audience test: A17 is unjudged, and when the audit asked for both by
// client_credentials, the authorization server is named for ignoring
// resource, not the resource server failed.
func TestSameTokenForAnotherResource(t *testing.T) {
	const token = "tok-0a1b2c3d"
	for _, tc := range []struct {
		name string
		o    Options
		as   bool // the authorization server's row is there
	}{
		{"both given, the same", Options{Token: token, ForeignToken: token}, false},
		{"both by client_credentials", Options{ClientID: "mcpprobe-ci"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := server{token: token, sameToken: true}.start(t)
			tc.o.URL, tc.o.Timeout = srv.URL+"/mcp", 5*time.Second
			r, err := Run(context.Background(), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			rows := map[string]Row{}
			for _, row := range r.Rows {
				rows[row.ID] = row
			}
			if a17 := rows["A17"]; a17.Outcome != NotRun || !strings.Contains(a17.Why, "byte for byte") {
				t.Errorf("A17: %s %q, want not-run: the same token", a17.Outcome, a17.Why)
			}
			as, ok := rows["A17 authorization server"]
			if ok != tc.as {
				t.Fatalf("the authorization server's row: %v, want %v", ok, tc.as)
			}
			if !tc.as {
				return
			}
			if as.Outcome != Observed || !strings.Contains(as.Why, "ignored resource") || !strings.Contains(as.Why, srv.URL+"/mcpprobe-other-resource") ||
				!strings.Contains(as.Sent, srv.URL+"/token") || strings.Contains(as.Sent+as.Got+as.Why, token) {
				t.Errorf("authorization server row %+v: want observed, naming what it was asked and sent, never the token", as)
			}
			if r.Count()[Fail] != 0 {
				t.Errorf("fails %v: an authorization server that ignores resource fails no one here", r.Failing(Fail))
			}
		})
	}
}

// Each host's rule reads what discovery found: a row observed ("this
// host will fail here") where the rule is not met, never a fail.
func TestHostRules(t *testing.T) {
	hs := hosts.KnownOAuth()
	if len(hs) == 0 {
		t.Fatal("no host rows")
	}
	for _, h := range hs {
		if h.Source == "" || h.Reported == "" || h.Versions == "" {
			t.Errorf("%s: a host row needs its source, date and versions", h.Host)
		}
		if ok, _ := (discovered{}).meets(h.Rule); ok {
			t.Errorf("%s: rule %q is met by nothing found: unknown rule?", h.Host, h.Rule)
		}
		if ok, _ := (discovered{header: true, wellKnown: true, exactResource: true}).meets(h.Rule); !ok {
			t.Errorf("%s: rule %q not met by everything found", h.Host, h.Rule)
		}
	}
}

func outcomes(r *Result) map[string]string {
	m := map[string]string{}
	for _, row := range r.Rows {
		m[row.ID] = row.Outcome
	}
	return m
}

func TestRun(t *testing.T) {
	const token = "tok-secret-0a1b2c3d"
	for _, tc := range []struct {
		name string
		s    server
		want map[string]string // the outcomes these rows must have
	}{
		{"well-behaved", server{}, map[string]string{"A1": Pass, "A2": Warn, "A3": Pass, "A5": Pass, "A8": Pass, "A15": Pass, "A18": Pass, "A20": Pass, "A23": Pass}},
		{"unprotected", server{unprotected: true}, map[string]string{"A1": Observed, "A2": NotRun, "A17": NotRun}},
		{"403 without a token", server{noTokenStatus: 403}, map[string]string{"A1": Fail, "A3": NotRun}},
		{"root form naming the origin", server{prmAt: "root", rootResource: "origin"}, map[string]string{"A3": Pass, "A5": Pass}},
		{"path form naming the origin", server{pathResource: "/"}, map[string]string{"A5": Warn}},
		{"path form naming a sibling", server{pathResource: "/mcp2"}, map[string]string{"A5": Fail}},
		{"PRM as text/html", server{prmType: "text/html"}, map[string]string{"A2": Warn, "A3": Fail, "A4": NotRun}},
		{"OIDC path appending only", server{issuerPath: "/tenant1", asAt: 2}, map[string]string{"A8": Pass, "A9": Pass}},
		{"RFC 8414 path insertion", server{issuerPath: "/tenant1", asAt: 0}, map[string]string{"A8": Pass}},
		{"token in the query accepted", server{queryAccepted: true}, map[string]string{"A18": Observed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.token = token
			srv := tc.s.start(t)
			r, err := Run(context.Background(), Options{URL: srv.URL + "/mcp", Token: token, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := outcomes(r)
			for id, want := range tc.want {
				if got[id] != want {
					t.Errorf("%s = %s, want %s (%v)", id, got[id], want, got)
				}
			}
			if len(r.Rows) != protectedRows() && got["A1"] == Pass || len(r.Rows) != len(checklist) && got["A1"] != Pass {
				t.Errorf("%d rows, want %d", len(r.Rows), protectedRows())
			}
			// The server echoes what it was sent into its 401s: the
			// exchanges keep that as received (the CLI redacts it with
			// the run's secrets); the rows and the recorded requests
			// never name the token themselves.
			for _, row := range r.Rows {
				if strings.Contains(row.Sent, token) || strings.Contains(row.Why, token) {
					t.Errorf("row %s names the token: %+v", row.ID, row)
				}
			}
			for _, ex := range r.Exchanges {
				if strings.Contains(ex.URL, token) || strings.Contains(ex.Error, token) {
					t.Errorf("exchange records the token in its URL: %+v", ex)
				}
			}
		})
	}
}

// Discovery follows the spec's order: the path form before the root,
// RFC 8414 before OIDC.
func TestDiscoveryOrder(t *testing.T) {
	srv := server{issuerPath: "/tenant1", asAt: 2, token: "t"}.start(t)
	r, err := Run(context.Background(), Options{URL: srv.URL + "/mcp", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ex := range r.Exchanges {
		if ex.Probe == "A3" || ex.Probe == "A8" {
			got = append(got, strings.TrimPrefix(ex.URL, srv.URL))
		}
	}
	want := []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
		"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

// Without a token every probe still has its row; those that need one say
// which flag to pass.
func TestRunWithoutToken(t *testing.T) {
	srv := server{token: "t"}.start(t)
	r, err := Run(context.Background(), Options{URL: srv.URL + "/mcp", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != protectedRows() {
		t.Fatalf("%d rows, want %d", len(r.Rows), protectedRows())
	}
	for i, row := range r.Rows[1:] {
		want := "A25"
		if i < len(checklist)-1 {
			want = checklist[i].id
		}
		if strings.Fields(row.ID)[0] != want {
			t.Errorf("row %d is %s, want %s", i+1, row.ID, want)
		}
	}
	for _, row := range r.Rows {
		if (row.ID == "A16" || row.ID == "A17" || row.ID == "A18" || row.ID == "A19" || row.ID == "base") && (row.Outcome != NotRun || !strings.Contains(row.Why, "-env")) {
			t.Errorf("%s: %s %q, want not-run naming its flag", row.ID, row.Outcome, row.Why)
		}
	}
}

func TestRunUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	_, err := Run(context.Background(), Options{URL: u + "/mcp", Timeout: 2 * time.Second})
	var fe *probe.FatalError
	if !errors.As(err, &fe) || !strings.Contains(fe.What, "could not reach") {
		t.Errorf("a closed port: %v, want a FatalError saying it could not reach", err)
	}
}

func TestRunRefusesNonHTTP(t *testing.T) {
	if _, err := Run(context.Background(), Options{URL: "./server"}); err == nil {
		t.Error("a command is not a URL: want an OptionError")
	}
}

// Without protected-resource metadata the audit reaches the authorization
// server as a 2025-03-26 client does: the origin's metadata (then judged:
// PKCE and the rest), else the default endpoints, where it asks for its
// tokens.
func TestLegacyDiscovery(t *testing.T) {
	const token = "tok-0a1b2c3d"
	for _, tc := range []struct {
		name string
		s    server
		want map[string]string
		te   string // the token endpoint asked, past the origin
	}{
		{"metadata at the origin", server{prmAt: "none", sameToken: true}, map[string]string{"A3": Fail, "A8": Pass, "A9": Pass, "A10": Pass}, "/token"},
		{"default endpoints", server{prmAt: "none", noAS: true, sameToken: true}, map[string]string{"A3": Fail, "A8": Observed, "A10": NotRun}, "/token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.token = token
			srv := tc.s.start(t)
			r, err := Run(context.Background(), Options{URL: srv.URL + "/mcp", ClientID: "ci", Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := outcomes(r)
			for id, want := range tc.want {
				if got[id] != want {
					t.Errorf("%s = %s, want %s (%v)", id, got[id], want, got)
				}
			}
			for _, row := range r.Rows {
				if row.ID == "A8" && (row.Clause.Version != "2025-03-26" || !strings.Contains(row.Why, "2025-03-26")) {
					t.Errorf("A8 %+v: want the 2025-03-26 clause", row)
				}
			}
			if got["base"] != Pass {
				t.Errorf("base %s: the token from %s was not got or not used", got["base"], tc.te)
			}
		})
	}
}
