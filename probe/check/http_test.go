package check

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func ans(status int, ctype, body string) hx {
	x := hx{Method: "POST", What: "ping", Status: status, ContentType: ctype, Body: []byte(body)}
	if strings.HasPrefix(body, "{") {
		x.Msg = []byte(body)
	}
	return x
}

var noAnswer = hx{Method: "POST", What: "ping", Err: "no answer within --timeout"}

func TestJudgeTransport(t *testing.T) {
	sse := ans(200, "text/event-stream", "")
	sse.Events = []sseEvent{{ID: "1", HasID: true, HasData: true}, {ID: "2", HasID: true, Data: `{"jsonrpc":"2.0","id":1,"result":{}}`, HasData: true}}
	sse.Msg = []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	unprimed := ans(200, "text/event-stream", "")
	unprimed.Events = []sseEvent{{Data: `{"jsonrpc":"2.0","id":1,"result":{}}`, HasData: true}}
	for _, tc := range []struct {
		name    string
		v       Verdict
		id      string
		outcome string
		why     string
	}{
		{"notification 202", JudgeNotification(Legacy, ans(202, "", "")), IDHTTPNotification, Pass, "202"},
		{"notification refused", JudgeNotification(Modern, ans(400, "application/json", `{"error":{}}`)), IDHTTPNotification, Pass, "HTTP 400"},
		{"notification 200 body", JudgeNotification(Legacy, ans(200, "application/json", `{}`)), IDHTTPNotification, Fail, "202 Accepted with no body"},
		{"notification 202 body", JudgeNotification(Legacy, ans(202, "text/plain", "ok")), IDHTTPNotification, Fail, "2 bytes"},
		{"notification no answer", JudgeNotification(Legacy, noAnswer), IDHTTPNotification, Warn, "--timeout"},
		{"json", JudgeContentType(Legacy, ans(200, "application/json; charset=utf-8", `{"id":1}`)), IDHTTPContentType, Pass, "application/json"},
		{"sse", JudgeContentType(Legacy, sse), IDHTTPContentType, Pass, "text/event-stream"},
		{"text/plain", JudgeContentType(Modern, ans(200, "text/plain", `{"id":1}`)), IDHTTPContentType, Fail, "text/plain"},
		{"no type", JudgeContentType(Legacy, ans(200, "", `{"id":1}`)), IDHTTPContentType, Fail, "no Content-Type"},
		{"json not object", JudgeContentType(Legacy, ans(200, "application/json", `[1]`)), IDHTTPContentType, Fail, "not one JSON object"},
		{"refused", JudgeContentType(Legacy, ans(500, "text/plain", "x")), IDHTTPContentType, Inconclusive, "HTTP 500"},
		{"accept", JudgeAccept(Legacy, ans(406, "application/json", `{}`), ans(200, "text/event-stream", "")), IDHTTPAccept, Observed, "answered HTTP 406 application/json, text/event-stream alone HTTP 200 text/event-stream"},
		{"version 400", JudgeVersionHeader("2025-11-25", ans(400, "", "")), IDHTTPVersionHeader, Pass, "400"},
		{"version served", JudgeVersionHeader("2025-06-18", ans(200, "application/json", `{}`)), IDHTTPVersionHeader, Fail, "MUST answer"},
		{"version before header", JudgeVersionHeader("2025-03-26", ans(200, "", "")), IDHTTPVersionHeader, NotApplicable, "new in 2025-06-18"},
		{"charset ok", JudgeSessionCharset(hx{SessionID: "abc-123"}), IDHTTPSessionCharset, Pass, "7-byte"},
		{"charset space", JudgeSessionCharset(hx{SessionID: "ab c"}), IDHTTPSessionCharset, Fail, "byte 3"},
		{"charset DEL", JudgeSessionCharset(hx{SessionID: "ab\x7f"}), IDHTTPSessionCharset, Fail, "0x7f"},
		{"no session", JudgeSessionCharset(hx{}), IDHTTPSessionCharset, NotApplicable, "no Mcp-Session-Id"},
		{"missing 400", JudgeSessionMissing("s", ans(400, "", "")), IDHTTPSessionMissing, Pass, "400"},
		{"missing served", JudgeSessionMissing("s", ans(200, "", "")), IDHTTPSessionMissing, Observed, "does not require"},
		{"missing 404", JudgeSessionMissing("s", ans(404, "", "")), IDHTTPSessionMissing, Warn, "SHOULD"},
		{"unknown 404", JudgeUnknownSession("s", ans(404, "", "")), IDHTTPSessionUnknown, Pass, "404"},
		{"unknown 200", JudgeUnknownSession("s", ans(200, "", "")), IDHTTPSessionUnknown, Warn, "never issued"},
		{"delete then 404", JudgeSessionDelete("s", ans(204, "", ""), ans(404, "", "")), IDHTTPSessionDelete, Pass, "404"},
		{"delete then served", JudgeSessionDelete("s", ans(200, "", ""), ans(200, "", "")), IDHTTPSessionDelete, Fail, "MUST answer 404"},
		{"delete 405", JudgeSessionDelete("s", ans(405, "", ""), hx{}), IDHTTPSessionDelete, Observed, "MAY"},
		{"delete 202", JudgeSessionDelete("s", ans(202, "", ""), hx{}), IDHTTPSessionDelete, Observed, "not yet enacted"},
		{"origin 403", JudgeOrigin(Legacy, true, ans(403, "", "")), IDHTTPOrigin, Pass, "403"},
		{"origin served loopback", JudgeOrigin(Modern, true, ans(200, "", "")), IDHTTPOrigin, Fail, "loopback"},
		{"origin served remote", JudgeOrigin(Legacy, false, ans(200, "", "")), IDHTTPOrigin, Observed, "configuration"},
		{"origin 401", JudgeOrigin(Legacy, true, ans(401, "", "")), IDHTTPOrigin, Observed, "not 403"},
		{"get sse", JudgeGet(Legacy, "", ans(200, "text/event-stream", "")), IDHTTPGet, Pass, "text/event-stream"},
		{"get 405", JudgeGet(Legacy, "", ans(405, "", "")), IDHTTPGet, Pass, "405"},
		{"get json", JudgeGet(Legacy, "", ans(200, "application/json", "{}")), IDHTTPGet, Fail, "MUST answer"},
		{"get 401", JudgeGet(Legacy, "", ans(401, "", "")), IDHTTPGet, Inconclusive, "authorization"},
		{"get modern 405", JudgeGet(Modern, "", ans(405, "", "")), IDHTTPGet, Pass, "405"},
		{"get modern 200", JudgeGet(Modern, "", ans(200, "text/event-stream", "")), IDHTTPGet, Warn, "SHOULD"},
		{"get modern dual", JudgeGet(Modern, "serves 2025-11-25 too", ans(200, "", "")), IDHTTPGet, NotApplicable, "2025-11-25"},
		{"primed", JudgePriming("2025-11-25", []hx{sse}), IDHTTPPriming, Pass, "empty data"},
		{"unprimed", JudgePriming("2025-11-25", []hx{unprimed}), IDHTTPPriming, Warn, "SHOULD"},
		{"json only", JudgePriming("2025-11-25", []hx{ans(200, "application/json", "{}")}), IDHTTPPriming, NotApplicable, "application/json"},
		{"old version", JudgePriming("2025-06-18", []hx{unprimed}), IDHTTPPriming, NotApplicable, "new in 2025-11-25"},
		{"resume", JudgeResume("2", ans(405, "", "")), IDHTTPResume, Observed, "405"},
		{"no ids", JudgeResume("", hx{}), IDHTTPResume, NotApplicable, "no stream"},
		{"mismatch ok", JudgeHeaderMismatch(ans(400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}`)), IDHTTPHeaderMismatch, Pass, "-32020"},
		{"mismatch other code", JudgeHeaderMismatch(ans(400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}`)), IDHTTPHeaderMismatch, Fail, "-32600"},
		{"mismatch no body", JudgeHeaderMismatch(ans(400, "text/plain", "bad")), IDHTTPHeaderMismatch, Fail, "without a JSON-RPC error"},
		{"mismatch both", JudgeHeaderMismatch(ans(400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}`), ans(400, "application/json", `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"n"}}`)), IDHTTPHeaderMismatch, Pass, "Mcp-Method and Mcp-Name"},
		{"mismatch name served", JudgeHeaderMismatch(ans(400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}`), hx{Method: "POST", What: "tools/call", Status: 200, ContentType: "application/json", Msg: []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool"}}`)}), IDHTTPHeaderMismatch, Fail, "Mcp-Name: mcpprobe-check-other-name was answered HTTP 200 with error -32602"},
		{"mismatch served", JudgeHeaderMismatch(ans(200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`)), IDHTTPHeaderMismatch, Fail, "HTTP 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			if v.ID != tc.id || v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) {
				t.Errorf("%s %s %q, want %s %s containing %q", v.ID, v.Outcome, v.Why, tc.id, tc.outcome, tc.why)
			}
			if v.Outcome == Fail && (v.Clause == nil || v.Clause.Keyword != "MUST" || v.Clause.Binds != "server") {
				t.Errorf("a fail not resting on a server's MUST: %+v", v.Clause)
			}
			if v.Outcome != NotApplicable && v.Clause == nil {
				t.Errorf("a %s without a clause", v.Outcome)
			}
		})
	}
}

// The wire reads an SSE answer event by event, priming events included,
// up to the response; a GET's stream is not read; a hung answer ends at
// the timeout with a stable reason.
func TestWire(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case http.MethodDelete:
			<-r.Context().Done()
		default:
			if r.Header.Get("Origin") != "" {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Mcp-Session-Id", "sid-1")
			fmt.Fprint(w, "id: p1\nretry: 500\ndata:\n\n: comment\n\nid: e2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done() // the stream stays open after the response
		}
	}))
	defer srv.Close()
	w := newWire(context.Background(), srv.URL, []string{"X-Team: eng"}, 2*time.Second, false, "mcpprobe-test")
	x := w.initializeAs(v1)
	if x.Status != 200 || x.SessionID != "sid-1" || len(x.Events) != 2 || string(x.Msg) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("initialize: %+v", x)
	}
	if e := x.Events[0]; !e.HasID || e.ID != "p1" || e.Data != "" || e.Retry != "500" {
		t.Errorf("priming event: %+v", e)
	}
	if v := JudgePriming(v1, []hx{x}); v.Outcome != Pass {
		t.Errorf("priming: %s %s", v.Outcome, v.Why)
	}
	if resumeFrom([]hx{x}) != "p1" {
		t.Errorf("resume from %q", resumeFrom([]hx{x}))
	}
	o := w.post("ping", rpc(w.id(), "ping", ""), with(w.legacyHeaders(), hdr{"Origin", foreignOrigin}), hdr{"Origin", foreignOrigin})
	if v := JudgeOrigin(Legacy, true, o); v.Outcome != Pass || v.Sent != "POST ping (Origin: http://evil.example)" {
		t.Errorf("origin: %s %q", v.Outcome, v.Sent)
	}
	g := w.do(http.MethodGet, "", nil, []hdr{{"Accept", "text/event-stream"}})
	if g.Status != 200 || g.Err != "" {
		t.Errorf("GET: %+v", g)
	}
	w.timeout = 200 * time.Millisecond
	d := w.do(http.MethodDelete, "", nil, nil)
	if d.answered() || d.Err != "no answer within --timeout" {
		t.Errorf("a hung DELETE: %+v", d)
	}
}

// Every HTTP check is in the registry, judges HTTP only, and is not
// applicable over stdio with why.
func TestHTTPChecksRegistered(t *testing.T) {
	for _, c := range HTTPChecks() {
		if _, ok := Lookup(c.ID); !ok || len(c.Transports) != 1 || c.Transports[0] != HTTP {
			t.Errorf("%s: registered %v, transports %v", c.ID, ok, c.Transports)
		}
	}
	vs := transportVerdicts(context.Background(), Options{}, Legacy, "", "", nil, "")
	if len(vs) != 12 {
		t.Errorf("%d legacy transport verdicts over stdio", len(vs))
	}
	for _, v := range vs {
		if v.Outcome != NotApplicable || !strings.Contains(v.Why, "stdio") {
			t.Errorf("%s over stdio: %s %s", v.ID, v.Outcome, v.Why)
		}
	}
}
