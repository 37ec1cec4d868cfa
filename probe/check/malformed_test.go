package check

import (
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
)

// malformed's verdicts come in as they are, under their kind's id;
// baselines and cases never sent give none.
func TestFromMalformed(t *testing.T) {
	c := &malformed.Clause{Version: "2025-11-25", URL: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling", Keyword: "MUST"}
	r := &malformed.Result{Protocol: "2025-11-25", Cases: []malformed.Outcome{
		{Case: "baseline (valid call)", Tool: "t", Baseline: true, Channel: malformed.OK, Judgement: malformed.Judgement{Verdict: malformed.Pass}},
		{Case: "wrong type (limit)", Tool: "t", Channel: malformed.OK, Expected: malformed.Expectation{Clause: c},
			Judgement: malformed.Judgement{Verdict: malformed.Warn, Why: "accepted"}},
		{Case: "unknown method", Channel: malformed.RPCError, Code: -32601, RawCode: "-32601", Message: "nope",
			Judgement: malformed.Judgement{Verdict: malformed.Fail, Clause: c, Why: "broke it"}},
		{Case: "missing required (q)", Tool: "u", Channel: malformed.NotSent, Judgement: malformed.Judgement{Verdict: malformed.Inconclusive}},
	}}
	vs := FromMalformed(Legacy, r)
	if len(vs) != 2 {
		t.Fatalf("%d verdicts, want 2: %+v", len(vs), vs)
	}
	want := []struct{ id, outcome, sent, got string }{
		{"malformed.wrong-type", Warn, "wrong type (limit) · tool t", "ok"},
		{"malformed.unknown-method", Fail, "unknown method", `rpc_error -32601 ("nope")`},
	}
	for i, w := range want {
		v := vs[i]
		if v.ID != w.id || v.Outcome != w.outcome || v.Sent != w.sent || v.Got != w.got || v.Clause != c || v.Era != Legacy {
			t.Errorf("verdict %d = %+v, want %+v", i, v, w)
		}
	}
	for _, v := range vs {
		found := false
		for _, id := range MalformedChecks {
			found = found || id == v.ID
		}
		if !found {
			t.Errorf("%s is not in MalformedChecks", v.ID)
		}
	}
}

// Every case malformed can send has its id in MalformedChecks, so that a
// baseline file can name it and the list other tools read is whole.
func TestMalformedChecksCoverEveryCase(t *testing.T) {
	tool := []byte(`{"name":"t","inputSchema":{"type":"object","additionalProperties":false,"required":["n"],"properties":{` +
		`"n":{"type":"integer","minimum":0,"maximum":9},"e":{"type":"string","enum":["low"]}}}}`)
	var cases []malformed.Case
	for _, v := range []string{"2025-11-25", "2025-03-26", "2024-11-05"} {
		cases = append(cases, malformed.ToolCases(tool, []byte(`{"n":1}`), v, "")...)
		cases = append(cases, malformed.ProtocolCases(v, "", "t", false)...)
		cases = append(cases, malformed.ProtocolCases(v, "", "t", true)...)
	}
	cases = append(cases, malformed.ProtocolCases("2026-07-28", `{}`, "t", true)...)
	listed := map[string]bool{}
	for _, id := range MalformedChecks {
		listed[id] = true
	}
	for _, c := range cases {
		if !listed[MalformedID(c.Name)] {
			t.Errorf("case %q has id %s, which MalformedChecks lacks", c.Name, MalformedID(c.Name))
		}
	}
}
