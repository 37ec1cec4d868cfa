//go:build e2e

package main

// Secrets (issue 12): a server that echoes every credential it got, the
// bare token included, in every place it can (an error_description, a
// body, instructions, a tool description, a notification, stderr, a
// response header), must get none of it printed, in any output, however
// the secret was given.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// echoServer is a Streamable HTTP server that repeats every credential it
// was sent: under /ok/ it answers, under /fail/ it refuses with 401.
func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		creds := credentials(r)
		if strings.HasPrefix(r.URL.Path, "/fail/") {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", error_description="token %s is revoked"`, creds))
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(401)
			fmt.Fprintf(w, "denied: %s", creds)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg := gjson.ParseBytes(body)
		id := msg.Get("id").Raw
		// Even the content type carries it: a trace's http object is
		// output too.
		w.Header().Set("Content-Type", "application/json; charset=utf-8; x-echo="+creds)
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(405)
		case msg.Get("method").String() == "initialize":
			w.Header().Set("Mcp-Session-Id", "sess-"+creds)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"},"instructions":%s}}`,
				id, q("Use the key "+creds+" for every call."))
		case msg.Get("method").String() == "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"alpha","description":%s,"inputSchema":{"type":"object"}}]}}`,
				id, q("Authenticates with "+creds+"."))
		case msg.Get("id").Exists():
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%s}}`, id, q("no such method for "+creds))
		default:
			w.WriteHeader(202)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// credentials are the bare credentials a request carried: the token after
// an auth scheme in any header, a Basic password, each cookie value and
// each query value, as a server that logs them would repeat them.
func credentials(r *http.Request) string {
	var out []string
	for name, vs := range r.Header {
		for _, v := range vs {
			if _, tok, ok := strings.Cut(v, " "); ok && (name == "Authorization" || strings.HasPrefix(name, "X-")) {
				out = append(out, tok)
			}
		}
	}
	if _, pw, ok := r.BasicAuth(); ok {
		out = append(out, pw)
	}
	for _, c := range r.Cookies() {
		out = append(out, c.Value)
	}
	for _, vs := range r.URL.Query() {
		out = append(out, vs...)
	}
	return strings.Join(out, " ")
}

func TestSecretCanaries(t *testing.T) {
	t.Parallel()
	hs := echoServer(t)
	// Each way a secret can be given, with the bare token a server would
	// echo. Tokens are distinct so a leak names its way.
	type way struct {
		name   string
		secret string
		env    []string // mcpprobe's own environment
		// args builds the flags and target for a server that answers (ok)
		// or fails; dir holds a config file where one is needed.
		args func(dir string, ok bool) []string
	}
	path := func(ok bool) string {
		if ok {
			return "/ok/mcp"
		}
		return "/fail/mcp"
	}
	// A config file of its own for every run: the runs are concurrent.
	config := func(dir, body string) string {
		f, err := os.CreateTemp(dir, "mcp-*.json")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(body); err != nil {
			t.Fatal(err)
		}
		return f.Name()
	}
	stdioServer := func(ok bool, vars string) []string {
		if ok {
			return []string{bin.raw, "-echo-secrets", vars}
		}
		return []string{bin.raw, "-echo-secrets", vars, "-hostile-error", "NONE"}
	}
	ways := []way{
		{name: "-H bearer", secret: "tokH0a1b2c3d4", args: func(_ string, ok bool) []string {
			return []string{"-H", "Authorization: Bearer tokH0a1b2c3d4", hs.URL + path(ok)}
		}},
		{name: "-H cookie", secret: "cookC0a1b2c3d4", args: func(_ string, ok bool) []string {
			return []string{"-H", "Cookie: theme=dark-mode; sid=cookC0a1b2c3d4", hs.URL + path(ok)}
		}},
		{name: "--header-env", secret: "tokE0a1b2c3d4", env: []string{"MY_AUTH=Token tokE0a1b2c3d4"}, args: func(_ string, ok bool) []string {
			return []string{"--header-env", "X-Api-Key=MY_AUTH", hs.URL + path(ok)}
		}},
		{name: "URL password", secret: "pwU0a1b2c3d4", args: func(_ string, ok bool) []string {
			return []string{strings.Replace(hs.URL, "http://", "http://me:pwU0a1b2c3d4@", 1) + path(ok)}
		}},
		{name: "URL query", secret: "keyQ0a1b2c3d4", args: func(_ string, ok bool) []string {
			return []string{hs.URL + path(ok) + "?api_key=keyQ0a1b2c3d4"}
		}},
		{name: "config headers", secret: "tokC0a1b2c3d4", env: []string{"CFG_TOKEN=tokC0a1b2c3d4"}, args: func(dir string, ok bool) []string {
			return []string{"--config", config(dir, `{"mcpServers":{"s":{"type":"http","url":"`+hs.URL+path(ok)+`","headers":{"Authorization":"Bearer ${CFG_TOKEN}"}}}}`), "s"}
		}},
		{name: "--env", secret: "envV0a1b2c3d4", args: func(_ string, ok bool) []string {
			return append([]string{"--env", "API_KEY=envV0a1b2c3d4", "--"}, stdioServer(ok, "API_KEY")...)
		}},
		{name: "config env", secret: "cfgV0a1b2c3d4", args: func(dir string, ok bool) []string {
			argv, _ := json.Marshal(stdioServer(ok, "API_KEY")[1:])
			return []string{"--config", config(dir, `{"mcpServers":{"s":{"command":"`+bin.raw+`","args":`+string(argv)+`,"env":{"API_KEY":"cfgV0a1b2c3d4"}}}}`), "s"}
		}},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			trace, trace2 := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t2.jsonl")
			save, lock := filepath.Join(dir, "saved"), filepath.Join(dir, "lock.json")
			type channel struct {
				name string
				text func() string
			}
			var mu sync.Mutex
			var channels []channel
			add := func(name string, text func() string) {
				mu.Lock()
				channels = append(channels, channel{name, text})
				mu.Unlock()
			}
			runs := []struct {
				name     string
				args     []string
				ok       bool
				wantCode int
			}{
				{"wire", []string{"wire", "--trace", trace, "--save", save}, true, 0},
				{"wire --json", []string{"wire", "--json"}, true, 0},
				{"snapshot", []string{"snapshot", "-o", lock}, true, 0},
				{"report", []string{"report"}, true, 0},
				{"budget --view", []string{"budget", "--view", "claude-code"}, true, 0},
				{"exit message", []string{"wire", "--json", "--trace", trace2}, false, 3},
			}
			var wg sync.WaitGroup
			for _, r := range runs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res := probeRun(t, w.env, nil, append(r.args, w.args(dir, r.ok)...)...)
					if res.code != r.wantCode {
						t.Errorf("%s: exit %d, want %d: %s", r.name, res.code, r.wantCode, res.stderr)
					}
					add(r.name+" stdout", func() string { return res.stdout })
					add(r.name+" stderr", func() string { return res.stderr })
				}()
			}
			wg.Wait()
			files := func(name string, paths ...string) {
				add(name, func() string {
					var b strings.Builder
					for _, p := range paths {
						data, _ := os.ReadFile(p)
						b.Write(data)
					}
					return b.String()
				})
			}
			saved, _ := filepath.Glob(filepath.Join(save, "*"))
			files("--trace", trace)
			files("--trace of a failure", trace2)
			files("--save", saved...)
			files("snapshot", lock)
			// The secret in every form a server's JSON encoder may give it:
			// the tokens are ASCII letters and digits, so plain, and as the
			// base64 a raw_b64 frame would carry.
			forms := []string{w.secret, base64.StdEncoding.EncodeToString([]byte(w.secret))}
			echoed := false
			for _, c := range channels {
				text := c.text()
				for _, f := range forms {
					if strings.Contains(text, f) {
						t.Errorf("%s shows the secret %q:\n%s", c.name, f, excerptAround(text, f))
					}
				}
				echoed = echoed || strings.Contains(text, "***")
			}
			// The canary only proves something if the server did echo it.
			if !echoed {
				t.Errorf("no output shows *** : the server never echoed the secret, and the test proves nothing")
			}
			if len(saved) == 0 {
				t.Error("wire --save wrote nothing")
			}
		})
	}
}

func excerptAround(s, needle string) string {
	i := strings.Index(s, needle)
	lo, hi := max(0, i-120), min(len(s), i+len(needle)+120)
	return s[lo:hi]
}

// A legacy HTTP+SSE server names its session in the endpoint's URL; the
// trace keeps a prefix of it, as it does of Mcp-Session-Id.
func TestLegacySessionIDCutInTrace(t *testing.T) {
	t.Parallel()
	const session = "sess-0123456789abcdef"
	events := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: /messages?sessionId=%s\n\n", session)
			w.(http.Flusher).Flush()
			for {
				select {
				case e := <-events:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", e)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.URL.Path == "/messages":
			body, _ := io.ReadAll(r.Body)
			msg := gjson.ParseBytes(body)
			id := msg.Get("id").Raw
			switch msg.Get("method").String() {
			case "initialize":
				events <- `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"legacy","version":"1"}}}`
			case "tools/list":
				events <- `{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[]}}`
			default:
				if msg.Get("id").Exists() {
					events <- `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no"}}`
				}
			}
			w.WriteHeader(202)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	r := probeRun(t, nil, nil, "wire", "--transport", "sse", "--timeout", secs(5*time.Second), "--trace", trace, srv.URL+"/sse")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(trace)
	if strings.Contains(string(data)+r.stdout+r.stderr, session) {
		t.Errorf("the legacy session id is in the output in full:\n%s", data)
	}
	if !strings.Contains(string(data), "sessionId=sess…") {
		t.Errorf("the trace does not show the session id's prefix:\n%s", data)
	}
}
