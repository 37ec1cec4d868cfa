//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func diffJSON(t *testing.T, wantCode int, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"diff", "--json"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("exit %d, want %d: %s", r.code, wantCode, r.stderr)
	}
	return section(t, "diff", r.stdout)
}

func tsServer(t *testing.T, mode string) []string {
	t.Helper()
	entry, _ := filepath.Abs("../../fixtures/tsserver/server.mjs")
	if _, err := os.Stat("../../fixtures/tsserver/node_modules/@modelcontextprotocol/sdk"); err != nil {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatalf("fixtures/tsserver is not installed: run scripts/install-peers.sh")
		}
		t.Skip("fixtures/tsserver is not installed (scripts/install-peers.sh)")
	}
	return []string{"node", entry, mode}
}

func changesBy(v gjson.Result) map[string]gjson.Result {
	m := map[string]gjson.Result{}
	for _, c := range v.Get("changes").Array() {
		m[c.Get("kind").String()+" "+c.Get("path").String()] = c
	}
	return m
}

// The TypeScript SDK, twice: the low-level Server with the reference's own
// schemas comes out identical; McpServer with zod shows every artefact.
func TestDiffTypeScriptSDK(t *testing.T) {
	t.Parallel()
	ref, _ := filepath.Abs("../../fixtures/tsserver/reference.anthropic.json")
	raw := diffJSON(t, 0, append([]string{"--ref", ref, "--"}, tsServer(t, "raw")...)...)
	if raw.Get("reference_format").String() != "anthropic" || !raw.Get("identical_canonical").Bool() || len(raw.Get("changes").Array()) != 0 {
		t.Errorf("raw Server vs its reference: %s", raw.Raw)
	}
	// An Anthropic file is not what a server sends: the bytes answer is
	// not false, it was not given.
	if b := raw.Get("identical_bytes"); b.Type != gjson.Null || !b.Exists() || raw.Get("bytes_comparable").Bool() {
		t.Errorf("identical_bytes against an Anthropic reference = %s, want null", b.Raw)
	}
	zod := diffJSON(t, 0, append([]string{"--ref", ref, "--"}, tsServer(t, "zod")...)...)
	if zod.Get("identical_canonical").Bool() {
		t.Fatalf("zod output identical to the reference")
	}
	got := changesBy(zod)
	for key, note := range map[string]string{
		"added find_orders.inputSchema.$schema":                  "draft-07",
		"added find_orders.inputSchema.properties.limit.minimum": "9007199254740991",
		"added find_orders.inputSchema.properties.limit.maximum": "9007199254740991",
		"added find_orders.execution":                            "taskSupport",
		"added order_total.execution":                            "taskSupport",
		"removed find_orders.inputSchema.required":               "means the same",
		"order find_orders.inputSchema.properties.status":        ".describe() called on the type itself (z.string().describe(…).optional()",
		"order tag_order.inputSchema.properties.options":         ".describe() called on the type itself",
	} {
		c, ok := got[key]
		if !ok {
			t.Errorf("no %q change; got %v", key, keysOf(got))
			continue
		}
		if !strings.Contains(c.Get("note").String(), note) {
			t.Errorf("%s: note %q lacks %q", key, c.Get("note"), note)
		}
	}
	if c := got["added find_orders.inputSchema.properties.limit.maximum"]; c.Get("new").Raw != "9007199254740991" || c.Get("old").Type != gjson.Null {
		t.Errorf("old/new values: %s", c.Raw)
	}
	for _, c := range zod.Get("changes").Array() {
		if c.Get("note").Type == gjson.Null {
			t.Errorf("an unexplained change: %s", c.Raw)
		}
	}
}

func keysOf(m map[string]gjson.Result) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestDiffGoSDK(t *testing.T) {
	t.Parallel()
	ref, _ := filepath.Abs("../../fixtures/goodserver/reference.anthropic.json")
	v := diffJSON(t, 0, "--ref", ref, bin.good)
	got := changesBy(v)
	for _, key := range []string{
		"added find_orders.inputSchema.additionalProperties",
		"added order_total.outputSchema",
		"added find_orders.title",
	} {
		if _, ok := got[key]; !ok {
			t.Errorf("no %q change; got %v", key, keysOf(got))
		}
	}
	if n := got["added find_orders.inputSchema.additionalProperties"].Get("note").String(); !strings.Contains(n, "Go SDK") {
		t.Errorf("note = %q", n)
	}
	for _, c := range v.Get("changes").Array() {
		if c.Get("kind").String() == "changed" {
			t.Errorf("a value changed: %s", c.Raw)
		}
	}
}

func TestSnapshotAndDrift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock := filepath.Join(dir, "mcp.lock.json")
	r := mcpprobe(t, "snapshot", "-o", lock, bin.good)
	if r.code != 0 {
		t.Fatalf("snapshot: exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(lock)
	snap := gjson.ParseBytes(data)
	if snap.Get("mcpprobe_snapshot").Int() != 1 || len(snap.Get("tools").Array()) != 3 || len(snap.Get("tools.0.sha256").String()) != 64 {
		t.Fatalf("snapshot: %.400s", data)
	}
	if names := snap.Get("tools.#.name").Raw; names != `["delete_order","find_orders","order_total"]` {
		t.Errorf("not sorted: %s", names)
	}
	again := mcpprobe(t, "snapshot", bin.good)
	if again.stdout != string(data) {
		t.Errorf("two snapshots of one server differ")
	}
	same := diffJSON(t, 0, "--ref", lock, "--fail-on", "drift", bin.good)
	if !same.Get("identical_bytes").Bool() || !same.Get("identical_canonical").Bool() {
		t.Errorf("a server against its own snapshot: %s", same.Raw)
	}
	r = mcpprobe(t, "diff", "--ref", lock, "--fail-on", "drift", "--", bin.good, "-extra-tools", "1")
	if r.code != 1 || !strings.Contains(r.stdout, "tools added            noop_001") || !strings.Contains(r.stderr, "--fail-on tripped: drift") {
		t.Errorf("drift: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestDiffTwoSides(t *testing.T) {
	t.Parallel()
	t.Run("two live servers", func(t *testing.T) {
		v := diffJSON(t, 0, bin.good, "--", bin.good, "-extra-tools", "2")
		if got := v.Get("tools_added").Raw; got != `["noop_001","noop_002"]` {
			t.Errorf("tools_added = %s", got)
		}
		if v.Get("reference_format").String() != "live" || !v.Get("bytes_comparable").Bool() {
			t.Errorf("%s", v.Raw)
		}
	})
	t.Run("two saved captures, pages reordered", func(t *testing.T) {
		a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		for _, run := range [][]string{{"--save", a, "--", bin.raw, "-pages", "1"}, {"--save", b, "--", bin.raw, "-pages", "3"}} {
			if r := mcpprobe(t, append([]string{"wire", "--quiet"}, run...)...); r.code != 0 {
				t.Fatalf("wire: %s", r.stderr)
			}
		}
		v := diffJSON(t, 0, a, "--", b)
		if v.Get("reference_format").String() != "mcpprobe-save" || !v.Get("identical_canonical").Bool() || !v.Get("identical_bytes").Bool() {
			t.Errorf("the same tools over 1 and 3 pages: %s", v.Raw)
		}
	})
	t.Run("wire --json output as the reference", func(t *testing.T) {
		ref := filepath.Join(t.TempDir(), "wire.json")
		if r := mcpprobe(t, "wire", "--json", "-o", ref, bin.good); r.code != 0 {
			t.Fatalf("wire: %s", r.stderr)
		}
		v := diffJSON(t, 0, "--ref", ref, "--fail-on", "drift", bin.good)
		if v.Get("reference_format").String() != "mcpprobe-wire-json" || !v.Get("identical_bytes").Bool() {
			t.Errorf("a server against its own wire --json: %s", v.Raw)
		}
	})
	t.Run("usage", func(t *testing.T) {
		if r := mcpprobe(t, "diff", bin.good); r.code != 2 {
			t.Errorf("one side only: exit %d", r.code)
		}
		if r := mcpprobe(t, "diff", "--ref", "/no/such/file.json", bin.good); r.code != 2 || !strings.HasPrefix(r.stderr, "mcpprobe: --ref: ") {
			t.Errorf("missing reference: exit %d: %s", r.code, r.stderr)
		}
		if r := mcpprobe(t, "report", "--ref", "/no/such/file.json", bin.good); r.code != 2 || !strings.HasPrefix(r.stderr, "mcpprobe: --ref: ") {
			t.Errorf("report, missing reference: exit %d: %s", r.code, r.stderr)
		}
		if r := mcpprobe(t, "report", "--date", "2 December", bin.good); r.code != 2 || !strings.Contains(r.stderr, "want YYYY-MM-DD") {
			t.Errorf("report --date in another form: exit %d: %s", r.code, r.stderr)
		}
	})
	t.Run("report gets a diff section", func(t *testing.T) {
		ref, _ := filepath.Abs("../../fixtures/goodserver/reference.anthropic.json")
		r := mcpprobe(t, "report", "--date", "2026-12-02", "--ref", ref, bin.good)
		if r.code != 0 || !strings.Contains(r.stdout, "## Diff against `"+ref+"`") || !strings.Contains(r.stdout, "| added | `find_orders.inputSchema.additionalProperties`") {
			t.Errorf("exit %d:\n%s", r.code, r.stdout)
		}
	})
}

// Editing any part a snapshot records makes diff --fail-on drift exit 1
// and name the part; --ignore leaves a part out on purpose, and refuses
// what is unknown or not recorded.
func TestSnapshotDriftEveryPart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock := filepath.Join(dir, "mcp.lock.json")
	if r := mcpprobe(t, "snapshot", "-o", lock, bin.good); r.code != 0 {
		t.Fatalf("snapshot: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		part   string
		edit   func(m map[string]any)
		ignore string // with --ignore this part, the same edit is no drift
	}{
		{"drop a prompt", "prompts", func(m map[string]any) { m["prompts"] = m["prompts"].([]any)[1:] }, ""},
		{"drop the resource templates", "templates", func(m map[string]any) { m["resource_templates"] = []any{} }, "templates"},
		{"drop a resource", "resources", func(m map[string]any) { m["resources"] = []any{} }, ""},
		{"drop a tool", "tools", func(m map[string]any) { m["tools"] = m["tools"].([]any)[1:] }, ""},
		{"change the server version", "server-version", func(m map[string]any) { m["server_info"].(map[string]any)["version"] = "1.4.1" }, "server-version"},
		{"change the server name", "server-name", func(m map[string]any) { m["server_info"].(map[string]any)["name"] = "orders" }, ""},
		{"change the protocol version", "protocol", func(m map[string]any) { m["protocol_version"] = "2025-06-18" }, "protocol"},
		{"change the instructions", "instructions", func(m map[string]any) { m["instructions"] = "Use find_orders." }, ""},
		{"change the capabilities", "capabilities", func(m map[string]any) { delete(m["capabilities"].(map[string]any), "logging") }, "capabilities"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			edited, _ := json.MarshalIndent(m, "", "  ")
			path := filepath.Join(t.TempDir(), "edited.lock.json")
			if err := os.WriteFile(path, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			r := mcpprobe(t, "diff", "--ref", path, "--fail-on", "drift", bin.good)
			if r.code != 1 || !strings.Contains(r.stdout, "changed parts          "+tc.part+"\n") || !strings.Contains(r.stderr, "--fail-on tripped: drift") {
				t.Errorf("exit %d, want 1 naming %s:\n%s\n%s", r.code, tc.part, r.stdout, r.stderr)
			}
			if tc.ignore != "" {
				r := mcpprobe(t, "diff", "--json", "--ref", path, "--fail-on", "drift", "--ignore", tc.ignore, bin.good)
				v := section(t, "diff", r.stdout)
				if r.code != 0 || v.Get("ignored").Raw != `["`+tc.ignore+`"]` || v.Get("changed_parts").Raw != `[]` {
					t.Errorf("--ignore %s: exit %d: %s", tc.ignore, r.code, v.Raw)
				}
			}
		})
	}
	t.Run("refused ignores", func(t *testing.T) {
		t.Parallel()
		anthropic, _ := filepath.Abs("../../fixtures/goodserver/reference.anthropic.json")
		for _, c := range []struct {
			args []string
			has  string
		}{
			{[]string{"--ignore", "version", "--ref", lock}, `--ignore: "version" is no part diff compares: want tools, prompts`},
			{[]string{"--ignore", "prompts", "--ref", anthropic}, "--ignore prompts: the reference (" + anthropic + ", Anthropic tool definitions (input_schema)) does not record prompts"},
		} {
			r := mcpprobe(t, append(append([]string{"diff"}, c.args...), bin.good)...)
			if r.code != 2 || !strings.Contains(r.stderr, c.has) {
				t.Errorf("%v: exit %d: %s", c.args, r.code, r.stderr)
			}
		}
	})
	t.Run("a tools-only reference says what it did not compare", func(t *testing.T) {
		t.Parallel()
		anthropic, _ := filepath.Abs("../../fixtures/goodserver/reference.anthropic.json")
		r := mcpprobe(t, "diff", "--ref", anthropic, bin.good)
		if r.code != 0 || !strings.Contains(r.stdout, "compared               tools\n") ||
			!strings.Contains(r.stdout, "not compared           prompts, resources, templates, instructions, server-name, server-version, server-info, protocol, capabilities: not recorded by the reference") {
			t.Errorf("exit %d:\n%s", r.code, r.stdout)
		}
	})
}
