package malformed

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
)

func TestResultFindings(t *testing.T) {
	isErr := Expectation{Channel: IsError, Why: "2025-11-25: input validation errors are tool execution errors"}
	parse := Expectation{Channel: RPCError, Code: -32700, Why: "JSON-RPC 2.0: a parse error is -32700"}
	r := Result{Protocol: "2025-11-25", Cases: []Outcome{
		{Case: "wrong type (q)", Tool: "t", Channel: IsError, Expected: isErr, OK: true},
		{Case: "wrong type (n)", Tool: "t", Channel: RPCError, Code: -32602, Expected: isErr},
		{Case: "invalid JSON", Channel: Crashed, Message: "the health check after it failed: no_answer", Expected: parse},
		{Case: "missing method", Channel: NoAnswer, Expected: Expectation{Channel: RPCError, Code: -32600, Why: "an invalid request is -32600"}},
		{Case: "batch", Channel: OK, Expected: Expectation{Channel: RPCError, Why: "batching was removed in 2025-06-18"}},
	}}
	want := []struct {
		code     findings.Code
		severity findings.Severity
		tool     string
		msg      string
	}{
		{findings.MalformedChannel, findings.Warning, "t", `"wrong type (n)" answered rpc_error -32602; 2025-11-25 asks is_error: 2025-11-25: input validation`},
		{findings.MalformedCrash, findings.Error, "", `"invalid JSON" ended the server or its session (the health check after it failed: no_answer); 2025-11-25 asks rpc_error -32700`},
		{findings.MalformedUnanswered, findings.Warning, "", `"missing method" got no answer; 2025-11-25 asks rpc_error -32600`},
		{findings.MalformedChannel, findings.Warning, "", `"batch" answered ok; 2025-11-25 asks rpc_error: batching was removed`},
	}
	fs := r.Findings()
	if len(fs) != len(want) {
		t.Fatalf("%d findings, want %d (one per case not met): %+v", len(fs), len(want), fs)
	}
	for i, w := range want {
		f := fs[i]
		if f.Code != w.code || f.Severity != w.severity || f.Tool != w.tool || !strings.HasPrefix(f.Message, w.msg) {
			t.Errorf("finding %d = %+v\nwant %s %s %q %q…", i, f, w.code, w.severity, w.tool, w.msg)
		}
	}
	if r.Met() != 1 {
		t.Errorf("Met = %d, want 1", r.Met())
	}
}

func TestPlan(t *testing.T) {
	tools := [][]byte{
		[]byte(`{"name":"read","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}`),
		[]byte(`{"name":"write","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}}}`),
	}
	toolsOf := func(cs []Case) map[string]int {
		m := map[string]int{}
		for _, c := range cs {
			m[c.Tool]++
		}
		return m
	}
	tests := []struct {
		name    string
		named   []string
		tools   []string // tools that get cases; "" is the protocol cases
		missing string
	}{
		{"the read-only tools by default", nil, []string{"read", ""}, ""},
		{"a named tool, read-only or not", []string{"write"}, []string{"write", ""}, ""},
		{"a tool the server lacks", []string{"read", "nope"}, nil, "nope"},
	}
	for _, tc := range tests {
		cases, err := plan(tools, tc.named, "2025-11-25", "")
		if tc.missing != "" {
			var oe *probe.OptionError
			if !errors.As(err, &oe) || !strings.Contains(oe.Msg, `"`+tc.missing+`"`) {
				t.Errorf("%s: %v, want an OptionError naming %q", tc.name, err, tc.missing)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := toolsOf(cases)
		for _, tool := range tc.tools {
			if got[tool] == 0 {
				t.Errorf("%s: no cases for %q: %v", tc.name, tool, got)
			}
			delete(got, tool)
		}
		if len(got) > 0 {
			t.Errorf("%s: cases for tools not asked: %v", tc.name, got)
		}
	}
}
