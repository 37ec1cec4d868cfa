package main

// Issue 36, "Secrets stay home": a server whose 401 names an internal
// service as its resource_metadata gets none of that service's body
// printed by auth, wire --trace or check --auth, in any output. The
// service stands on loopback; the target is declared public by the
// run's classifier (the dial-time rule is netguard's, tested there on
// real addresses).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/netguard"
	"github.com/tidwall/gjson"
)

// internalDoc is what a cloud's metadata service hands out.
const internalDoc = `{"Code":"Success","AccessKeyId":"ASIACANARYKEYID1234","SecretAccessKey":"canary-secret-access-key-xyz","Token":"canary-session-token-abc"}`

var internalCanaries = []string{"ASIACANARYKEYID1234", "canary-secret-access-key-xyz", "canary-session-token-abc"}

// ssrfTarget is a protected MCP server whose 401 names internal as its
// resource_metadata; with "Bearer good" it serves a minimal session.
func ssrfTarget(t *testing.T, internal string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+internal+`", scope="mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg := gjson.ParseBytes(body)
		if !msg.Get("id").Exists() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		id := msg.Get("id").Raw
		switch msg.Get("method").String() {
		case "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}}`, id)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, id)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, id)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runWith is runInProcess with the run's address classifier set.
func runWith(classify func(netip.AddrPort) netguard.Class, env []string, args ...string) inProcess {
	vars := map[string]string{}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		vars[k] = v
	}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	var out, errb bytes.Buffer
	rs := newRunState(strings.NewReader(""), &out, &errb, lookup, func() []string { return env })
	rs.classify = classify
	code := rs.runApp(context.Background(), append([]string{"mcpprobe"}, args...))
	return inProcess{code: code, stdout: out.String(), stderr: errb.String()}
}

func portOfURL(t *testing.T, s string) uint16 {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	_, p, _ := net.SplitHostPort(u.Host)
	var n uint16
	fmt.Sscan(p, &n)
	return n
}

func TestResourceMetadataSSRF(t *testing.T) {
	var hits atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, internalDoc)
	}))
	t.Cleanup(internal.Close)
	metaURL := internal.URL + "/latest/meta-data/iam/security-credentials/role"
	target := ssrfTarget(t, metaURL)
	tp, ip := portOfURL(t, target.URL), portOfURL(t, internal.URL)
	for _, c := range []struct {
		name     string
		classify func(netip.AddrPort) netguard.Class
		fetched  bool
	}{
		// A public target: the internal service is never dialled.
		{"public target, metadata service", func(ap netip.AddrPort) netguard.Class {
			switch ap.Port() {
			case tp:
				return netguard.Public
			case ip:
				return netguard.Metadata
			}
			return netguard.ClassifyIP(ap.Addr())
		}, false},
		{"public target, private service", func(ap netip.AddrPort) netguard.Class {
			if ap.Port() == tp {
				return netguard.Public
			}
			return netguard.Private
		}, false},
		// A loopback target may fetch loopback: the document is fetched,
		// but it is from another origin and not metadata: its body is
		// shown nowhere.
		{"loopback target", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits.Store(0)
			dir := t.TempDir()
			p := func(n string) string { return filepath.Join(dir, n) }
			runs := [][]string{
				{"auth", target.URL + "/mcp"},
				{"auth", "--json", "--out", p("auth.json"), target.URL + "/mcp"},
				{"auth", "--trace", p("auth.jsonl"), target.URL + "/mcp"},
				{"auth", "--client-id", "ci", "--client-secret-env", "S", target.URL + "/mcp"},
				{"wire", "--trace", p("wire.jsonl"), "--client-id", "ci", "--client-secret-env", "S", target.URL + "/mcp"},
				{"wire", "--json", "--client-id", "ci", "--client-secret-env", "S", target.URL + "/mcp"},
				{"check", "--auth", "--json", "--timeout", "2s", "--trace", p("check.jsonl"), "-H", "Authorization: Bearer good", target.URL + "/mcp"},
			}
			texts := map[string]string{}
			for _, args := range runs {
				r := runWith(c.classify, []string{"S=client-secret-canary"}, args...)
				name := strings.Join(args[:2], " ")
				texts[name+" stdout"], texts[name+" stderr"] = r.stdout, r.stderr
				if r.code == 2 {
					t.Errorf("%s: usage error: %s", name, r.stderr)
				}
			}
			for _, f := range []string{"auth.json", "auth.jsonl", "wire.jsonl", "check.jsonl"} {
				b, err := os.ReadFile(p(f))
				if err != nil {
					t.Errorf("%s: %v", f, err)
				}
				texts[f] = string(b)
			}
			for name, text := range texts {
				for _, canary := range internalCanaries {
					if strings.Contains(text, canary) {
						t.Errorf("%s shows the internal service's %s:\n%s", name, canary, text)
					}
				}
			}
			if got := hits.Load() > 0; got != c.fetched {
				t.Errorf("the internal service was fetched %d times; want fetched %v", hits.Load(), c.fetched)
			}
			if !c.fetched && !strings.Contains(texts["auth "+target.URL+"/mcp stdout"], "does not fetch") {
				t.Errorf("auth does not say the fetch was refused:\n%s", texts["auth "+target.URL+"/mcp stdout"])
			}
			for _, f := range []string{"auth.jsonl", "wire.jsonl"} {
				if c.fetched && !strings.Contains(texts[f], "body withheld") {
					t.Errorf("%s does not say the body was withheld:\n%s", f, texts[f])
				}
			}
		})
	}
}

// TestMetadataControlsEscaped: C1 and bidi controls in the authorization
// server's metadata reach neither the --oauth prompt (the URL a person
// is told to open) nor any trace or --json raw; nor an error that quotes
// the issuer.
func TestMetadataControlsEscaped(t *testing.T) {
	const bad = "\u0085\u009b\u202e\u2066"
	var srv *httptest.Server
	issuerSuffix := ""
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		iss := srv.URL + issuerSuffix
		switch {
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp":
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":["%s"]}`, srv.URL+"/mcp", iss)
		case strings.HasPrefix(r.URL.Path, "/.well-known/oauth-authorization-server"):
			// Raw in the JSON text, as a server may send them (%q would
			// escape them).
			fmt.Fprintf(w, `{"issuer":"%s","authorization_endpoint":"%s","token_endpoint":%q,"code_challenge_methods_supported":["S256"]}`,
				iss, srv.URL+"/authorize/gnp"+bad+".exe", srv.URL+"/token")
		default:
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	texts := map[string]string{}
	for _, args := range [][]string{
		{"wire", "--oauth", "--client-id", "pub", "--oauth-wait", "1s", "--trace", p("wire.jsonl"), srv.URL + "/mcp"},
		{"auth", "--trace", p("auth.jsonl"), srv.URL + "/mcp"},
		{"auth", "--json", srv.URL + "/mcp"},
	} {
		r := runInProcess(nil, args...)
		texts[args[0]+" "+args[1]+" stdout"], texts[args[0]+" "+args[1]+" stderr"] = r.stdout, r.stderr
	}
	if !strings.Contains(texts["wire --oauth stderr"], "open this URL") || !strings.Contains(texts["wire --oauth stderr"], "gnp%C2%85%C2%9B%E2%80%AE%E2%81%A6.exe") {
		t.Errorf("the prompt does not show the URL with its controls encoded:\n%s", texts["wire --oauth stderr"])
	}
	// An issuer with the controls in it, quoted by an error.
	issuerSuffix = "/x" + bad
	r := runInProcess(nil, "wire", "--oauth", "--client-id", "pub", "--oauth-wait", "1s", srv.URL+"/mcp")
	texts["issuer error stderr"] = r.stderr
	if r.code != 3 {
		t.Errorf("issuer with controls: exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{"wire.jsonl", "auth.jsonl"} {
		b, err := os.ReadFile(p(f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	if !strings.Contains(texts["auth.jsonl"], `\u0085`) {
		t.Errorf("auth --trace does not hold the metadata, escaped:\n%s", texts["auth.jsonl"])
	}
	for name, text := range texts {
		for _, c := range bad {
			if strings.ContainsRune(text, c) {
				t.Errorf("%s holds a raw U+%04X:\n%s", name, c, text)
			}
		}
	}
}
