package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

func malformedResult() *malformed.Result {
	must := &malformed.Clause{Version: "JSON-RPC 2.0", URL: "https://www.jsonrpc.org/specification#response_object", Keyword: "MUST", Binds: "server", Text: "t"}
	client := &malformed.Clause{Version: "2025-11-25", URL: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio", Keyword: "MUST NOT", Binds: "client", Text: "t"}
	open := &malformed.Clause{Version: "2025-11-25", URL: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling", Binds: "server", Text: "t"}
	j := func(verdict string, sev findings.Severity, c *malformed.Clause, why string) malformed.Judgement {
		return malformed.Judgement{Verdict: verdict, Severity: sev, Clause: c, Why: why}
	}
	return &malformed.Result{Protocol: "2025-11-25", Cases: []malformed.Outcome{
		{Case: "baseline (valid call)", Tool: "t", Baseline: true, Channel: malformed.OK, Expected: malformed.Expectation{Channel: "ok"}, Judgement: j(malformed.Pass, "", nil, "w")},
		{Case: "baseline (valid call)", Tool: "net", Baseline: true, Args: []byte(`{"host":"example.com"}`), Channel: malformed.IsError, Message: "network \x1b[31munreachable",
			Expected: malformed.Expectation{Channel: "ok"}, Judgement: j(malformed.Inconclusive, "", nil, "the valid call failed")},
		{Case: "wrong type (q)", Tool: "net", Channel: malformed.IsError, Message: "network \x1b[31munreachable",
			Expected: malformed.Expectation{Channel: "is_error"}, Judgement: j(malformed.Inconclusive, "", open, "the baseline failed")},
		{Case: "unknown method", Channel: malformed.OK, Expected: malformed.Expectation{Channel: "rpc_error", Code: -32601},
			Judgement: j(malformed.Fail, findings.Error, must, "the reply MUST carry an error")},
		{Case: "unknown tool", Channel: malformed.IsError, Message: `MCP error -32602: Tool "x" not found`, Expected: malformed.Expectation{Channel: "rpc_error", Code: -32602},
			Judgement: j(malformed.Warn, findings.Warning, open, "should be a protocol error"), SDK: "TypeScript SDK 1.x behaviour"},
		{Case: "invalid JSON", Channel: malformed.NoAnswer, Expected: malformed.Expectation{Channel: "observed"}, Judgement: j(malformed.Observed, "", client, "open")},
		{Case: "odd code", Channel: malformed.RPCError, RawCode: `"E42"`, Expected: malformed.Expectation{Channel: "rpc_error"}, Judgement: j(malformed.Fail, findings.Error, must, "not an integer")},
	}}
}

func TestMalformedText(t *testing.T) {
	r := malformedResult()
	for _, st := range []terminal.Style{terminal.Terminal, terminal.Markdown} {
		var b bytes.Buffer
		Malformed(&b, st, r)
		out := b.String()
		for _, w := range []string{
			"malformed calls · protocol 2025-11-25",
			"✗ fail · MUST", "⚠ warn · no keyword", "· observed · client MUST NOT", "? inconclusive", "✓ pass",
			`rpc_error "E42"`,
			"5 cases: 0 pass, 2 fail, 1 warn, 1 observed, 1 inconclusive.",
			`1 of 2 tools could not be judged, their valid call failed: net (is_error "network \x1b[31munreachable")`,
			// every ✗ and inconclusive row shows its message, escaped
			"✗ unknown method: ok (no message)\n",
			"JSON-RPC 2.0 MUST https://www.jsonrpc.org/specification#response_object: the reply MUST carry an error",
			`? net: its valid call {"host":"example.com"} answered is_error "network \x1b[31munreachable", so its 1 case(s) are inconclusive: wrong type (q); each answered the same`,
			`⚠ unknown tool: is_error "MCP error -32602: Tool \"x\" not found"`,
			"    TypeScript SDK 1.x behaviour",
		} {
			if st == terminal.Markdown {
				// Markdown shows the same text, an ANSI sequence's "["
				// escaped so that it makes no link.
				w = strings.ReplaceAll(w, `\x1b[`, `\x1b\[`)
			}
			if !strings.Contains(out, w) {
				t.Errorf("style %v lacks %q in:\n%s", st, w, out)
			}
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("style %v prints a server's ESC raw", st)
		}
		if strings.Contains(out, "invalid JSON: ") {
			t.Errorf("an observation the text says nothing of has a note:\n%s", out)
		}
		if st == terminal.Terminal && !strings.Contains(out, "\n✗ unknown method: ok (no message)\n    JSON-RPC 2.0 MUST") {
			t.Errorf("terminal notes lose their clause line:\n%s", out)
		}
		if st == terminal.Markdown && !strings.Contains(out, "\n- ✗ unknown method: ok (no message)\n      JSON-RPC 2.0 MUST") {
			t.Errorf("markdown notes are not a list:\n%s", out)
		}
	}
}

// The section validates against the schema, and the schema is tight
// enough to reject a section that lost or retyped a key.
func TestMalformedSectionValidates(t *testing.T) {
	sec := MalformedJSON(malformedResult())
	tests := []struct {
		name    string
		section []byte
		ok      bool
	}{
		{"malformed", sec, true},
		{"no cases", MalformedJSON(&malformed.Result{}), true},
		{"an unknown verdict", bytes.Replace(sec, []byte(`"verdict":"fail"`), []byte(`"verdict":"bad"`), 1), false},
		{"an unknown channel", bytes.Replace(sec, []byte(`"channel":"ok"`), []byte(`"channel":"fine"`), 1), false},
		{"a lower-case keyword", bytes.Replace(sec, []byte(`"keyword":"MUST"`), []byte(`"keyword":"must"`), 1), false},
		{"a clause without its url", bytes.Replace(sec, []byte(`"url":"https://www.jsonrpc.org/specification#response_object",`), nil, 1), false},
		{"a case without severity", bytes.Replace(sec, []byte(`"severity":"error",`), nil, 1), false},
		{"counts without inconclusive", bytes.Replace(sec, []byte(`,"inconclusive":1`), nil, 1), false},
		{"a key the schema does not know", bytes.Replace(sec, []byte(`"baseline":true`), []byte(`"baseline":true,"ok":true`), 1), false},
		{"args that are no object", bytes.Replace(sec, []byte(`"args":{"host":"example.com"}`), []byte(`"args":"host"`), 1), false},
	}
	for _, tc := range tests {
		if tc.ok == false && bytes.Equal(tc.section, sec) {
			t.Errorf("%s: the replacement did not apply", tc.name)
		}
		out := jsonout.Envelope{Version: "test", Command: "malformed", Target: "./a"}.JSON(tc.section)
		if err := jsonout.ValidateResult(out); (err == nil) != tc.ok {
			t.Errorf("%s: ValidateResult = %v, want ok=%v\n%s", tc.name, err, tc.ok, out)
		}
	}
	for _, w := range []string{`"code":null,"code_as_sent":"\"E42\""`, `"unjudged":[{"tool":"net","args":{"host":"example.com"},"answer":"is_error","message":"network \u001b[31munreachable","cases":1}]`,
		`"clause":{"version":"JSON-RPC 2.0","url":"https://www.jsonrpc.org/specification#response_object","keyword":"MUST","binds":"server","text":"t"}`} {
		if !bytes.Contains(sec, []byte(w)) {
			t.Errorf("section lacks %s:\n%s", w, sec)
		}
	}
}
