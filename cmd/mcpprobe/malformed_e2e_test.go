package main

import (
	"testing"

	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/tidwall/gjson"
)

func malformedJSON(t *testing.T, args ...string) map[string]gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"malformed", "--json", "--quiet"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if err := reports.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatalf("malformed --json does not validate against the schema: %v\n%.300s", err, r.stdout)
	}
	m := map[string]gjson.Result{}
	for _, c := range gjson.Get(r.stdout, "malformed.cases").Array() {
		m[c.Get("tool").String()+"|"+c.Get("case").String()] = c
	}
	return m
}

type want struct{ channel, expected string }

func checkCases(t *testing.T, got map[string]gjson.Result, wants map[string]want) {
	t.Helper()
	for key, w := range wants {
		c, ok := got[key]
		if !ok {
			t.Errorf("no case %q", key)
			continue
		}
		ch := c.Get("channel").String()
		if c.Get("code").Exists() && c.Get("code").Type != gjson.Null {
			ch += " " + c.Get("code").Raw
		}
		if ch != w.channel || c.Get("expected").String() != w.expected {
			t.Errorf("%s: channel %q expected %q, want %q %q", key, ch, c.Get("expected"), w.channel, w.expected)
		}
		if c.Get("ok").Bool() != (ch == w.expected || (w.expected == "answered" && ch != "no_answer" && ch != "crashed") || (w.expected == "rpc_error" && len(ch) > 9 && ch[:9] == "rpc_error")) {
			t.Errorf("%s: ok = %v", key, c.Get("ok").Bool())
		}
	}
}

// The Go SDK validates input against the schema and answers with isError;
// it ends the session on a line that is not JSON, so invalid JSON is a
// crash as far as a client is concerned.
func TestMalformedGoSDK(t *testing.T) {
	t.Parallel()
	got := malformedJSON(t, "--timeout", "1s", bin.good)
	checkCases(t, got, map[string]want{
		"find_orders|wrong type (customer)":      {"is_error", "is_error"},
		"find_orders|fractional integer (limit)": {"is_error", "is_error"},
		"order_total|missing required (id)":      {"is_error", "is_error"},
		"order_total|unknown property":           {"is_error", "is_error"},
		"|unknown tool":                          {"rpc_error -32602", "rpc_error -32602"},
		"|unknown method":                        {"rpc_error -32601", "rpc_error -32601"},
		"|bad cursor":                            {"rpc_error -32602", "rpc_error -32602"},
		"|cancel an unknown id":                  {"no_answer", "no_answer"},
		"|invalid JSON":                          {"crashed", "rpc_error -32700"},
		"find_orders|1 MB string":                {"is_error", "answered"},
	})
	if _, ok := got["delete_order|wrong type (id)"]; ok {
		t.Errorf("a tool not annotated read-only was called")
	}
}

// The raw fixture validates nothing: every bad call succeeds, which is
// what the table must show.
func TestMalformedRawServer(t *testing.T) {
	t.Parallel()
	got := malformedJSON(t, "--timeout", "500ms", "--call", "echo", "--", bin.raw, "-bench-tools")
	checkCases(t, got, map[string]want{
		"echo|wrong type (text)":       {"ok", "is_error"},
		"echo|missing required (text)": {"ok", "is_error"},
		"echo|out of range (n)":        {"ok", "is_error"},
		"echo|unknown property":        {"ok", "ok"},
		"|unknown method":              {"rpc_error -32601", "rpc_error -32601"},
		"|second initialize":           {"ok", "rpc_error"},
		"|request before initialize":   {"ok", "rpc_error"},
		"|invalid JSON":                {"no_answer", "rpc_error -32700"},
		"echo|100-deep nesting":        {"ok", "answered"},
	})
	if _, ok := got["sleep|wrong type (mode)"]; ok {
		t.Errorf("--call echo still derived cases from sleep")
	}
}

func TestMalformedRealPeer(t *testing.T) {
	t.Parallel()
	entry := peer(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	got := malformedJSON(t, "--timeout", "2s", "--call", "get-sum", "--", "node", entry, "stdio")
	checkCases(t, got, map[string]want{
		"get-sum|missing required (a)": {"is_error", "is_error"},
		"get-sum|unknown property":     {"ok", "ok"},
		"|unknown method":              {"rpc_error -32601", "rpc_error -32601"},
		"|cancel an unknown id":        {"no_answer", "no_answer"},
	})
}

// A case answered otherwise than the spec asks is a finding: --fail-on
// gates on it, and the JSON says which codes tripped the gate.
func TestMalformedFailOn(t *testing.T) {
	t.Parallel()
	args := []string{"malformed", "--json", "--quiet", "--timeout", "500ms", "--call", "echo", "--", bin.raw, "-bench-tools"}
	r := mcpprobe(t, append([]string{"--fail-on", "warning"}, args...)...)
	if r.code != 1 {
		t.Fatalf("--fail-on warning: exit %d, want 1: %s", r.code, r.stderr)
	}
	if err := reports.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatal(err)
	}
	tripped := gjson.Get(r.stdout, "fail_on.tripped.0")
	if tripped.Get("gate").String() != "warning" || !has(toStrings(tripped.Get("codes").Array()), "malformed-channel") {
		t.Errorf("tripped = %s", tripped.Raw)
	}
	if n := gjson.Get(r.stdout, "findings.#").Int(); n != gjson.Get(r.stdout, "malformed.cases.#").Int()-gjson.Get(r.stdout, "malformed.met").Int() {
		t.Errorf("%d findings, want one per case not met", n)
	}
	// The raw fixture never crashes: no error.
	if r := mcpprobe(t, append([]string{"--fail-on", "error"}, args...)...); r.code != 0 {
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
