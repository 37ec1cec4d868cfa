package check

import (
	"strings"
	"testing"
)

func TestJudgeCallResults(t *testing.T) {
	plain := []byte(`{"name":"look","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	schema := []byte(`{"name":"count","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"annotations":{"readOnlyHint":true}}`)
	for _, tc := range []struct {
		name             string
		called           []Called
		shape, structure string
		why              string // in the verdict that is not a pass
	}{
		{"text", []Called{{plain, res(`{"content":[{"type":"text","text":"hi"}]}`)}}, Pass, NotApplicable, "declares an outputSchema"},
		{"text block without text", []Called{{plain, res(`{"content":[{"type":"text"}]}`)}}, Warn, NotApplicable, "text block 0 has no `text`"},
		{"block without type", []Called{{plain, res(`{"content":[{"text":"x"}]}`)}}, Warn, NotApplicable, "has no `type`"},
		{"content not an array", []Called{{plain, res(`{"content":{}}`)}}, Warn, NotApplicable, "content"},
		{"image not base64", []Called{{plain, res(`{"content":[{"type":"image","data":"*not*","mimeType":"image/png"}]}`)}}, Warn, NotApplicable, "base64"},
		{"isError is a result too", []Called{{plain, res(`{"content":[{"type":"text","text":"no"}],"isError":true}`)}}, Pass, NotApplicable, ""},
		{"structured conforms", []Called{{schema, res(`{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`)}}, Pass, Pass, ""},
		{"structured violates", []Called{{schema, res(`{"content":[],"structuredContent":{"n":"one"}}`)}}, Pass, Fail, "tool count"},
		{"structured missing", []Called{{schema, res(`{"content":[{"type":"text","text":"1"}]}`)}}, Pass, Fail, "without structuredContent"},
		{"structured missing on isError is allowed", []Called{{schema, res(`{"content":[{"type":"text","text":"no"}],"isError":true}`)}}, Pass, Pass, ""},
		{"refused arguments", []Called{{plain, rpcErr(-32602)}}, Observed, NotApplicable, "error -32602"},
		{"input required is not judged here", []Called{{plain, res(`{"resultType":"input_required","inputRequests":{}}`)}}, Observed, NotApplicable, "resultType input_required"},
		{"server ended", []Called{{plain, Exchange{Method: "tools/call", NoReply: "closed"}}}, Fail, NotApplicable, "connection ended"},
		{"worst of several", []Called{{plain, res(`{"content":[{"type":"text","text":"ok"}]}`)}, {schema, res(`{"content":[{"type":"text"}],"structuredContent":{"n":2}}`)}}, Warn, Pass, "tool count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := JudgeCallResults(Legacy, "2025-11-25", tc.called)
			if len(vs) != 2 || vs[0].ID != IDCallResult || vs[1].ID != IDStructured {
				t.Fatalf("verdicts %+v", vs)
			}
			if vs[0].Outcome != tc.shape || vs[1].Outcome != tc.structure {
				t.Errorf("outcomes %s (%s), %s (%s); want %s, %s", vs[0].Outcome, vs[0].Why, vs[1].Outcome, vs[1].Why, tc.shape, tc.structure)
			}
			joined := vs[0].Why + " | " + vs[1].Why
			if !strings.Contains(joined, tc.why) {
				t.Errorf("why %q lacks %q", joined, tc.why)
			}
			for _, v := range vs {
				if (v.Outcome == Fail || v.Outcome == Pass || v.Outcome == Warn) && v.Clause == nil {
					t.Errorf("%s %s without a clause", v.ID, v.Outcome)
				}
				if v.Outcome == Fail && v.Clause.Keyword != "MUST" && v.Clause != mustReply {
					t.Errorf("%s fails on a clause without MUST: %+v", v.ID, v.Clause)
				}
			}
		})
	}
}

func TestJudgeReadAndPrompt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		judge   func(string, string, Exchange) Verdict
		x       Exchange
		outcome string
		why     string
	}{
		{"read text", JudgeRead, res(`{"contents":[{"uri":"file:///a","text":"x"}]}`), Pass, "1 entries"},
		{"read blob", JudgeRead, res(`{"contents":[{"uri":"file:///a","blob":"aGk="}]}`), Pass, "1 entries"},
		{"read blob not base64", JudgeRead, res(`{"contents":[{"uri":"file:///a","blob":"*?*"}]}`), Fail, "MUST be properly encoded"},
		{"prompt image not base64", JudgePrompt, res(`{"messages":[{"role":"user","content":{"type":"image","data":"*?*","mimeType":"image/png"}}]}`), Fail, "MUST be base64-encoded"},
		{"read neither", JudgeRead, res(`{"contents":[{"uri":"file:///a"}]}`), Warn, "neither `text` nor `blob`"},
		{"read no contents", JudgeRead, res(`{}`), Warn, "contents"},
		{"read refused", JudgeRead, rpcErr(-32002), Observed, "error -32002"},
		{"prompt", JudgePrompt, res(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`), Pass, "1 messages"},
		{"prompt role system", JudgePrompt, res(`{"messages":[{"role":"system","content":{"type":"text","text":"hi"}}]}`), Warn, `role "system"`},
		{"prompt no content", JudgePrompt, res(`{"messages":[{"role":"user"}]}`), Warn, "no content"},
		{"prompt refused", JudgePrompt, rpcErr(-32602), Observed, "error -32602"},
		{"prompt silent", JudgePrompt, Exchange{NoReply: "timeout"}, Warn, "within --timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.judge(Legacy, "2025-11-25", tc.x)
			if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) {
				t.Errorf("= %s %q, want %s containing %q", v.Outcome, v.Why, tc.outcome, tc.why)
			}
		})
	}
}

func TestJudgeMcpHeaders(t *testing.T) {
	tool := func(props string) []byte {
		return []byte(`{"name":"q","inputSchema":{"type":"object","properties":{` + props + `}}}`)
	}
	for _, tc := range []struct {
		name    string
		tools   [][]byte
		outcome string
		why     string
	}{
		{"none", [][]byte{tool(`"a":{"type":"string"}`)}, NotApplicable, "no tool"},
		{"good", [][]byte{tool(`"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}`)}, Pass, "2 x-mcp-header"},
		{"empty", [][]byte{tool(`"a":{"type":"string","x-mcp-header":""}`)}, Fail, "is empty"},
		{"space", [][]byte{tool(`"a":{"type":"string","x-mcp-header":"My Region"}`)}, Fail, "not a tchar"},
		{"control", [][]byte{tool(`"a":{"type":"string","x-mcp-header":"A\r\nB"}`)}, Fail, "control character"},
		{"number", [][]byte{tool(`"a":{"type":"number","x-mcp-header":"A"}`)}, Fail, "type number"},
		{"object", [][]byte{tool(`"a":{"type":"object","x-mcp-header":"A"}`)}, Fail, `"object"`},
		{"duplicate", [][]byte{tool(`"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}`)}, Fail, "used twice"},
		{"not a string", [][]byte{tool(`"a":{"type":"string","x-mcp-header":7}`)}, Fail, "not a string"},
		{"no type is not judged", [][]byte{tool(`"a":{"x-mcp-header":"A"}`)}, Pass, "1 x-mcp-header"},
		{"same header in two tools", [][]byte{tool(`"a":{"type":"string","x-mcp-header":"A"}`), tool(`"a":{"type":"string","x-mcp-header":"A"}`)}, Pass, "2 x-mcp-header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeMcpHeaders(tc.tools)
			if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) || v.Era != Modern {
				t.Errorf("= %s %q, want %s containing %q", v.Outcome, v.Why, tc.outcome, tc.why)
			}
			if v.Outcome == Fail && !strings.Contains(v.Why, "MUST exclude this tool") {
				t.Errorf("a fail should say what an HTTP client does with the tool: %q", v.Why)
			}
		})
	}
}
