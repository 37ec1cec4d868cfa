//go:build e2e

package main

// End-to-end tests over HTTP: the built binary against a hand-written
// httptest server whose misbehaviour each test chooses, against the Go SDK
// fixture's Streamable HTTP and SSE handlers, and against
// server-everything in streamableHttp and sse modes, on 127.0.0.1 only.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// fakeHTTP is a minimal legacy Streamable HTTP server (2025-11-25) with one
// chosen fault.
type fakeHTTP struct {
	fault     string
	otherURL  string // for "redirect"
	mu        sync.Mutex
	sessions  int
	expired   bool
	gotAuth   []string
	gotHeader []http.Header
}

const fakeTools = `{"tools":[{"name":"alpha","description":"A.","inputSchema":{"type":"object"}},{"name":"beta","description":"B.","inputSchema":{"type":"object"}}]}`

func (f *fakeHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.gotAuth = append(f.gotAuth, r.Header.Get("Authorization"))
	f.gotHeader = append(f.gotHeader, r.Header.Clone())
	f.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		if f.fault == "sse" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"on GET\"}}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	}
	body, _ := io.ReadAll(r.Body)
	msg := gjson.ParseBytes(body)
	method, id := msg.Get("method").String(), msg.Get("id").Raw
	if method == "server/discover" {
		http.Error(w, "unknown method", http.StatusBadRequest)
		return
	}
	if !msg.Get("id").Exists() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch f.fault {
	case "401":
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp", error="invalid_token"`)
		http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
		return
	case "406":
		http.Error(w, "Not Acceptable: Client must accept both application/json and text/event-stream", http.StatusNotAcceptable)
		return
	case "400html":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "<html><head><title>Bad \x1b[31mRequest</title></head>\n<body>\n<h1>Bad Request</h1>\n</body></html>")
		return
	case "rpc4xx":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
		return
	case "trickle":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for {
			if _, err := fmt.Fprint(w, ": still thinking\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	case "cut":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":")
		return
	case "notjson":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "hello world")
		return
	case "gzip":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		fmt.Fprintf(gz, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
		gz.Close()
		return
	case "redirect":
		http.Redirect(w, r, f.otherURL, http.StatusTemporaryRedirect)
		return
	case "huge":
		if method == "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"x","description":"%s"}]}}`, id, strings.Repeat("x", 5000))
			return
		}
	}
	var result string
	switch method {
	case "initialize":
		f.mu.Lock()
		f.sessions++
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("session-%d-abcdefgh", f.sessions))
		f.mu.Unlock()
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake-http","version":"1.0"}}`
	case "tools/list":
		f.mu.Lock()
		expire := f.fault == "expire" && !f.expired
		f.expired = true
		f.mu.Unlock()
		if expire {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		result = fakeTools
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
		return
	}
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
	if f.fault == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprint(w, "id: 1\ndata: \n\n") // a priming event
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n")
		fmt.Fprintf(w, "id: 2\nevent: message\ndata: %s\n\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, resp)
}

func TestHTTPBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fault  string
		flags  []string
		code   int
		stderr []string
	}{
		{"401 shows the challenge and hides the token", "401", []string{"-H", "Authorization: Bearer tok-SECRET-123"}, 3,
			[]string{"HTTP 401", `WWW-Authenticate: Bearer realm="mcp", error="invalid_token"`, "never shown", "Try: give credentials"}},
		{"406", "406", nil, 3, []string{"HTTP 406", "Accept: application/json, text/event-stream"}},
		{"400 html body: its title, escaped, on one line", "400html", nil, 3, []string{"HTTP 400", `body (text/html): an HTML page of 93 bytes titled "Bad \x1b[31mRequest"`}},
		{"json-rpc error in a 4xx body", "rpc4xx", nil, 3, []string{"HTTP 400", "JSON-RPC error -32000: Bad Request: No valid session ID provided"}},
		{"sse that only trickles", "trickle", []string{"--startup-timeout", "1s", "--discover-timeout", "300ms"}, 3, []string{"did not answer initialize within"}},
		{"sse cut mid-event", "cut", []string{"--startup-timeout", secs(2 * time.Second)}, 3, []string{"ended in the middle of an event"}},
		{"body not json", "notjson", []string{"--startup-timeout", secs(2 * time.Second)}, 3, []string{"not a JSON-RPC message", "hello world"}},
		{"gzip body", "gzip", nil, 3, []string{"compressed (Content-Encoding: gzip)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&fakeHTTP{fault: tc.fault})
			defer srv.Close()
			r := mcpprobe(t, append(append([]string{"wire"}, tc.flags...), srv.URL+"/mcp")...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if strings.Contains(r.stdout+r.stderr, "tok-SECRET-123") {
				t.Errorf("the token is shown")
			}
			if strings.ContainsRune(r.stderr, 0x1b) {
				t.Errorf("raw escape character on stderr")
			}
			if r.took > bound(10*time.Second) {
				t.Errorf("took %v", r.took)
			}
		})
	}
}

func TestHTTPConnectionFailures(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	tlsSrv := httptest.NewUnstartedServer(&fakeHTTP{})
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"connection refused", []string{closed}, 3, "connection refused; nothing listens there"},
		{"tls not trusted", []string{tlsSrv.URL + "/mcp"}, 3, "--insecure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpprobe(t, append([]string{"wire"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, tc.code, tc.stderr)
			}
		})
	}
	t.Run("tls with --insecure", func(t *testing.T) {
		v := wireJSON(t, "--insecure", tlsSrv.URL+"/mcp")
		if got := names(v, "wire.tools"); strings.Join(got, ",") != "alpha,beta" {
			t.Errorf("tools = %v", got)
		}
	})
}

func TestHTTPRedirectToAnotherOriginRefused(t *testing.T) {
	t.Parallel()
	other := &fakeHTTP{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	srv := httptest.NewServer(&fakeHTTP{fault: "redirect", otherURL: otherSrv.URL + "/mcp"})
	defer srv.Close()
	r := mcpprobe(t, "wire", "-H", "Authorization: Bearer tok-SECRET-123", srv.URL+"/mcp")
	if r.code != 3 || !strings.Contains(r.stderr, "redirect to another origin") {
		t.Errorf("exit %d:\n%s", r.code, r.stderr)
	}
	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.gotAuth) != 0 {
		t.Errorf("the other origin received %d requests", len(other.gotAuth))
	}
}

func TestHTTPSessions(t *testing.T) {
	t.Parallel()
	t.Run("sse answers, priming events, GET stream, headers", func(t *testing.T) {
		f := &fakeHTTP{fault: "sse"}
		srv := httptest.NewServer(f)
		defer srv.Close()
		trace := filepath.Join(t.TempDir(), "t.jsonl")
		v := wireJSON(t, "--trace", trace, "-H", "X-Api-Key: key-SECRET-42", srv.URL+"/mcp")
		if got := names(v, "wire.tools"); strings.Join(got, ",") != "alpha,beta" {
			t.Errorf("tools = %v", got)
		}
		if v.Get("wire.transport").String() != "streamable-http" || v.Get("wire.http.session_id").String() != "sess…" {
			t.Errorf("transport %s, http %s", v.Get("wire.transport"), v.Get("wire.http").Raw)
		}
		if v.Get("wire.http.delete_status").Int() != 200 {
			t.Errorf("no DELETE at the end: %s", v.Get("wire.http").Raw)
		}
		data, _ := os.ReadFile(trace)
		if bytes.Contains(data, []byte("session-1-abcdefgh")) || bytes.Contains(data, []byte("key-SECRET-42")) {
			t.Errorf("the trace shows a session id or a header value")
		}
		var eventIDs []string
		for _, fr := range readTraceHTTP(t, trace) {
			if fr.HTTP.EventID != "" {
				eventIDs = append(eventIDs, fr.HTTP.EventID)
			}
		}
		if len(eventIDs) < 2 {
			t.Errorf("SSE event ids not traced: %v", eventIDs)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		sawVersion, sawSession, sawKey := false, false, false
		for _, h := range f.gotHeader[1:] {
			sawVersion = sawVersion || h.Get("MCP-Protocol-Version") == "2025-11-25"
			sawSession = sawSession || h.Get("Mcp-Session-Id") == "session-1-abcdefgh"
			sawKey = sawKey || h.Get("X-Api-Key") == "key-SECRET-42"
		}
		if !sawVersion || !sawSession || !sawKey {
			t.Errorf("headers after initialize: version %v session %v custom %v", sawVersion, sawSession, sawKey)
		}
		if !has(findingCodes(v), "notification") {
			t.Errorf("notifications on the POST and GET streams not recorded: %v", findingCodes(v))
		}
	})
	t.Run("404 on a live session re-initializes once", func(t *testing.T) {
		f := &fakeHTTP{fault: "expire"}
		srv := httptest.NewServer(f)
		defer srv.Close()
		v := wireJSON(t, srv.URL+"/mcp")
		if !has(findingCodes(v), "session-expired") {
			t.Errorf("no session-expired finding: %v", findingCodes(v))
		}
		if got := names(v, "wire.tools"); strings.Join(got, ",") != "alpha,beta" {
			t.Errorf("tools = %v", got)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.sessions != 2 {
			t.Errorf("%d sessions, want 2", f.sessions)
		}
	})
}

type httpFrame struct {
	Dir  string `json:"dir"`
	Raw  string `json:"raw"`
	HTTP struct {
		Method, Status, ContentType string
		EventID                     string `json:"event_id"`
	} `json:"http"`
}

func readTraceHTTP(t *testing.T, path string) []httpFrame {
	t.Helper()
	var out []httpFrame
	for _, f := range readTrace(t, path) {
		_ = f
	}
	data, _ := os.ReadFile(path)
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		v := gjson.ParseBytes(line)
		var hf httpFrame
		hf.Dir, hf.Raw = v.Get("dir").String(), v.Get("raw").String()
		hf.HTTP.EventID = v.Get("http.event_id").String()
		out = append(out, hf)
	}
	return out
}

// startHTTPServer runs a server that prints where it listens (on stderr or
// stdout) and returns its URL once it accepts connections.
func startHTTPServer(t *testing.T, env []string, want string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait(); pw.Close() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				select {
				case found <- sc.Text():
				default:
				}
			}
		}
	}()
	select {
	case line := <-found:
		return line
	case <-time.After(bound(20 * time.Second)):
		t.Fatalf("%v did not say %q within %v", argv, want, bound(20*time.Second))
	}
	return ""
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// definitions returns each tool's definition in canonical form (sorted
// keys), for comparing one server across transports.
func definitions(v gjson.Result) map[string]string {
	out := map[string]string{}
	for _, tool := range v.Get("wire.tools").Array() {
		out[tool.Get("name").String()] = canonical(tool)
	}
	return out
}

func canonical(v gjson.Result) string {
	switch {
	case v.IsObject():
		m := v.Map()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sortStrings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", k, canonical(m[k]))
		}
		return b.String() + "}"
	case v.IsArray():
		var parts []string
		for _, e := range v.Array() {
			parts = append(parts, canonical(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return v.Raw
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func sameTools(t *testing.T, stdio, http gjson.Result) {
	t.Helper()
	a, b := definitions(stdio), definitions(http)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("stdio has %d tools, HTTP %d", len(a), len(b))
	}
	for name, def := range a {
		if b[name] != def {
			t.Errorf("tool %s differs between stdio and HTTP:\nstdio %.300s\nhttp  %.300s", name, def, b[name])
		}
	}
}

func TestHTTPGoSDKServers(t *testing.T) {
	t.Parallel()
	stdio := wireJSON(t, bin.good)
	legacyStdio := wireJSON(t, "--protocol", "2025-11-25", bin.good)
	tests := []struct {
		name      string
		args      []string
		transport string
		protocol  string
		ref       gjson.Result
	}{
		{"streamable, stateful", []string{"-http", "127.0.0.1:0"}, "streamable-http", "2025-11-25", legacyStdio},
		{"streamable, stateless (2026-07-28)", []string{"-http", "127.0.0.1:0", "-stateless"}, "streamable-http", "2026-07-28", stdio},
		{"streamable, JSON responses", []string{"-http", "127.0.0.1:0", "-json-response"}, "streamable-http", "2025-11-25", legacyStdio},
		{"legacy HTTP+SSE", []string{"-sse", "127.0.0.1:0"}, "sse", "2025-11-25", legacyStdio},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := startHTTPServer(t, nil, "listening on", append([]string{bin.good}, tc.args...)...)
			url := strings.TrimSpace(strings.TrimPrefix(line, "listening on"))
			v := wireJSON(t, url)
			if v.Get("wire.transport").String() != tc.transport || v.Get("protocol_version").String() != tc.protocol {
				t.Errorf("transport %s protocol %s, want %s %s", v.Get("wire.transport"), v.Get("protocol_version"), tc.transport, tc.protocol)
			}
			if len(v.Get("findings").Array()) != 0 {
				t.Errorf("findings: %s", v.Get("findings").Raw)
			}
			sameTools(t, tc.ref, v)
		})
	}
}

// waitPort waits until addr accepts connections.
func waitPort(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(bound(20 * time.Second))
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never accepted a connection", addr)
}

func TestHTTPGoSDKExample(t *testing.T) {
	t.Parallel()
	stdio := wireJSON(t, "--protocol", "2025-11-25", bin.sdkEverything)
	addr := "127.0.0.1:" + freePort(t)
	startHTTPServer(t, nil, "listening at", bin.sdkEverything, "-http", addr)
	waitPort(t, addr)
	v := wireJSON(t, "http://"+addr+"/mcp")
	if v.Get("wire.transport").String() != "streamable-http" {
		t.Errorf("transport = %s", v.Get("wire.transport"))
	}
	sameTools(t, stdio, v)
}

func TestHTTPRealPeers(t *testing.T) {
	t.Parallel()
	entry := peer(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	loopback, _ := filepath.Abs("../../fixtures/loopback.cjs")
	stdio := wireJSON(t, "--", "node", entry, "stdio")
	tests := []struct {
		mode, path, transport, ready string
	}{
		{"streamableHttp", "/mcp", "streamable-http", "listening on port"},
		{"sse", "/sse", "sse", "running on port"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			port := freePort(t)
			startHTTPServer(t, []string{"PORT=" + port}, tc.ready, "node", "-r", loopback, entry, tc.mode)
			v := wireJSON(t, "http://127.0.0.1:"+port+tc.path)
			if v.Get("wire.transport").String() != tc.transport {
				t.Errorf("transport = %s, want %s", v.Get("wire.transport"), tc.transport)
			}
			if v.Get("wire.server_info.name").String() != "mcp-servers/everything" {
				t.Errorf("server_info = %s", v.Get("wire.server_info").Raw)
			}
			sameTools(t, stdio, v)
		})
	}
	t.Run("listens on loopback only", func(t *testing.T) {
		port := freePort(t)
		startHTTPServer(t, []string{"PORT=" + port}, "listening on port", "node", "-r", loopback, entry, "streamableHttp")
		out, err := exec.Command("ss", "-ltnH", "sport = :"+port).Output()
		if err != nil {
			t.Skipf("ss: %v", err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if !strings.Contains(l, "127.0.0.1:"+port) {
				t.Errorf("server listens beyond loopback: %s", l)
			}
		}
	})
}

func TestHTTPTargetsAndBounds(t *testing.T) {
	t.Run("body over --max-line", func(t *testing.T) {
		srv := httptest.NewServer(&fakeHTTP{fault: "huge"})
		defer srv.Close()
		v := wireJSON(t, "--max-line", "1000", srv.URL+"/mcp")
		if !has(findingCodes(v), "line-too-long") {
			t.Errorf("findings %v", findingCodes(v))
		}
	})
	t.Run("config entry with type, url, headers and ${VAR}", func(t *testing.T) {
		f := &fakeHTTP{}
		srv := httptest.NewServer(f)
		defer srv.Close()
		cfg := filepath.Join(t.TempDir(), ".mcp.json")
		os.WriteFile(cfg, []byte(`{"mcpServers":{"remote":{"type":"http","url":"`+srv.URL+`/mcp","headers":{"Authorization":"Bearer ${REMOTE_TOKEN}"}}}}`), 0o644)
		t.Setenv("REMOTE_TOKEN", "tok-from-env-999")
		r := mcpprobe(t, "wire", "--json", "--config", cfg, "remote")
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, "tok-from-env-999") {
			t.Fatalf("exit %d, or the token is shown:\n%s%s", r.code, r.stdout, r.stderr)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.gotAuth[0] != "Bearer tok-from-env-999" {
			t.Errorf("Authorization sent = %q", f.gotAuth[0])
		}
	})
	t.Run("--header-env", func(t *testing.T) {
		f := &fakeHTTP{}
		srv := httptest.NewServer(f)
		defer srv.Close()
		t.Setenv("MY_API_KEY", "key-from-env-777")
		r := mcpprobe(t, "wire", "--json", "--header-env", "X-Api-Key=MY_API_KEY", srv.URL+"/mcp")
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, "key-from-env-777") {
			t.Fatalf("exit %d, or the key is shown:\n%s", r.code, r.stderr)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.gotHeader[0].Get("X-Api-Key") != "key-from-env-777" {
			t.Errorf("X-Api-Key sent = %q", f.gotHeader[0].Get("X-Api-Key"))
		}
	})
	t.Run("--transport sse skips Streamable HTTP", func(t *testing.T) {
		line := startHTTPServer(t, nil, "listening on", bin.good, "-sse", "127.0.0.1:0")
		url := strings.TrimSpace(strings.TrimPrefix(line, "listening on"))
		trace := filepath.Join(t.TempDir(), "t.jsonl")
		v := wireJSON(t, "--transport", "sse", "--trace", trace, url)
		if v.Get("wire.transport").String() != "sse" {
			t.Errorf("transport = %s", v.Get("wire.transport"))
		}
		data, _ := os.ReadFile(trace)
		first := gjson.GetBytes(bytes.SplitN(data, []byte("\n"), 2)[0], "http.method").String()
		if first != "GET" {
			t.Errorf("first exchange was %s, want the GET of the SSE stream", first)
		}
	})
	t.Run("usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"wire", "--transport", "carrier-pigeon", "http://127.0.0.1:1/mcp"},
			{"wire", "--env", "A=b", "http://127.0.0.1:1/mcp"},
			{"wire", "-H", "X: y", bin.raw},
			{"wire", "--header-env", "X=MCPPROBE_UNSET_VAR_XYZ", "http://127.0.0.1:1/mcp"},
		} {
			if r := mcpprobe(t, args...); r.code != 2 {
				t.Errorf("%v: exit %d, want 2: %s", args, r.code, r.stderr)
			}
		}
	})
}
