//go:build e2e

package main

// Regression tests from a review: what a hostile server (or a careless
// target) must never get out of the probe.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func TestExitMessagesAreEscapedAndRedacted(t *testing.T) {
	t.Parallel()
	for _, command := range [][]string{
		{"wire"}, {"bench", "--startup", "1"}, {"faults"}, {"malformed"}, {"budget"}, {"snapshot"},
	} {
		args := append(command, "--env", "MY_TOKEN=hunter2-secret", "--", bin.raw, "-hostile-error", "MY_TOKEN")
		r := mcpprobe(t, args...)
		if r.code != 3 {
			t.Errorf("%v: exit %d, want 3: %s", command, r.code, r.stderr)
		}
		out := r.stdout + r.stderr
		if strings.Contains(out, "hunter2-secret") {
			t.Errorf("%v shows the secret", command)
		}
		if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x202e) {
			t.Errorf("%v prints raw escape or bidi characters: %q", command, r.stderr)
		}
	}
}

func TestSecretsStayOutOfEveryOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const secret = "supersecret123"
	env := "MYKEY=" + secret
	server := []string{"--", bin.raw, "-echo-env", "MYKEY"}
	lock := filepath.Join(dir, "lock.json")
	save := filepath.Join(dir, "saved")
	runs := [][]string{
		append([]string{"snapshot", "-o", lock, "--env", env}, server...),
		append([]string{"wire", "--save", save, "--env", env}, server...),
		append([]string{"diff", "--ref", lock, "--env", env}, server...),
		append([]string{"report", "--env", env}, server...),
	}
	for _, args := range runs {
		r := mcpprobe(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args[:2], r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%v prints the secret", args[:2])
		}
	}
	files, _ := filepath.Glob(filepath.Join(save, "*"))
	files = append(files, lock)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
	r := mcpprobe(t, "wire", "http://127.0.0.1:1/mcp?api_key=sk-live-abc123")
	if r.code != 3 || strings.Contains(r.stderr, "sk-live-abc123") {
		t.Errorf("a token in a URL's query is shown: exit %d %s", r.code, r.stderr)
	}
}

// A server that floods the GET stream with requests and refuses the
// answers with a JSON-RPC error for the same id must not wedge the probe.
func TestHTTPServerRequestFlood(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg := gjson.ParseBytes(body)
		switch {
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			for i := 0; i < 200; i++ {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"p%d\",\"method\":\"ping\"}\n\n", i)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case r.Method == http.MethodDelete:
		case msg.Get("result").Exists():
			// Our answer to its ping, refused with an error for that id.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"no"}}`, msg.Get("id").Raw)
		case msg.Get("method").String() == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s-123456")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}`, msg.Get("id").Raw)
		case msg.Get("method").String() == "tools/list":
			time.Sleep(200 * time.Millisecond) // let the flood arrive first
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, msg.Get("id").Raw)
		case msg.Get("id").Exists():
			http.Error(w, "no", 400)
		default:
			w.WriteHeader(202)
		}
	}))
	defer srv.Close()
	r := mcpprobe(t, "wire", "--json", "--timeout", secs(3*time.Second), srv.URL+"/mcp")
	if r.code != 0 || strings.Contains(r.stderr, "panic") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := gjson.Get(r.stdout, "wire.tools.#").Int(); n != 1 {
		t.Errorf("tools = %d", n)
	}
}

func TestAbsurdRatesAndEmptyRuns(t *testing.T) {
	t.Parallel()
	if r := mcpprobe(t, "bench", "--rate", "2e9/s", "--call", "echo", "--", bin.raw, "-bench-tools"); r.code != 2 {
		t.Errorf("--rate 2e9/s: exit %d: %s", r.code, r.stderr)
	}
	// Nothing to measure is a usage error, not an empty table.
	if r := mcpprobe(t, "bench", "-n", "0", "--startup", "0", "--call", "echo", "--", bin.raw, "-bench-tools"); r.code != 2 || !strings.Contains(r.stderr, "-n 0 and --startup 0") {
		t.Errorf("-n 0 --startup 0: exit %d: %s", r.code, r.stderr)
	}
	if r := mcpprobe(t, "faults", "--calls", "0", "--call", "echo", "--", bin.raw, "-bench-tools"); r.code != 0 {
		t.Errorf("--calls 0: exit %d: %s", r.code, r.stderr)
	}
	r := mcpprobe(t, "report", "--faults", "--", bin.raw)
	if r.code != 0 || !strings.Contains(r.stdout, "## Faults\n\nNot run: the server annotates no tool read-only") {
		t.Errorf("report --faults without read-only tools: exit %d: %s", r.code, r.stderr)
	}
	if r := mcpprobe(t, "bench", "--startup", "0", "--vs", "/no/such/server", "--call", "echo", "--", bin.raw, "-bench-tools"); r.code != 3 {
		t.Errorf("--vs a missing server: exit %d: %s", r.code, r.stderr)
	}
}

func TestReviewOfTheREADME(t *testing.T) {
	t.Parallel()
	t.Run("a snapshot of a server that does not sort its tools is no drift", func(t *testing.T) {
		lock := filepath.Join(t.TempDir(), "lock.json")
		if r := mcpprobe(t, "snapshot", "-o", lock, "--", bin.raw); r.code != 0 {
			t.Fatal(r.stderr)
		}
		v := diffJSON(t, 0, "--ref", lock, "--fail-on", "drift", "--", bin.raw)
		if !v.Get("identical_bytes").Bool() || len(v.Get("changes").Array()) != 0 {
			t.Errorf("%s", v.Raw)
		}
	})
	t.Run("bench -n 0 is startup only", func(t *testing.T) {
		v := benchJSONRun(t, "-n", "0", "--startup", "2", "--", bin.raw, "-bench-tools")
		if v.Get("bench.calls.#").Int() != 0 || v.Get("bench.ping").Type != gjson.Null || v.Get("bench.startup.n").Int() != 2 {
			t.Errorf("calls %d ping %s", v.Get("bench.calls.#").Int(), v.Get("bench.ping").Raw)
		}
	})
	t.Run("a gate a command cannot trip is refused", func(t *testing.T) {
		for _, args := range [][]string{
			{"wire", "--fail-on", "cut", bin.good},
			{"budget", "--fail-on", "drift", bin.good},
			{"diff", "--fail-on", "cut", "--ref", "x", bin.good},
			{"bench", "--fail-on", "cut", bin.good},
			{"malformed", "--fail-on", "drift", bin.good},
		} {
			if r := mcpprobe(t, args...); r.code != 2 || !strings.Contains(r.stderr, "does not apply to") {
				t.Errorf("%v: exit %d %s", args, r.code, r.stderr)
			}
		}
	})
	t.Run("exit-3 messages say what, what was received, what to try", func(t *testing.T) {
		for _, args := range [][]string{{"wire", "./no-such-server"}, {"wire", "http://127.0.0.1:1/mcp"}} {
			r := mcpprobe(t, args...)
			if r.code != 3 || !strings.Contains(r.stderr, "\nReceived: ") || !strings.Contains(r.stderr, "\nTry: ") {
				t.Errorf("%v: exit %d %s", args, r.code, r.stderr)
			}
		}
	})
}
