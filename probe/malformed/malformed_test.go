package malformed

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// answer is an answer to a case as play records it, before judging.
func answer(c Case, channel string, code int64, msg string) Outcome {
	o := Outcome{Case: c.Name, Tool: c.Tool, Baseline: c.Baseline, Channel: channel, Code: code, Message: msg,
		Expected: c.Expect, closedSchema: c.ClosedSchema}
	if channel == RPCError {
		o.RawCode = strconv.FormatInt(code, 10)
	}
	return o
}

var (
	echoTool = []byte(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}}`)
	zodTool  = []byte(`{"name":"find","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}}`)
)

// byName finds a case of a tool ("" for protocol cases).
func byName(t *testing.T, cases []Case, tool, name string) Case {
	t.Helper()
	for _, c := range cases {
		if c.Tool == tool && c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %q of %q", name, tool)
	return Case{}
}

func TestJudgeAllAndFindings(t *testing.T) {
	const v = "2025-11-25"
	cases := append([]Case{BaselineCase("echo", BaselineArgs(echoTool), "")}, ToolCases(echoTool, BaselineArgs(echoTool), v, "")...)
	cases = append(cases, ProtocolCases(v, "", "echo", false)...)
	outs := judgeAll([]Outcome{
		answer(cases[0], OK, 0, ""),
		answer(byName(t, cases, "echo", "wrong type (text)"), IsError, 0, "text must be a string"),
		answer(byName(t, cases, "echo", "missing required (text)"), RPCError, -32602, "missing text"),
		answer(byName(t, cases, "echo", "arguments: null"), Crashed, 0, "the health check after it failed: no_answer"),
		answer(byName(t, cases, "", "unknown method"), OK, 0, ""),
		answer(byName(t, cases, "", "second initialize"), OK, 0, ""),
		answer(byName(t, cases, "", "unknown tool"), RPCError, 0, "no such tool"),
		answer(byName(t, cases, "", "bad cursor"), NoAnswer, 0, ""),
	}, v)
	want := []struct {
		verdict string
		sev     findings.Severity
	}{
		{Pass, ""}, {Pass, ""}, {Warn, findings.Warning}, {Fail, findings.Error}, {Fail, findings.Error},
		{Observed, ""}, {Observed, findings.Info}, {Warn, findings.Warning},
	}
	for i, w := range want {
		if outs[i].Verdict != w.verdict || outs[i].Severity != w.sev {
			t.Errorf("%s: %s %s, want %s %s (%s)", outs[i].Case, outs[i].Verdict, outs[i].Severity, w.verdict, w.sev, outs[i].Why)
		}
	}
	r := Result{Protocol: v, Cases: outs}
	fs := r.Findings()
	wantF := []struct {
		code     findings.Code
		severity findings.Severity
		tool     string
		msg      string
	}{
		{findings.MalformedChannel, findings.Warning, "echo", `"missing required (text)" answered rpc_error -32602 ("missing text"); 2025-11-25 asks is_error: a protocol error never reaches the model`},
		{findings.MalformedCrash, findings.Error, "echo", `"arguments: null" answered crashed`},
		{findings.MalformedChannel, findings.Error, "", `"unknown method" answered ok; 2025-11-25 asks rpc_error -32601: a result for a method that does not exist`},
		{findings.MalformedChannel, findings.Info, "", `"unknown tool" answered rpc_error 0 ("no such tool")`},
		{findings.MalformedUnanswered, findings.Warning, "", `"bad cursor" answered no_answer`},
		{findings.NonstandardErrorCode, findings.Info, "", `the answer to "unknown tool" ("no such tool") has code 0: allowed`},
	}
	if len(fs) != len(wantF) {
		t.Fatalf("%d findings, want %d: %+v", len(fs), len(wantF), fs)
	}
	for i, w := range wantF {
		f := fs[i]
		if f.Code != w.code || f.Severity != w.severity || f.Tool != w.tool || !strings.HasPrefix(f.Message, w.msg) {
			t.Errorf("finding %d = %+v\nwant %s %s %q %q…", i, f, w.code, w.severity, w.tool, w.msg)
		}
	}
	if !strings.Contains(fs[2].Message, "JSON-RPC 2.0 MUST (https://www.jsonrpc.org/specification#response_object)") {
		t.Errorf("the ✗ does not cite its clause: %s", fs[2].Message)
	}
	if got := r.Verdicts(); got[Pass] != 1 || got[Fail] != 2 || got[Warn] != 2 || got[Observed] != 2 {
		t.Errorf("Verdicts = %v (the baseline is not a case)", got)
	}
}

// A tool whose valid call fails cannot be judged: its cases are
// inconclusive, carrying the baseline's answer, and when no tool works,
// so is the unknown tool. Protocol cases are judged as usual.
func TestBaselineFailed(t *testing.T) {
	const v = "2025-06-18"
	cases := append([]Case{BaselineCase("echo", BaselineArgs(echoTool), "")}, ToolCases(echoTool, BaselineArgs(echoTool), v, "")...)
	cases = append(cases, ProtocolCases(v, "", "echo", false)...)
	var outs []Outcome
	for _, c := range cases {
		switch {
		case c.Tool != "" || c.Name == "unknown tool":
			outs = append(outs, answer(c, IsError, 0, "network unreachable"))
		case c.Name == "unknown method":
			outs = append(outs, answer(c, OK, 0, ""))
		default:
			outs = append(outs, answer(c, NoAnswer, 0, ""))
		}
	}
	r := Result{Protocol: v, Cases: judgeAll(outs, v)}
	for _, c := range r.Cases {
		switch {
		case c.Tool != "" || c.Case == "unknown tool":
			if c.Verdict != Inconclusive || c.Severity != "" {
				t.Errorf("%s · %s: %s %s, want inconclusive", c.Case, c.Tool, c.Verdict, c.Severity)
			}
			if !c.Baseline && !strings.Contains(c.Why, "network unreachable") && c.Case != "unknown tool" {
				t.Errorf("%s: the reason lacks the baseline's message: %s", c.Case, c.Why)
			}
		case c.Case == "unknown method":
			if c.Verdict != Fail {
				t.Errorf("unknown method answered ok: %s; a protocol case needs no tool", c.Verdict)
			}
		}
	}
	un := r.Unjudged()
	if len(un) != 1 || un[0].Tool != "echo" || un[0].Answer != IsError || un[0].Message != "network unreachable" || un[0].Cases != 6 {
		t.Errorf("Unjudged = %+v", un)
	}
	var inconclusive, errors int
	for _, f := range r.Findings() {
		switch {
		case f.Code == findings.MalformedInconclusive:
			inconclusive++
			if f.Tool != "echo" || !strings.Contains(f.Message, `answered is_error ("network unreachable"), so its 6 case(s) were not judged`) {
				t.Errorf("inconclusive finding = %+v", f)
			}
		case f.Tool != "":
			t.Errorf("a finding on a tool that could not be judged: %+v", f)
		case f.Severity == findings.Error:
			errors++
		}
	}
	if inconclusive != 1 || errors != 1 {
		t.Errorf("%d inconclusive findings, %d errors; want 1 and 1 (unknown method)", inconclusive, errors)
	}
	if !strings.Contains(r.Summary(), "7 inconclusive") {
		t.Errorf("Summary = %s", r.Summary())
	}
}

// An error code that breaks a MUST of its own fails the case, whatever
// the case asks.
func TestCodeOverridesVerdict(t *testing.T) {
	for _, tc := range []struct {
		version, raw, verdict, url string
	}{
		{"2025-11-25", `"E42"`, Fail, "/2025-11-25/basic/index#error-responses"},
		{"2025-06-18", `1.5`, Fail, "/2025-06-18/basic/index#responses"},
		{"2026-07-28", `-32042`, Fail, "/2026-07-28/basic/index#error-codes"},
		{"2025-11-25", `-32042`, Warn, ""}, // the code is defined; only the case's own expectation speaks
		{"2025-11-25", `0`, Warn, ""},
	} {
		c := byName(t, ProtocolCases(tc.version, "", "", false), "", "unknown method")
		o := Outcome{Case: c.Name, Channel: RPCError, RawCode: tc.raw, Expected: c.Expect}
		j := judgeAll([]Outcome{o}, tc.version)[0]
		if j.Verdict != tc.verdict || (tc.url != "" && !strings.HasSuffix(j.Clause.URL, tc.url)) {
			t.Errorf("%s %s: %s %+v", tc.version, tc.raw, j.Verdict, j.Clause)
		}
		if j.Verdict == Fail && !strings.HasPrefix(j.Clause.Keyword, "MUST") {
			t.Errorf("%s %s: a ✗ without a MUST: %+v", tc.version, tc.raw, j.Clause)
		}
	}
}

// SDK behaviour is named where the answer's or the schema's shape gives
// it away, and nowhere else.
func TestExplainSDK(t *testing.T) {
	const v = "2025-11-25"
	proto := ProtocolCases(v, "", "", false)
	zod := ToolCases(zodTool, BaselineArgs(zodTool), v, "")
	plain := ToolCases(echoTool, BaselineArgs(echoTool), v, "")
	tests := []struct {
		name string
		o    Outcome
		want string
	}{
		{"TS SDK 1.x unknown tool", answer(byName(t, proto, "", "unknown tool"), IsError, 0, "MCP error -32602: Tool mcpprobe_no_such_tool not found"), "TypeScript SDK 1.x"},
		{"another server's isError", answer(byName(t, proto, "", "unknown tool"), IsError, 0, "no such tool"), ""},
		{"zod strips", answer(byName(t, zod, "find", "unknown property"), OK, 0, ""), "zod"},
		{"a closed schema not from zod", answer(byName(t, plain, "echo", "unknown property"), OK, 0, ""), ""},
		{"zod, rejected", answer(byName(t, zod, "find", "unknown property"), IsError, 0, "unrecognized key"), ""},
	}
	for _, tc := range tests {
		outs := []Outcome{tc.o}
		explainSDK(outs, [][]byte{zodTool, echoTool})
		if (tc.want == "") != (outs[0].SDK == "") || !strings.Contains(outs[0].SDK, tc.want) {
			t.Errorf("%s: SDK note %q, want %q", tc.name, outs[0].SDK, tc.want)
		}
	}
}

func TestSelectTools(t *testing.T) {
	tools := [][]byte{
		[]byte(`{"name":"read","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}`),
		[]byte(`{"name":"write","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}}}`),
	}
	tests := []struct {
		name    string
		named   []string
		want    string
		missing string
	}{
		{"the read-only tools by default", nil, "read", ""},
		{"a named tool, read-only or not", []string{"write"}, "write", ""},
		{"a tool the server lacks", []string{"read", "nope"}, "", "nope"},
	}
	for _, tc := range tests {
		got, err := selectTools(tools, tc.named)
		if tc.missing != "" {
			var oe *probe.OptionError
			if !errors.As(err, &oe) || !strings.Contains(oe.Msg, `"`+tc.missing+`"`) {
				t.Errorf("%s: %v, want an OptionError naming %q", tc.name, err, tc.missing)
			}
			continue
		}
		if err != nil || len(got) != 1 || !strings.Contains(string(got[0]), `"name":"`+tc.want+`"`) {
			t.Errorf("%s: %s, %v", tc.name, got, err)
		}
	}
}

// The big and deep arguments go to the first tool whose baseline worked.
func TestPlanBigTool(t *testing.T) {
	other := []byte(`{"name":"other","inputSchema":{"type":"object"}}`)
	tools := [][]byte{echoTool, other}
	args := map[string][]byte{"echo": BaselineArgs(echoTool), "other": []byte(`{}`)}
	bigTool := func(base []Outcome) string {
		for _, c := range plan(tools, args, base, "2025-11-25", "", OverStdio) {
			if c.Name == "1 MB string" {
				return c.Tool
			}
		}
		return ""
	}
	if got := bigTool([]Outcome{{Tool: "echo", Channel: IsError}, {Tool: "other", Channel: OK}}); got != "other" {
		t.Errorf("big tool = %q, want other (echo's baseline failed)", got)
	}
	if got := bigTool([]Outcome{{Tool: "echo", Channel: IsError}, {Tool: "other", Channel: RPCError}}); got != "echo" {
		t.Errorf("big tool = %q, want echo (none worked: the first, inconclusive)", got)
	}
}
