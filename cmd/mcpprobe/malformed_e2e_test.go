//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

// malformedRun runs malformed --json and returns the envelope, checked
// against the schema.
func malformedRun(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"malformed", "--json", "--quiet"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatalf("malformed --json does not validate against the schema: %v\n%.300s", err, r.stdout)
	}
	return gjson.Parse(r.stdout)
}

// casesOf indexes the cases by "tool|case".
func casesOf(env gjson.Result) map[string]gjson.Result {
	m := map[string]gjson.Result{}
	for _, c := range env.Get("malformed.cases").Array() {
		m[c.Get("tool").String()+"|"+c.Get("case").String()] = c
	}
	return m
}

// answerOf is what answered, as the text prints it: a channel, or
// rpc_error with its code.
func answerOf(c gjson.Result) string {
	if c.Get("code").Type == gjson.Number {
		return c.Get("channel").String() + " " + c.Get("code").Raw
	}
	return c.Get("channel").String()
}

// want is a case's answer and verdict.
type want struct{ answer, verdict string }

func checkCases(t *testing.T, got map[string]gjson.Result, wants map[string]want) {
	t.Helper()
	for key, w := range wants {
		c, ok := got[key]
		if !ok {
			t.Errorf("no case %q", key)
			continue
		}
		if a, v := answerOf(c), c.Get("verdict").String(); a != w.answer || v != w.verdict {
			t.Errorf("%s: %s → %s, want %s → %s (%s)", key, a, v, w.answer, w.verdict, c.Get("why"))
		}
	}
}

// Whatever the server, a ✗ cites a MUST that binds the server, and a
// case the text leaves open (or restricts only the client in) is never
// ✗ nor ✓.
func checkVerdictsCite(t *testing.T, name string, env gjson.Result) {
	t.Helper()
	for _, c := range env.Get("malformed.cases").Array() {
		where := name + " " + c.Get("tool").String() + "|" + c.Get("case").String()
		cl := c.Get("clause")
		switch c.Get("verdict").String() {
		case "fail":
			if !strings.HasPrefix(cl.Get("keyword").String(), "MUST") || cl.Get("binds").String() != "server" || c.Get("severity").String() != "error" {
				t.Errorf("%s: a ✗ that cites %s", where, cl.Raw)
			}
		case "pass":
			if c.Get("expected").String() == "observed" {
				t.Errorf("%s: ✓ for what the text leaves open", where)
			}
		}
		if cl.Get("binds").String() == "client" && c.Get("verdict").String() == "fail" {
			t.Errorf("%s: ✗ on a clause that binds the client", where)
		}
		if !c.Get("baseline").Bool() && c.Get("verdict").String() != "inconclusive" && !strings.HasPrefix(cl.Get("url").String(), "https://") {
			t.Errorf("%s: a verdict without a clause: %s", where, c.Raw)
		}
	}
}

// The Go SDK validates input against the schema and answers with isError;
// it ends the session on a line that is not JSON, which the text leaves
// open: a warning, not a ✗. Its order_total fails a valid call for a
// reason of its own (no such order), so its cases are inconclusive.
func TestMalformedGoSDK(t *testing.T) {
	t.Parallel()
	env := malformedRun(t, "--timeout", secs(1*time.Second), bin.good)
	got := casesOf(env)
	checkCases(t, got, map[string]want{
		"find_orders|baseline (valid call)":      {"ok", "pass"},
		"find_orders|wrong type (customer)":      {"is_error", "pass"},
		"find_orders|fractional integer (limit)": {"is_error", "pass"},
		"order_total|baseline (valid call)":      {"is_error", "inconclusive"},
		"order_total|missing required (id)":      {"is_error", "inconclusive"},
		"|unknown tool":                          {"rpc_error -32602", "pass"},
		"|unknown method":                        {"rpc_error -32601", "pass"},
		"|bad cursor":                            {"rpc_error -32602", "pass"},
		"|cancel an unknown id":                  {"no_answer", "pass"},
		"|invalid JSON":                          {"crashed", "warn"},
		"|batch":                                 {"ok", "observed"},
		"find_orders|1 MB string":                {"is_error", "pass"},
	})
	if _, ok := got["delete_order|wrong type (id)"]; ok {
		t.Errorf("a tool not annotated read-only was called")
	}
	if u := env.Get("malformed.unjudged.0"); u.Get("tool").String() != "order_total" || !strings.Contains(u.Get("message").String(), "no order") {
		t.Errorf("unjudged = %s", env.Get("malformed.unjudged").Raw)
	}
	checkVerdictsCite(t, "goodserver", env)
}

// The raw fixture validates nothing: every bad call succeeds, which the
// verdicts weigh by the text: warnings, no ✗, and what binds only the
// client observed.
func TestMalformedRawServer(t *testing.T) {
	t.Parallel()
	env := malformedRun(t, "--timeout", secs(500*time.Millisecond), "--call", "echo", "--", bin.raw, "-bench-tools")
	got := casesOf(env)
	checkCases(t, got, map[string]want{
		"echo|baseline (valid call)":   {"ok", "pass"},
		"echo|wrong type (text)":       {"ok", "warn"},
		"echo|missing required (text)": {"ok", "warn"},
		"echo|out of range (n)":        {"ok", "warn"},
		"echo|unknown property":        {"ok", "pass"},
		"echo|arguments: null":         {"ok", "warn"},
		"|unknown method":              {"rpc_error -32601", "pass"},
		"|second initialize":           {"ok", "observed"},
		"|request before initialize":   {"ok", "observed"},
		"|invalid JSON":                {"no_answer", "observed"},
		"|batch":                       {"no_answer", "observed"},
		"echo|100-deep nesting":        {"ok", "pass"},
	})
	if _, ok := got["sleep|wrong type (mode)"]; ok {
		t.Errorf("--call echo still derived cases from sleep")
	}
	if got["echo|baseline (valid call)"].Get("args").Raw != `{"text":"a","n":3}` {
		t.Errorf("baseline args = %s", got["echo|baseline (valid call)"].Get("args").Raw)
	}
	checkVerdictsCite(t, "rawserver", env)
	// 2025-03-26 is the one version with batches: there a silent server
	// breaks a MUST.
	old := casesOf(malformedRun(t, "--protocol", "2025-03-26", "--timeout", secs(500*time.Millisecond), "--call", "echo", "--", bin.raw, "-bench-tools"))
	checkCases(t, old, map[string]want{
		"|batch":                 {"no_answer", "fail"},
		"echo|wrong type (text)": {"ok", "warn"},
	})
	// --args are the baseline's arguments, and the cases start from them.
	user := casesOf(malformedRun(t, "--timeout", secs(500*time.Millisecond), "--call", "echo", "--args", `{"text":"hi","n":9}`, "--", bin.raw, "-bench-tools"))
	if a := user["echo|baseline (valid call)"].Get("args").Raw; a != `{"text":"hi","n":9}` {
		t.Errorf("baseline args with --args = %s", a)
	}
	for _, args := range [][]string{{"--args", `{}`}, {"--call", "echo", "--args", `[1]`}} {
		r := mcpprobe(t, append(append([]string{"malformed", "--quiet"}, args...), "--", bin.raw, "-bench-tools")...)
		if r.code != 2 || !strings.Contains(r.stderr, "--args") {
			t.Errorf("malformed %q: exit %d, %s", args, r.code, r.stderr)
		}
	}
}

// A server whose tools all fail for an outside reason gets inconclusive
// verdicts with the reason, never ✓ or ✗, for every case sent to a tool;
// the text shows the message.
func TestMalformedOutsideFailure(t *testing.T) {
	t.Parallel()
	argv := []string{"--timeout", secs(500 * time.Millisecond), "--", bin.raw, "-bench-tools", "-call-error", "network unreachable"}
	env := malformedRun(t, argv...)
	tools := 0
	for _, c := range env.Get("malformed.cases").Array() {
		if c.Get("tool").String() == "" && c.Get("case").String() != "unknown tool" {
			continue
		}
		tools++
		if c.Get("verdict").String() != "inconclusive" || c.Get("severity").Type != gjson.Null {
			t.Errorf("%s|%s: %s, want inconclusive", c.Get("tool"), c.Get("case"), c.Get("verdict"))
		}
		if !c.Get("baseline").Bool() && c.Get("case").String() != "unknown tool" && !strings.Contains(c.Get("why").String(), "network unreachable") {
			t.Errorf("%s|%s: the reason lacks the baseline's message: %s", c.Get("tool"), c.Get("case"), c.Get("why"))
		}
	}
	// echo and fail: sleep is read-only too, but its name speaks of long
	// work, so it is not called (args.Choose)
	if tools < 11 || env.Get("malformed.unjudged.#").Int() != 2 || env.Get("malformed.verdicts.inconclusive").Int() < 10 {
		t.Errorf("%d tool cases, unjudged %s, verdicts %s", tools, env.Get("malformed.unjudged").Raw, env.Get("malformed.verdicts").Raw)
	}
	n := 0
	for _, f := range env.Get("findings").Array() {
		if f.Get("code").String() == "malformed-inconclusive" {
			n++
		} else if f.Get("tool").Exists() {
			t.Errorf("a finding on a tool that could not be judged: %s", f.Raw)
		}
	}
	if n != 2 {
		t.Errorf("%d malformed-inconclusive findings, want one per tool", n)
	}
	r := mcpprobe(t, append([]string{"malformed", "--quiet"}, argv...)...)
	for _, w := range []string{
		"2 of 2 tools could not be judged, their valid call failed: echo (is_error \"network unreachable\")",
		"does not call: sleep (its name or title speaks of long work (\"sleep\")",
		"? echo: its valid call {\"text\":\"a\",\"n\":3} answered is_error \"network unreachable\", so its 8 case(s) are inconclusive",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the text lacks %q:\n%s", w, r.stdout)
		}
	}
}

// An error code is judged as the text allows: code 0 is the
// application's (info); a code that is not an integer breaks a MUST.
func TestMalformedErrorCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code, answer, verdict, severity string
	}{
		{"0", "rpc_error 0", "warn", "info"},
		{`"E42"`, "rpc_error", "fail", "error"},
		{"-32050", "rpc_error -32050", "warn", ""}, // JSON-RPC's server range: free before 2026-07-28
	}
	for _, tc := range tests {
		env := malformedRun(t, "--timeout", secs(500*time.Millisecond), "--call", "echo", "--", bin.raw, "-bench-tools", "-error-code", tc.code)
		c := casesOf(env)["|unknown method"]
		if answerOf(c) != tc.answer || c.Get("verdict").String() != tc.verdict {
			t.Errorf("code %s: %s → %s, want %s → %s", tc.code, answerOf(c), c.Get("verdict"), tc.answer, tc.verdict)
		}
		sev := ""
		for _, f := range env.Get("findings").Array() {
			if f.Get("code").String() == "nonstandard-error-code" {
				sev = f.Get("severity").String()
			}
		}
		if sev != tc.severity {
			t.Errorf("code %s: nonstandard-error-code %q, want %q", tc.code, sev, tc.severity)
		}
		if tc.code == `"E42"` && c.Get("code_as_sent").String() != `"E42"` {
			t.Errorf("code_as_sent = %s", c.Get("code_as_sent").Raw)
		}
	}
}

// The TypeScript SDK 1.x, both of its servers: no ✗ for what the spec
// leaves open (a second initialize, a request before initialize, a
// batch), and McpServer's isError for an unknown tool is a warning that
// names the SDK.
func TestMalformedTypeScriptSDK(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"raw", "zod"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			argv := append([]string{"--timeout", secs(2 * time.Second), "--call", "find_orders", "--call", "order_total", "--"}, tsServer(t, mode)...)
			env := malformedRun(t, argv...)
			got := casesOf(env)
			wants := map[string]want{
				"find_orders|baseline (valid call)": {"ok", "pass"},
				"order_total|missing required (id)": {"is_error", "pass"},
				"order_total|arguments: null":       {"rpc_error -32603", "pass"},
				"|unknown method":                   {"rpc_error -32601", "pass"},
				"|second initialize":                {"ok", "observed"},
				"|request before initialize":        {"ok", "observed"},
				"|batch":                            {"no_answer", "observed"},
				"|invalid JSON":                     {"no_answer", "observed"},
				"|bad cursor":                       {"ok", "warn"},
			}
			if mode == "zod" {
				wants["|unknown tool"] = want{"is_error", "warn"}
				wants["find_orders|wrong type (customer)"] = want{"is_error", "pass"}
			} else {
				wants["|unknown tool"] = want{"rpc_error -32602", "pass"}
				wants["find_orders|wrong type (customer)"] = want{"ok", "warn"}
			}
			checkCases(t, got, wants)
			checkVerdictsCite(t, "tsserver "+mode, env)
			if n := env.Get("malformed.verdicts.fail").Int(); n != 0 {
				t.Errorf("%d ✗ on the TypeScript SDK: %s", n, env.Get("findings").Raw)
			}
			sdk := got["|unknown tool"].Get("sdk").String()
			if (mode == "zod") != strings.Contains(sdk, "TypeScript SDK 1.x") {
				t.Errorf("unknown tool's SDK note: %q", sdk)
			}
		})
	}
}

func TestMalformedRealPeer(t *testing.T) {
	t.Parallel()
	entry := peer(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	env := malformedRun(t, "--timeout", secs(2*time.Second), "--call", "get-sum", "--", "node", entry, "stdio")
	checkCases(t, casesOf(env), map[string]want{
		"get-sum|baseline (valid call)": {"ok", "pass"},
		"get-sum|missing required (a)":  {"is_error", "pass"},
		"get-sum|unknown property":      {"ok", "pass"},
		"|unknown method":               {"rpc_error -32601", "pass"},
		"|cancel an unknown id":         {"no_answer", "pass"},
	})
	checkVerdictsCite(t, "server-everything", env)
}

// A case with a severity is a finding: --fail-on gates on it, and the
// JSON says which codes tripped the gate.
func TestMalformedFailOn(t *testing.T) {
	t.Parallel()
	args := func(gate string) []string {
		return []string{"malformed", "--fail-on", gate, "--json", "--quiet", "--timeout", secs(500 * time.Millisecond), "--call", "echo", "--", bin.raw, "-bench-tools"}
	}
	r := mcpprobe(t, args("warning")...)
	if r.code != 1 {
		t.Fatalf("--fail-on warning: exit %d, want 1: %s", r.code, r.stderr)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatal(err)
	}
	tripped := gjson.Get(r.stdout, "fail_on.tripped.0")
	if tripped.Get("gate").String() != "warning" || !has(toStrings(tripped.Get("codes").Array()), "malformed-channel") {
		t.Errorf("tripped = %s", tripped.Raw)
	}
	withSeverity := gjson.Get(r.stdout, `malformed.cases.#(severity!=null)#`).Array()
	if n := gjson.Get(r.stdout, "findings.#").Int(); n != int64(len(withSeverity)) {
		t.Errorf("%d findings, want one per case with a severity (%d)", n, len(withSeverity))
	}
	// The raw fixture breaks no MUST: no error.
	if r := mcpprobe(t, args("error")...); r.code != 0 {
		t.Errorf("--fail-on error: exit %d: %s", r.code, r.stderr)
	}
}

func toStrings(rs []gjson.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}
