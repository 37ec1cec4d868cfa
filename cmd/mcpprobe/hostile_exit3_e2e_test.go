//go:build e2e

package main

// Honest exit-3 messages (issue 12): every way a target can fail to be
// probed says what happened, what was received (what was, not
// "nothing"), and what to try, in the transport's terms.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestEveryExitThreePathHasThreeParts(t *testing.T) {
	t.Parallel()
	quick := []string{"--startup-timeout", "1s", "--discover-timeout", "300ms", "--timeout", "1s", "--grace", "200ms"}
	fake := func(fault string) string {
		srv := httptest.NewServer(&fakeHTTP{fault: fault})
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	redirect := httptest.NewServer(&fakeHTTP{fault: "redirect", otherURL: other.URL + "/mcp"})
	t.Cleanup(redirect.Close)
	odd := httptest.NewServer(http.HandlerFunc(oddHTTP(other.URL)))
	t.Cleanup(odd.Close)
	noExec := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(noExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		http bool
		want []string // in the message, besides the three parts
		not  []string
	}{
		// stdio
		{"not on PATH", []string{"no-such-mcp-server-xyz"}, false, []string{"could not start", "it is not on PATH"}, nil},
		{"not executable", []string{noExec}, false, []string{"could not start", "not executable"}, nil},
		{"exits before its handshake", []string{"--", bin.raw, "-exit-before-init", "3"}, false,
			[]string{"exited before it answered server/discover (exit status 3)", "stderr: fatal: ORDERS_API_KEY is not set"}, nil},
		{"silent", []string{"--", bin.raw, "-silent"}, false,
			[]string{"did not answer initialize within", "nothing on stdout or stderr"}, nil},
		// Killed by mcpprobe when it let it go: not an exit of its own.
		{"silent, deaf to stdin close and SIGTERM", []string{"--", bin.raw, "-silent", "-ignore-stdin-close", "-ignore-sigterm"}, false,
			[]string{"did not answer initialize within"}, []string{"exited", "(signal:"}},
		// It answered, with ids of its own: that is what was received.
		{"answers with string ids", []string{"--", bin.raw, "-string-id"}, false,
			[]string{"did not answer initialize within", `"id":"1"`, `a response with id "1", a string`, `a response with id "2", a string`}, []string{"nothing on stdout"}},
		{"a banner and silence", []string{"--", bin.raw, "-banner", "-silent"}, false,
			[]string{"did not answer initialize", "stdout: Server listening on stdio"}, nil},
		{"a modern error to server/discover", []string{"--", bin.raw, "-hostile-error", "NONE"}, false,
			[]string{"speaks 2026-07-28 but rejected", "pin a legacy version"}, nil},
		{"every version rejected", []string{"--protocol", "2025-06-18", "--", bin.raw, "-reject-version", "2025-06-18"}, false,
			[]string{"rejected initialize for every protocol version", "Unsupported protocol version"}, nil},
		{"no modern version", []string{"--protocol", "2026-07-28", "--", bin.raw, "-discover-unsupported"}, false,
			[]string{"does not support protocol version 2026-07-28"}, nil},
		{"handshake over --max-line", []string{"--max-line", "100", "--", bin.raw}, false,
			[]string{"could not be read", "raise --max-line"}, nil},
		{"past --max-bytes before its handshake", []string{"--max-bytes", "50000", "--", bin.raw, "-stderr-flood", "10000"}, false,
			[]string{"more than --max-bytes before it answered", "raise --max-bytes"}, nil},
		// HTTP
		{"refused connection", []string{"http://127.0.0.1:1/mcp"}, true, []string{"could not reach", "no HTTP response"}, nil},
		{"401", []string{fake("401")}, true, []string{"HTTP 401", "give credentials"}, nil},
		{"406", []string{fake("406")}, true, []string{"HTTP 406", "server bug"}, nil},
		{"400 html", []string{fake("400html")}, true, []string{"HTTP 400"}, nil},
		{"SSE that never answers", []string{fake("trickle")}, true, []string{"did not answer initialize within", "MCP endpoint"}, nil},
		{"SSE cut mid-event", []string{fake("cut")}, true, []string{"ended in the middle of an event"}, nil},
		{"not JSON-RPC", []string{fake("notjson")}, true, []string{"not a JSON-RPC message"}, nil},
		{"gzip", []string{fake("gzip")}, true, []string{"compressed", "not to compress"}, nil},
		{"redirect to another origin", []string{redirect.URL + "/mcp"}, true, []string{"redirect to another origin"}, nil},
		{"string ids over HTTP", []string{odd.URL + "/stringid"}, true,
			[]string{"did not answer initialize", `a response with id "1", a string`}, []string{"nothing"}},
		// Refused, rightly; but for what it is, not "no endpoint event".
		{"legacy endpoint on another origin", []string{"--transport", "sse", odd.URL + "/legacy"}, true,
			[]string{"another origin"}, []string{"no endpoint event"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := probeRun(t, nil, nil, append(append([]string{"wire"}, quick...), tc.args...)...)
			if r.code != 3 {
				t.Fatalf("exit %d, want 3:\n%s", r.code, r.stderr)
			}
			checkThreeParts(t, r.stderr, tc.http)
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("the message lacks %q:\n%s", w, r.stderr)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(r.stderr, w) {
					t.Errorf("the message has %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// Every command that starts a server says the same three things.
func TestExitThreeInEveryCommand(t *testing.T) {
	t.Parallel()
	quick := []string{"--startup-timeout", "1s", "--discover-timeout", "300ms", "--timeout", "1s"}
	for _, cmd := range [][]string{
		{"budget"}, {"snapshot"}, {"report"}, {"bench", "--startup", "1"}, {"faults"}, {"malformed"}, {"check"},
		{"diff", "--ref", "../../fixtures/goodserver/reference.anthropic.json"},
		{"load", "--rate", "10/s", "--requests", "1", "--sessions", "2"},
	} {
		for _, target := range [][]string{{"--", bin.raw, "-string-id"}, {"http://127.0.0.1:1/mcp"}} {
			t.Run(cmd[0]+" "+target[0], func(t *testing.T) {
				t.Parallel()
				r := probeRun(t, nil, nil, append(append(append([]string{}, cmd...), quick...), target...)...)
				if r.code != 3 {
					t.Fatalf("exit %d, want 3:\n%s", r.code, r.stderr)
				}
				checkThreeParts(t, r.stderr, target[0] != "--")
			})
		}
	}
}

func checkThreeParts(t *testing.T, msg string, isHTTP bool) {
	t.Helper()
	if !strings.HasPrefix(msg, "mcpprobe: ") || !strings.Contains(msg, "\nReceived: ") || !strings.Contains(msg, "\nTry: ") {
		t.Errorf("not what, received and try:\n%s", msg)
	}
	if i := strings.Index(msg, "\nReceived: "); i >= 0 && strings.HasPrefix(msg[i+len("\nReceived: "):], "\n") {
		t.Errorf("an empty Received:\n%s", msg)
	}
	try := msg[strings.Index(msg, "\nTry: ")+1:]
	if isHTTP && (strings.Contains(try, "stdio") || strings.Contains(try, "the command by hand")) {
		t.Errorf("an HTTP failure got a stdio Try:\n%s", msg)
	}
}

// oddHTTP serves a Streamable HTTP endpoint that answers with string ids
// (/stringid), and a legacy SSE endpoint whose endpoint event names
// another origin (/legacy).
func oddHTTP(other string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/legacy" && r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionId=abcdef123456\n\n", other)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case r.URL.Path == "/stringid" && r.Method == http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			id := gjson.GetBytes(body, "id")
			if !id.Exists() {
				w.WriteHeader(202)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"%s","error":{"code":-32601,"message":"no"}}`, id.String())
		default:
			w.WriteHeader(405)
		}
	}
}
