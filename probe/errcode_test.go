package probe

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// Each row is a code a server sent and what the negotiated version makes
// of it; the severities are the text's and no stricter.
func TestJudgeErrorCode(t *testing.T) {
	const legacy, modern = "2025-11-25", "2026-07-28"
	tests := []struct {
		raw, version string
		sev          findings.Severity
		keyword      string
		inWhy        string
	}{
		{"-32601", legacy, "", "", ""},
		{"-32700", modern, "", "", ""},
		{"-32002", legacy, "", "", ""}, // resource not found, MCP-defined
		{"-32042", legacy, "", "", ""}, // URL elicitation required
		{"-32000", legacy, "", "", ""}, // JSON-RPC server errors are free
		{"-32099", "2024-11-05", "", "", ""},
		{"0", legacy, findings.Info, "", "application defined"},
		{"0", modern, findings.Info, "", "cannot classify"},
		{"1", legacy, findings.Info, "", "application defined"},
		{"-1", legacy, findings.Info, "", "application defined"},
		{"-31999", legacy, findings.Info, "", "application defined"},
		{"-40000", legacy, findings.Info, "", "application defined"},
		{"123456789012345678901234567890", legacy, findings.Info, "", "application defined"},
		{"-32100", legacy, findings.Warning, "", "reserved for future use"},
		{"-32604", legacy, findings.Warning, "", "reserved for future use"},
		{"-32768", modern, findings.Warning, "", "reserved for future use"},
		{"-32601.0", legacy, "", "", ""}, // an integer, as JSON Schema reads one
		{"1.5", legacy, findings.Error, "MUST", "MUST be integers"},
		{`"E42"`, legacy, findings.Error, "MUST", `code "E42"`},
		{"null", modern, findings.Error, "MUST", "MUST be integers"},
		{"", legacy, findings.Error, "MUST", "no code"},
		{"-32002", modern, findings.Error, "MUST NOT", "MUST NOT emit -32002 or -32042"},
		{"-32042", modern, findings.Error, "MUST NOT", "MUST NOT emit"},
		{"-32050", modern, findings.Error, "MUST NOT", "reserves -32020…-32099"},
		{"-32050", legacy, "", "", ""},
		{"-32020", modern, "", "", ""}, // HeaderMismatch
		{"-32022", modern, "", "", ""}, // UnsupportedProtocolVersion
		{"-32001", modern, findings.Info, "SHOULD NOT", "new implementations SHOULD NOT"},
	}
	for _, tc := range tests {
		j := JudgeErrorCode(tc.raw, tc.version)
		if j.Severity != tc.sev || j.Keyword != tc.keyword || !strings.Contains(j.Why, tc.inWhy) {
			t.Errorf("JudgeErrorCode(%s, %s) = %+v, want %q %q …%s…", tc.raw, tc.version, j, tc.sev, tc.keyword, tc.inWhy)
		}
		if j.Severity != "" && !strings.HasPrefix(j.URL, "https://") {
			t.Errorf("%s: no clause URL: %+v", tc.raw, j)
		}
		if j.Severity == findings.Error && !strings.HasPrefix(j.Keyword, "MUST") {
			t.Errorf("%s: an error that cites no MUST: %+v", tc.raw, j)
		}
	}
	if u := JudgeErrorCode("1.5", "2024-11-05").URL; !strings.Contains(u, "/2024-11-05/basic/messages") {
		t.Errorf("2024-11-05 clause = %s", u)
	}
	if u := JudgeErrorCode("1.5", "2025-06-18").URL; !strings.HasSuffix(u, "/2025-06-18/basic/index#responses") {
		t.Errorf("2025-06-18 clause = %s", u)
	}
}

// The session sees every error reply, answered or not, and the capture
// turns each odd code into one finding, however often it came.
func TestRunErrorCodeFindings(t *testing.T) { inBubble(t, testRunErrorCodeFindings) }

func testRunErrorCodeFindings(t *testing.T) {
	conn := startServer(t, scripted(`{"tools":{},"prompts":{}}`, map[string]route{
		"tools/list": func(r req) []string {
			return append([]string{`{"jsonrpc":"2.0","id":778,"error":{"code":"E42","message":"nobody asked"}}`}, ok(r, `{"tools":[]}`)...)
		},
		"prompts/list": func(r req) []string { return fail(r, 0, "backend down", "") },
	}))
	c, err := run(t, conn, fastOptions("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	wantFinding(t, c, "error", "nonstandard-error-code", `code "E42"`, "MUST be integers", "nobody asked")
	wantFinding(t, c, "info", "nonstandard-error-code", "code 0", "backend down", "application defined")
	if n := len(findingsOf(c, "nonstandard-error-code")); n != 2 {
		t.Errorf("%d findings, want 2 (server/discover's -32601 is standard)", n)
	}
}

// A code as sent is kept to 64 bytes, and the cut never makes a code look
// worse than it is.
func TestRawCodeBounded(t *testing.T) { inBubble(t, testRawCodeBounded) }

func testRawCodeBounded(t *testing.T) {
	s, c := newTestSession(t)
	ch := goCall(s, "tools/list", nil, time.Second)
	c.next(t)
	long := `"` + strings.Repeat("x", 1000) + `"`
	c.reply(`{"jsonrpc":"2.0","id":1,"error":{"code":` + long + `,"message":"m"}}`)
	got := wait(t, ch)
	var re *RPCError
	if !errors.As(got.err, &re) || len(re.RawCode) != 64 || IsIntegerCode(re.RawCode) {
		t.Fatalf("RawCode = %q", re.RawCode)
	}
	if codes := s.ErrorCodes(); len(codes) != 1 || codes[0].Raw != re.RawCode || codes[0].N != 1 {
		t.Errorf("ErrorCodes = %+v", codes)
	}
}
