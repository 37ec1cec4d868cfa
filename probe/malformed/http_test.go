package malformed

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/transport"
)

// An HTTP error status is an answer: by its JSON-RPC body when it has
// one, else http_error with what came, escaped.
func TestHTTPAnswer(t *testing.T) {
	tests := []struct {
		name    string
		he      transport.HTTPError
		answer  string
		message string // a part of the message
	}{
		{"mcp-go's parse error", transport.HTTPError{Status: 400, ContentType: "application/json",
			Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"request body is not valid json"}}`)},
			"rpc_error -32700 (http 400)", "request body is not valid json"},
		{"a session error", transport.HTTPError{Status: 404, ContentType: "application/json",
			Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`)},
			"rpc_error -32001 (http 404)", "Session not found"},
		{"the Go SDK's text", transport.HTTPError{Status: 400, ContentType: "text/plain; charset=utf-8",
			Body: []byte("malformed payload: invalid character\n")},
			"http_error 400", `HTTP 400 text/plain; charset=utf-8 with a body: "malformed payload: invalid character\n"`},
		{"escapes", transport.HTTPError{Status: 500, ContentType: "text/html", Body: []byte("<h1>\x1b[31mBad</h1>")},
			"http_error 500", `\x1b[31mBad`},
		{"no body", transport.HTTPError{Status: 405}, "http_error 405", "HTTP 405 with no body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := httpAnswer(&tc.he)
			if got := o.Answer(); got != tc.answer {
				t.Errorf("Answer() = %q, want %q", got, tc.answer)
			}
			if !strings.Contains(o.Message, tc.message) {
				t.Errorf("message %q lacks %q", o.Message, tc.message)
			}
			if strings.ContainsRune(o.Message, 0x1b) {
				t.Errorf("a raw escape in %q", o.Message)
			}
		})
	}
}

// A notification over Streamable HTTP is judged by the transport's rule
// for its POST, in each revision's words and at its URL.
func TestNotificationOverHTTP(t *testing.T) {
	tests := []struct {
		name    string
		a       transport.NotificationAnswer
		channel string
		verdict string
		answer  string
	}{
		{"202, no body", transport.NotificationAnswer{Status: 202}, NoAnswer, Pass, "no_answer"},
		{"202 and a reply elsewhere", transport.NotificationAnswer{Status: 202}, OK, Fail, "ok"},
		{"refused 400", transport.NotificationAnswer{Status: 400, BodyLen: 10}, HTTPError, Pass, "http_error 0"},
		{"200 with a JSON-RPC body", transport.NotificationAnswer{Status: 200, BodyLen: 38, Body: []byte(`{"jsonrpc":"2.0","id":null,"result":{}}`)}, OK, Fail, "ok (http 200)"},
		{"200 with another body", transport.NotificationAnswer{Status: 200, BodyLen: 2, Body: []byte(`{}`)}, NoAnswer, Fail, "no_answer (http 200)"},
		{"204", transport.NotificationAnswer{Status: 204}, NoAnswer, Fail, "no_answer (http 204)"},
		{"202 with a body", transport.NotificationAnswer{Status: 202, BodyLen: 2, Body: []byte(`{}`)}, NoAnswer, Fail, "no_answer (http 202)"},
		{"a crash", transport.NotificationAnswer{Status: 200, BodyLen: -1}, Crashed, Warn, "crashed (http 200)"},
	}
	for _, v := range allVersions {
		var cancel Case
		for _, c := range ProtocolCasesOver(v, "", "", OverStreamable) {
			if c.Name == "cancel an unknown id" {
				cancel = c
			}
		}
		if !cancel.Notification {
			t.Fatalf("%s: the cancel case is not marked a notification", v)
		}
		for _, tc := range tests {
			a := tc.a
			o := Outcome{Case: cancel.Name, Channel: tc.channel, notified: &a}
			o.Expected = cancel.Expect.overHTTP(&a, v)
			o.Judgement = Judge(o.Channel, o.Code, o.Expected)
			if o.Verdict != tc.verdict {
				t.Errorf("%s %s: %s, want %s (%s)", v, tc.name, o.Verdict, tc.verdict, o.Why)
			}
			if tc.answer != "http_error 0" && o.Answer() != tc.answer {
				t.Errorf("%s %s: Answer() = %q, want %q", v, tc.name, o.Answer(), tc.answer)
			}
			if tc.verdict == Fail && tc.channel != OK {
				want := "/basic/transports#sending-messages-to-the-server"
				if v >= "2026-07-28" {
					want = "/basic/transports/streamable-http#sending-messages"
				}
				if !strings.HasSuffix(o.Clause.URL, want) || o.Clause.Keyword != "MUST" || o.Clause.Binds != "server" || !strings.Contains(o.Clause.Text, "202 Accepted with no body") {
					t.Errorf("%s %s: cites %+v", v, tc.name, *o.Clause)
				}
				if cv := o.Clause.Version; (v == "2024-11-05" && cv != "2025-03-26") || (v != "2024-11-05" && cv != v) {
					t.Errorf("%s %s: the clause of %s", v, tc.name, cv)
				}
			}
		}
	}
}

// The open cases cite the sentence of the transport in use.
func TestBodyClausePerTransport(t *testing.T) {
	tests := []struct {
		version, over, url, text string
	}{
		{"2025-11-25", OverStdio, "2025-11-25/basic/transports#stdio", "stdin"},
		{"2026-07-28", OverStdio, "2026-07-28/basic/transports/stdio", "stdin"},
		{"2025-11-25", OverStreamable, "2025-11-25/basic/transports#sending-messages-to-the-server", "a single JSON-RPC request, notification, or response"},
		{"2025-06-18", OverStreamable, "2025-06-18/basic/transports#sending-messages-to-the-server", "a single JSON-RPC request, notification, or response"},
		{"2025-03-26", OverStreamable, "2025-03-26/basic/transports#sending-messages-to-the-server", "an array batching"},
		{"2026-07-28", OverStreamable, "2026-07-28/basic/transports/streamable-http#sending-messages", "a single JSON-RPC request or notification"},
		{"2024-11-05", OverSSE, "2024-11-05/basic/transports#http-with-sse", "HTTP POST requests to this endpoint"},
	}
	for _, tc := range tests {
		for _, e := range []Expectation{invalidJSON(tc.version, tc.over), missingMethod(tc.version, tc.over)} {
			if !strings.HasSuffix(e.Clause.URL, tc.url) || !strings.Contains(e.Clause.Text, tc.text) || e.Clause.Binds != "client" {
				t.Errorf("%s over %q: cites %+v", tc.version, tc.over, *e.Clause)
			}
		}
	}
}

// 2026-07-28 over Streamable HTTP asks 404 with -32601 for an unknown
// method: -32601 on another status fails on that MUST; legacy versions
// ask no status.
func TestUnknownMethodStatus(t *testing.T) {
	tests := []struct {
		version string
		http    bool
		status  int
		verdict string
	}{
		{"2026-07-28", true, 404, Pass},
		{"2026-07-28", true, 200, Fail},
		{"2026-07-28", true, 400, Fail},
		{"2026-07-28", false, 0, Pass},
		{"2025-11-25", true, 200, Pass},
		{"2025-11-25", true, 400, Pass},
	}
	for _, tc := range tests {
		var e Expectation
		for _, c := range ProtocolCases(tc.version, `{}`, "", tc.http) {
			if c.Name == "unknown method" {
				e = c.Expect
			}
		}
		outs := judgeAll([]Outcome{{Case: "unknown method", Channel: RPCError, Code: -32601, RawCode: "-32601", HTTPStatus: tc.status, Expected: e}}, tc.version)
		if got := outs[0].Verdict; got != tc.verdict {
			t.Errorf("%s http=%v status %d: %s, want %s (%s)", tc.version, tc.http, tc.status, got, tc.verdict, outs[0].Why)
		}
		if tc.verdict == Fail && !strings.Contains(outs[0].Clause.Text, "404 Not Found") {
			t.Errorf("%s status %d: cites %+v", tc.version, tc.status, *outs[0].Clause)
		}
	}
}
