package check

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

func resOf(method, result string) Exchange {
	x := res(result)
	x.Method = method
	return x
}

func want(t *testing.T, name string, v Verdict, outcome, why string) {
	t.Helper()
	if v.Outcome != outcome || !strings.Contains(v.Why, why) {
		t.Errorf("%s: %s %q, want %s containing %q", name, v.Outcome, v.Why, outcome, why)
	}
	if (v.Outcome == Pass || v.Outcome == Fail || v.Outcome == Warn) && v.Clause == nil {
		t.Errorf("%s: a %s without a clause", name, v.Outcome)
	}
}

func TestJudgeCaching(t *testing.T) {
	good := `"resultType":"complete","ttlMs":0,"cacheScope":"public"`
	for _, tc := range []struct {
		name, list       string
		ttl, ttlWhy      string
		scope, scopeWhy  string
		methodOverride   string
		inputRequiredToo bool
	}{
		{"both", `{"tools":[],` + good + `}`, Pass, "integer ttlMs >= 0", Pass, `"public" or "private"`, "", false},
		{"no ttl", `{"tools":[],"resultType":"complete","cacheScope":"private"}`, Fail, "has no ttlMs", Pass, "", "", false},
		{"negative", `{"tools":[],"resultType":"complete","ttlMs":-1,"cacheScope":"public"}`, Fail, "not a number >= 0", Pass, "", "", false},
		{"string ttl", `{"tools":[],"resultType":"complete","ttlMs":"60","cacheScope":"public"}`, Fail, "not a number >= 0", Pass, "", "", false},
		{"fraction", `{"tools":[],"resultType":"complete","ttlMs":1.5,"cacheScope":"public"}`, Warn, "not an integer", Pass, "", "", false},
		{"no scope", `{"tools":[],"resultType":"complete","ttlMs":5}`, Pass, "", Fail, "has no cacheScope", "", false},
		{"bad scope", `{"tools":[],"resultType":"complete","ttlMs":5,"cacheScope":"shared"}`, Pass, "", Warn, `cacheScope "shared"`, "", false},
		// input_required results carry no hints, and tools/call is not cacheable
		{"interim", `{"resultType":"input_required","requestState":"x"}`, Inconclusive, "no cacheable request", Inconclusive, "", "", false},
		{"not cacheable", `{"content":[],"resultType":"complete"}`, Inconclusive, "", Inconclusive, "", "tools/call", false},
	} {
		method := "tools/list"
		if tc.methodOverride != "" {
			method = tc.methodOverride
		}
		vs := JudgeCaching([]Exchange{resOf(method, tc.list), {Method: "prompts/list", Err: &probe.RPCError{Code: -32601}}})
		want(t, tc.name+" ttl", vs[0], tc.ttl, tc.ttlWhy)
		want(t, tc.name+" scope", vs[1], tc.scope, tc.scopeWhy)
		if vs[0].ID != IDCacheTTL || vs[1].ID != IDCacheScope {
			t.Errorf("%s: ids %s %s", tc.name, vs[0].ID, vs[1].ID)
		}
	}
}

func TestJudgeCachingPages(t *testing.T) {
	p1 := resOf("tools/list", `{"tools":[],"nextCursor":"c","resultType":"complete","ttlMs":0,"cacheScope":"private"}`)
	p2 := resOf("tools/list", `{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`)
	p3 := resOf("tools/list", `{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"}`)
	other := resOf("prompts/list", `{"prompts":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`)
	want(t, "mixed", JudgeCaching([]Exchange{p1, other, p2})[1], Fail, `carry cacheScope "private" and "public"`)
	want(t, "same", JudgeCaching([]Exchange{p1, other, p3})[1], Pass, "each of the 3")
}

func TestJudgeUnsupportedVersion(t *testing.T) {
	e := func(code int64, data string) Exchange {
		return Exchange{Method: "server/discover", Err: &probe.RPCError{Code: code, Message: "x", Data: []byte(data)}}
	}
	for _, tc := range []struct {
		name    string
		x       Exchange
		outcome string
		why     string
	}{
		{"listed", e(-32022, `{"supported":["2026-07-28"],"requested":"2099-12-31"}`), Pass, "listing 1 supported"},
		{"no data", e(-32022, ``), Fail, "without data.supported"},
		{"empty list", e(-32022, `{"supported":[],"requested":"2099-12-31"}`), Fail, "without data.supported"},
		{"numbers", e(-32022, `{"supported":[2026],"requested":"2099-12-31"}`), Fail, "without data.supported"},
		{"no requested", e(-32022, `{"supported":["2026-07-28"]}`), Warn, "data.requested"},
		{"other code", e(-32601, ``), Fail, "got error -32601"},
		{"served", resOf("server/discover", `{"resultType":"complete"}`), Fail, "got a result"},
		{"silent", Exchange{Method: "server/discover", NoReply: "timeout"}, Warn, "within --timeout"},
	} {
		want(t, tc.name, JudgeUnsupportedVersion(tc.x), tc.outcome, tc.why)
	}
}

func TestJudgeDeterministic(t *testing.T) {
	caps := []byte(`{"tools":{}}`)
	ab := resOf("tools/list", `{"tools":[{"name":"a"},{"name":"b"}]}`)
	ba := resOf("tools/list", `{"tools":[{"name":"b"},{"name":"a"}]}`)
	abc := resOf("tools/list", `{"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}`)
	ab2 := resOf("tools/list", `{"tools":[{"name":"a"},{"name":"b","x":1}]}`)
	for _, tc := range []struct {
		name    string
		era     string
		caps    []byte
		first   Exchange
		later   []Exchange
		outcome string
		why     string
	}{
		{"same", Modern, caps, ab, []Exchange{ab, ab}, Pass, "byte-identical"},
		{"reordered", Modern, caps, ab, []Exchange{ab, ba}, Warn, "another order (start 2)"},
		{"reordered legacy", Legacy, caps, ab, []Exchange{ba}, Observed, "says nothing of the order"},
		{"another set", Modern, caps, ab, []Exchange{abc}, Observed, "another set of tools"},
		{"other bytes", Modern, caps, ab, []Exchange{ab2}, Observed, "same order, other bytes"},
		{"no tools", Modern, []byte(`{}`), ab, nil, NotApplicable, "does not declare"},
		{"no list", Modern, caps, rpcErr(-32601), nil, Inconclusive, "did not answer a list"},
		{"later no list", Modern, caps, ab, []Exchange{rpcErr(-32603)}, Inconclusive, "did not answer a list"},
	} {
		var later []Listing
		for i, x := range tc.later {
			later = append(later, Listing{What: "start " + string(rune('1'+i)), X: x})
		}
		v := JudgeDeterministic(tc.era, tc.caps, tc.first, later)
		want(t, tc.name, v, tc.outcome, tc.why)
	}
	v := JudgeDeterministic(Modern, caps, ab, []Listing{{What: "call 2", X: ba}})
	if !strings.Contains(v.Got, "differ from call 1 at byte 19:") {
		t.Errorf("got %q", v.Got)
	}
}

func TestFirstDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b   string
		at     int
		sa, sb string
	}{
		{"abc", "abc", -1, "", ""},
		{"abc", "abd", 2, `"abc"`, `"abd"`},
		{"ab", "abc", 2, `"ab"`, `"abc"`},
		{strings.Repeat("x", 50) + "1", strings.Repeat("x", 50) + "2", 50, `"` + strings.Repeat("x", 20) + `1"`, `"` + strings.Repeat("x", 20) + `2"`},
	} {
		at, sa, sb := probe.FirstDifference([]byte(tc.a), []byte(tc.b))
		if at != tc.at || sa != tc.sa || sb != tc.sb {
			t.Errorf("FirstDifference(%q, %q) = %d %s %s, want %d %s %s", tc.a, tc.b, at, sa, sb, tc.at, tc.sa, tc.sb)
		}
	}
}

func TestJudgeInputRequired(t *testing.T) {
	asks := `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{}}},"requestState":"s"}`
	done := resOf("tools/call", `{"resultType":"complete","content":[]}`)
	for _, tc := range []struct {
		name         string
		first, retry Exchange
		outcome, why string
	}{
		{"round trip", res(asks), done, Pass, "resultType \"complete\""},
		{"empty", res(`{"resultType":"input_required"}`), done, Fail, "neither inputRequests nor requestState"},
		{"state only", res(`{"resultType":"input_required","requestState":"s"}`), done, Pass, "0 input request"},
		{"other request", res(`{"resultType":"input_required","inputRequests":{"k":{"method":"ping"}}}`), done, Fail, "k (\"ping\")"},
		{"error on retry", res(asks), rpcErr(-32602), Warn, "SHOULD ask again"},
		{"asks again", res(asks), res(asks), Observed, "MAY"},
	} {
		want(t, tc.name, JudgeInputRequired("t", tc.first, tc.retry), tc.outcome, tc.why)
	}
}

func TestJudgeTampered(t *testing.T) {
	want(t, "no state", JudgeTampered("t", false, Exchange{}), NotApplicable, "no requestState")
	want(t, "rejected", JudgeTampered("t", true, rpcErr(-32602)), Pass, "rejected with error -32602")
	want(t, "asks again", JudgeTampered("t", true, res(`{"resultType":"input_required","requestState":"s"}`)), Pass, "did not complete")
	want(t, "isError", JudgeTampered("t", true, res(`{"resultType":"complete","isError":true,"content":[]}`)), Pass, "did not complete")
	want(t, "accepted", JudgeTampered("t", true, res(`{"resultType":"complete","content":[]}`)), Warn, "cannot see")
}

func TestTamper(t *testing.T) {
	for in, out := range map[string]string{"": "x", "abc": "aAc", "aAc": "aBc", "s1.00ff": "s1.A0ff"} {
		if got := tamper(in); got != out {
			t.Errorf("tamper(%q) = %q, want %q", in, got, out)
		}
	}
}

func TestJudgeTasks(t *testing.T) {
	caps := []byte(`{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	task := `"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null`
	created := res(`{"resultType":"task",` + task + `}`)
	completed := res(`{"resultType":"complete","taskId":"t1","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttlMs":1,"result":{}}`)
	refused := Exchange{Method: "tools/call", Err: &probe.RPCError{Code: -32021}}
	for _, tc := range []struct {
		name                  string
		caps                  []byte
		tool                  string
		created, unasked, get Exchange
		outcome, why          string
	}{
		{"good", caps, "j", created, refused, completed, Pass, "completed Task"},
		{"not declared", []byte(`{}`), "", Exchange{}, Exchange{}, Exchange{}, NotApplicable, "does not declare"},
		{"no task", caps, "", Exchange{}, Exchange{}, Exchange{}, NotApplicable, "no read-only tool"},
		{"unasked", caps, "j", created, created, completed, Fail, "did not declare the tasks extension"},
		{"thin task", caps, "j", res(`{"resultType":"task","taskId":"t1"}`), refused, completed, Warn, "lacks status"},
		{"get as task", caps, "j", created, refused, res(`{"resultType":"task","taskId":"t1"}`), Fail, `resultType "task"`},
		{"get no status", caps, "j", created, refused, res(`{"resultType":"complete","taskId":"t1"}`), Fail, "lacks status"},
		{"get no result", caps, "j", created, refused, res(`{"resultType":"complete","taskId":"t1","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttlMs":1}`), Fail, "carry its result"},
		{"get error", caps, "j", created, refused, rpcErr(-32602), Fail, "error -32602"},
	} {
		want(t, tc.name, JudgeTasks(tc.caps, tc.tool, tc.created, tc.unasked, tc.get), tc.outcome, tc.why)
	}
}

func TestJudgeListen(t *testing.T) {
	caps := []byte(`{"tools":{"listChanged":true}}`)
	ack := []byte(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"toolsListChanged":true}}}`)
	other := []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`)
	x := Exchange{Method: "subscriptions/listen"}
	want(t, "acked", JudgeListen(caps, 3, x, ack), Pass, "subscriptionId 3")
	want(t, "nothing to listen for", JudgeListen([]byte(`{"tools":{}}`), 3, x, nil), NotApplicable, "no listChanged")
	want(t, "another first", JudgeListen(caps, 3, x, other), Fail, "not notifications/subscriptions/acknowledged")
	want(t, "missing", JudgeListen(caps, 3, rpcErr(-32601), nil), Warn, "-32601")
	want(t, "answered at once", JudgeListen(caps, 3, res(`{"resultType":"complete"}`), nil), Fail, "without a notifications/subscriptions/acknowledged")
	want(t, "silent", JudgeListen(caps, 3, x, nil), Fail, "within --timeout")
}

func TestJudgeLogLevel(t *testing.T) {
	msg := func(level string) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"` + level + `","data":"x"}}`)
	}
	logging := []byte(`{"logging":{}}`)
	want(t, "none", JudgeLogLevel(logging, "warning", nil), Pass, "0 at or above warning")
	want(t, "not declared", JudgeLogLevel([]byte(`{}`), "", nil), NotApplicable, "does not declare logging")
	want(t, "unasked", JudgeLogLevel(logging, "warning", []Logged{{Raw: msg("debug")}}), Fail, "set no io.modelcontextprotocol/logLevel")
	want(t, "undeclared unasked", JudgeLogLevel([]byte(`{}`), "", []Logged{{Raw: msg("info")}}), Fail, "set no")
	want(t, "below", JudgeLogLevel(logging, "warning", []Logged{{Raw: msg("info"), Asked: "warning"}}), Observed, "info message")
	want(t, "at", JudgeLogLevel(logging, "warning", []Logged{{Raw: msg("error"), Asked: "warning"}}), Pass, "1 at or above")
}

// Every check of this file is in the registry with a clause per era it
// judges, and a reason for the era it does not.
func TestModernRegistry(t *testing.T) {
	for _, c := range modernRegistry() {
		got, ok := Lookup(c.ID)
		if !ok {
			t.Errorf("%s is not in the registry", c.ID)
			continue
		}
		for _, e := range Eras {
			if got.Judges(e) && got.Clauses[e] == nil {
				t.Errorf("%s judges %s without a clause", c.ID, e)
			}
			if !got.Judges(e) && got.NotIn[e] == "" {
				t.Errorf("%s: no reason it does not judge %s", c.ID, e)
			}
		}
	}
}
