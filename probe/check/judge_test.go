package check

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

func res(result string) Exchange {
	return Exchange{Method: "m", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`), Result: []byte(result)}
}

func rpcErr(code int64) Exchange {
	return Exchange{Method: "m", Err: &probe.RPCError{Code: code, Message: "Method not found"}}
}

func TestJudgePing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		x       Exchange
		outcome string
		why     string
	}{
		{"empty", res(`{}`), Pass, "empty result"},
		{"only _meta", res(`{"_meta":{"k":1}}`), Pass, "empty result"},
		{"pong", res(`{"pong":true}`), Fail, "has pong"},
		{"not an object", res(`[]`), Fail, "not an object"},
		{"method not found", rpcErr(-32601), Fail, "error -32601"},
		{"slow", Exchange{Method: "ping", NoReply: "timeout"}, Warn, "within --timeout"},
		{"ended", Exchange{Method: "ping", NoReply: "closed"}, Fail, "connection ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgePing(tc.x)
			if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) || v.ID != IDPing || v.Era != Legacy {
				t.Errorf("JudgePing = %s %q (%s %s), want %s containing %q", v.Outcome, v.Why, v.ID, v.Era, tc.outcome, tc.why)
			}
			if (v.Outcome == Pass || v.Outcome == Fail) && v.Clause == nil {
				t.Errorf("a %s without a clause", v.Outcome)
			}
		})
	}
}

func TestJudgeList(t *testing.T) {
	caps := []byte(`{"tools":{},"prompts":null,"resources":false}`)
	for _, tc := range []struct {
		name    string
		l       list
		x       Exchange
		outcome string
		why     string
	}{
		{"served", toolsList, res(`{"tools":[{"name":"a"}]}`), Pass, "1 tools"},
		{"not declared (null)", promptsList, rpcErr(-32601), NotApplicable, "does not declare the prompts"},
		{"not declared (false)", resourcesList, rpcErr(-32601), NotApplicable, "does not declare the resources"},
		{"declared, -32601", toolsList, rpcErr(-32601), Warn, "-32601 (method not found)"},
		{"declared, other error", toolsList, rpcErr(-32603), Warn, "error -32603"},
		{"no array", toolsList, res(`{"tools":{}}`), Warn, "no tools array"},
		{"no reply", toolsList, Exchange{NoReply: "timeout"}, Warn, "no reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeList(Legacy, tc.l, caps, tc.x)
			if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) {
				t.Errorf("JudgeList = %s %q, want %s containing %q", v.Outcome, v.Why, tc.outcome, tc.why)
			}
		})
	}
}

func TestJudgeInputSchemas(t *testing.T) {
	caps := []byte(`{"tools":{}}`)
	tool := func(s string) []byte { return []byte(`{"name":"t","inputSchema":` + s + `}`) }
	for _, tc := range []struct {
		name    string
		caps    []byte
		listed  bool
		tools   [][]byte
		outcome string
	}{
		{"object", caps, true, [][]byte{tool(`{"type":"object"}`)}, Pass},
		{"null", caps, true, [][]byte{tool(`{"type":"object"}`), tool(`null`)}, Fail},
		{"absent", caps, true, [][]byte{[]byte(`{"name":"t"}`)}, Fail},
		{"a string", caps, true, [][]byte{tool(`"object"`)}, Fail},
		{"no type", caps, true, [][]byte{tool(`{}`)}, Warn},
		{"type array", caps, true, [][]byte{tool(`{"type":["object"]}`)}, Warn},
		{"no tools", caps, true, nil, NotApplicable},
		{"list failed", caps, false, nil, Inconclusive},
		{"not declared", []byte(`{}`), true, nil, NotApplicable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, era := range Eras {
				if v := JudgeInputSchemas(era, tc.caps, tc.listed, tc.tools); v.Outcome != tc.outcome {
					t.Errorf("%s: %s %q, want %s", era, v.Outcome, v.Why, tc.outcome)
				}
			}
		})
	}
}

func TestJudgeDeclaredMethods(t *testing.T) {
	all := []byte(`{"logging":{},"completions":{},"resources":{"subscribe":true}}`)
	none := []byte(`{"resources":{}}`)
	for _, tc := range []struct {
		name    string
		v       Verdict
		outcome string
	}{
		{"setLevel served", JudgeSetLevel(all, res(`{}`)), Pass},
		{"setLevel -32601", JudgeSetLevel(all, rpcErr(-32601)), Warn},
		{"setLevel undeclared", JudgeSetLevel(none, rpcErr(-32601)), NotApplicable},
		{"complete served", JudgeComplete(Legacy, all, "prompt p, argument a", res(`{"completion":{"values":[]}}`)), Pass},
		{"complete -32601", JudgeComplete(Modern, all, "prompt p, argument a", rpcErr(-32601)), Warn},
		{"complete -32602", JudgeComplete(Legacy, all, "prompt p, argument a", rpcErr(-32602)), Observed},
		{"complete no values", JudgeComplete(Legacy, all, "prompt p, argument a", res(`{"completion":{}}`)), Warn},
		{"complete nothing to refer to", JudgeComplete(Legacy, all, "", Exchange{}), NotApplicable},
		{"complete undeclared", JudgeComplete(Legacy, none, "x", rpcErr(-32601)), NotApplicable},
		{"subscribe served", JudgeSubscribe(IDSubscribe, all, "file:///a", res(`{}`)), Pass},
		{"subscribe -32601", JudgeSubscribe(IDSubscribe, all, "file:///a", rpcErr(-32601)), Warn},
		{"subscribe nothing listed", JudgeSubscribe(IDSubscribe, all, "", Exchange{}), NotApplicable},
		{"subscribe undeclared", JudgeSubscribe(IDUnsubscribe, none, "file:///a", rpcErr(-32601)), NotApplicable},
	} {
		if tc.v.Outcome != tc.outcome {
			t.Errorf("%s: %s %q, want %s", tc.name, tc.v.Outcome, tc.v.Why, tc.outcome)
		}
		if tc.v.Outcome == NotApplicable && tc.v.Why == "" {
			t.Errorf("%s: not applicable without why", tc.name)
		}
	}
}

func TestJudgeInitialize(t *testing.T) {
	good := `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`
	for _, tc := range []struct {
		name          string
		result        string
		shape, negoti string
	}{
		{"good", good, Pass, Pass},
		{"older version", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, Pass, Observed},
		{"unknown version", `{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, Pass, Observed},
		{"no version", `{"capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, Pass, Fail},
		{"numeric version", `{"protocolVersion":20251125,"capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, Pass, Fail},
		{"no capabilities", `{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}`, Fail, Pass},
		{"no serverInfo", `{"protocolVersion":"2025-11-25","capabilities":{}}`, Fail, Pass},
		{"serverInfo without version", `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s"}}`, Warn, Pass},
	} {
		vs := JudgeInitialize("2025-11-25", res(tc.result))
		if vs[0].Outcome != tc.shape || vs[1].Outcome != tc.negoti {
			t.Errorf("%s: shape %s (%s), negotiation %s (%s); want %s, %s", tc.name, vs[0].Outcome, vs[0].Why, vs[1].Outcome, vs[1].Why, tc.shape, tc.negoti)
		}
	}
}

func TestJudgeDiscover(t *testing.T) {
	for _, tc := range []struct {
		name        string
		result      string
		shape, info string
	}{
		{"good", `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`, Pass, Pass},
		{"no serverInfo", `{"supportedVersions":["2026-07-28"],"capabilities":{}}`, Pass, Warn},
		{"empty versions", `{"supportedVersions":[],"capabilities":{}}`, Warn, Warn},
		{"versions not strings", `{"supportedVersions":[1],"capabilities":{}}`, Warn, Warn},
		{"no capabilities", `{"supportedVersions":["2026-07-28"]}`, Warn, Warn},
	} {
		vs := JudgeDiscover(res(tc.result))
		if vs[0].Outcome != tc.shape || vs[1].Outcome != tc.info {
			t.Errorf("%s: %s (%s), %s (%s); want %s, %s", tc.name, vs[0].Outcome, vs[0].Why, vs[1].Outcome, vs[1].Why, tc.shape, tc.info)
		}
	}
}

func TestJudgeResultTypes(t *testing.T) {
	withType, without := res(`{"resultType":"complete"}`), res(`{"tools":[]}`)
	without.Method = "tools/list"
	for _, tc := range []struct {
		name    string
		xs      []Exchange
		outcome string
	}{
		{"all typed", []Exchange{withType, withType, rpcErr(-32601)}, Pass},
		{"one without", []Exchange{withType, without}, Fail},
		{"numeric type", []Exchange{res(`{"resultType":1}`)}, Fail},
		{"no result at all", []Exchange{rpcErr(-32601)}, Inconclusive},
	} {
		v := JudgeResultTypes(tc.xs)
		if v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
	}
	if v := JudgeResultTypes([]Exchange{withType, without}); !strings.Contains(v.Why, "tools/list") || !strings.Contains(v.Got, `"tools":[]`) {
		t.Errorf("a fail names the method and what came back: %q, got %q", v.Why, v.Got)
	}
}

func TestTemplateVar(t *testing.T) {
	for in, want := range map[string]string{
		"file:///{path}": "path", "repo://{+owner}/x": "owner", "a://{x,y}": "x", "a://{n:3}": "n",
		"a://{list*}": "list", "a://plain": "", "a://{": "", "a://{bad var}": "",
	} {
		if got := templateVar(in); got != want {
			t.Errorf("templateVar(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMalformedID(t *testing.T) {
	for in, want := range map[string]string{
		"wrong type (limit)": "malformed.wrong-type", "arguments: null": "malformed.arguments-null",
		"1 MB string": "malformed.1-mb-string", "100-deep nesting": "malformed.100-deep-nesting",
		"request before initialize": "malformed.request-before-initialize",
	} {
		if got := MalformedID(in); got != want {
			t.Errorf("MalformedID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBound(t *testing.T) {
	s := strings.Repeat("é", 400)
	b := bound(s)
	if len(b) > maxShown+30 || !strings.HasSuffix(b, "(800 bytes)") {
		t.Errorf("bound: %d bytes, ends %q", len(b), b[len(b)-20:])
	}
	if bound("short") != "short" {
		t.Error("bound cut a short string")
	}
}
