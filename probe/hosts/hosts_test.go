package hosts

import (
	"os"
	"strings"
	"testing"
)

func host(t *testing.T, id string) Host {
	t.Helper()
	h, ok := find(Known(), id)
	if !ok {
		t.Fatalf("no host %s", id)
	}
	return h
}

func TestKnownHostsValidate(t *testing.T) {
	for _, h := range Known() {
		if err := h.validate(); err != nil {
			t.Errorf("%s: %v", h.ID, err)
		}
	}
}

func TestFullName(t *testing.T) {
	claude := host(t, "claude-code").ToolNames
	codex := host(t, "codex").ToolNames
	openai := host(t, "chatgpt-chat").ToolNames
	tests := []struct {
		name          string
		rule          *NameRule
		server, tool  string
		full          string
		refused, over bool
	}{
		{"claude prefix", claude, "docs", "search", "mcp__docs__search", false, false},
		{"claude replaces a dot and a slash", claude, "my.srv", "a/b", "mcp__my_srv__a_b", false, false},
		{"claude at 128 is fine", claude, "s", strings.Repeat("x", 128-len("mcp__s__")), "mcp__s__" + strings.Repeat("x", 120), false, false},
		{"claude at 129 is over", claude, "s", strings.Repeat("x", 121), "mcp__s__" + strings.Repeat("x", 121), false, true},
		{"codex over 64", codex, "server", strings.Repeat("y", 52), "mcp__server__" + strings.Repeat("y", 52), false, true},
		{"codex at 64", codex, "server", strings.Repeat("y", 51), "mcp__server__" + strings.Repeat("y", 51), false, false},
		{"openai refuses a dot", openai, "s", "admin.tools.list", "admin.tools.list", true, false},
		{"openai bare name over 64", openai, "s", strings.Repeat("z", 65), strings.Repeat("z", 65), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			full, refused, over := tc.rule.FullName(tc.server, tc.tool)
			if full != tc.full || refused != tc.refused || over != tc.over {
				t.Errorf("got %q %v %v, want %q %v %v", full, refused, over, tc.full, tc.refused, tc.over)
			}
		})
	}
}

func TestStrictestAndOverrides(t *testing.T) {
	all := Strictest(Known())
	if all.Description.Rule != "cut" || all.Description.Limit != 2048 || all.Description.Unit != "utf16" || !all.Description.Deferred {
		t.Errorf("all.description = %+v", all.Description)
	}
	if all.Instructions.Rule != "not_delivered" || all.InputSchema.Over != 5000 || all.OutputSchema != "not_delivered" {
		t.Errorf("all = %+v", all)
	}
	hs, err := Select(Known(), []string{"claude-code=3000"})
	if err != nil || hs[0].Description.Limit != 3000 {
		t.Fatalf("override: %v %+v", err, hs)
	}
	if _, err := Select(Known(), []string{"nosuchhost"}); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("unknown host error = %v", err)
	}
	if _, err := Select(Known(), []string{"codex=abc"}); err == nil {
		t.Errorf("bad override accepted")
	}
	if hs, _ := Select(Known(), nil); len(hs) != len(Known())+1 || hs[len(hs)-1].ID != "all" {
		t.Errorf("default selection = %d hosts", len(hs))
	}
}

func TestLoadHosts(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/hosts.json"
	writeFile(t, path, `{"hosts":[{"id":"claude-code","name":"Claude Code (new)","description":{"rule":"cut","limit":4096,"unit":"utf16"},"instructions":{"rule":"whole"},"input_schema":{"rule":"whole"},"output_schema":"not_delivered"},
	{"id":"my-host","name":"Mine","description":{"rule":"whole"},"instructions":{"rule":"whole"},"input_schema":{"rule":"whole"},"output_schema":"delivered"}]}`)
	hs, err := Load(path, Known())
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := find(hs, "claude-code"); h.Description.Limit != 4096 {
		t.Errorf("claude-code not replaced: %+v", h.Description)
	}
	if _, ok := find(hs, "my-host"); !ok || len(hs) != len(Known())+1 {
		t.Errorf("my-host not added: %d hosts", len(hs))
	}
	writeFile(t, path, `{"hosts":[{"id":"x","description":{"rule":"cut","limit":0,"unit":"utf16"},"instructions":{"rule":"whole"}}]}`)
	if _, err := Load(path, Known()); err == nil {
		t.Errorf("a cut without a limit was accepted")
	}
	for _, tc := range []struct {
		surrogate string
		ok        bool
	}{{"", true}, {"split", true}, {"whole", true}, {"keep", false}} {
		writeFile(t, path, `{"hosts":[{"id":"x","description":{"rule":"cut","limit":10,"unit":"utf16","surrogate":"`+tc.surrogate+`"},"instructions":{"rule":"whole"}}]}`)
		if _, err := Load(path, Known()); (err == nil) != tc.ok {
			t.Errorf("surrogate %q: %v", tc.surrogate, err)
		}
	}
	for _, bad := range []string{
		`{"rule":"truncate"}`,
		`{"rule":"cap"}`,
		`{"rule":"cap","token_limit":5,"count":"words"}`,
		`{"rule":"cap","token_limit":5,"over":"dropped"}`,
		`{"rule":"head_tail"}`,
		`{"rule":"whole","content":{"image":"maybe"}}`,
	} {
		writeFile(t, path, `{"hosts":[{"id":"x","description":{"rule":"whole"},"instructions":{"rule":"whole"},"result":`+bad+`}]}`)
		if _, err := Load(path, Known()); err == nil || !strings.Contains(err.Error(), "result") {
			t.Errorf("result rule %s: err = %v", bad, err)
		}
	}
	// Every embedded row passes the same checks.
	for _, h := range Known() {
		if err := h.validate(); err != nil {
			t.Errorf("embedded %s: %v", h.ID, err)
		}
	}
}

func TestToolSearchFromEnv(t *testing.T) {
	base := []Host{host(t, "claude-code")}
	tests := []struct {
		v       string
		rule    string
		percent float64
		err     bool
	}{
		{"auto:5", "share_of_context", 5, false},
		{"auto", "share_of_context", 10, false},
		{"true", "always", 10, false},
		{"false", "never", 10, false},
		{"auto:200", "", 0, true},
		{"sometimes", "", 0, true},
	}
	for _, tc := range tests {
		got, err := ToolSearchFromEnv(base, func(string) (string, bool) { return tc.v, true })
		if (err != nil) != tc.err {
			t.Errorf("%s: err %v", tc.v, err)
			continue
		}
		if err == nil && (got[0].ToolSearch.Rule != tc.rule || got[0].ToolSearch.Percent != tc.percent) {
			t.Errorf("%s: %+v", tc.v, got[0].ToolSearch)
		}
	}
	if base[0].ToolSearch.Percent != 10 {
		t.Error("the known hosts were changed")
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAtVersion: --host ID@VERSION picks the rules of the version range
// that covers it (the profile's own from its since on), names the
// version, and refuses what no range covers.
func TestAtVersion(t *testing.T) {
	tests := []struct {
		spec         string
		id, name     string
		desc, instr  int
		err          string
		verifiedCite string
	}{
		{spec: "claude-code", id: "claude-code", name: "Claude Code", desc: 4096, instr: 4096, verifiedCite: "2.1.332"},
		{spec: "claude-code@2.1.197", id: "claude-code@2.1.197", name: "Claude Code 2.1.197", desc: 2048, instr: 2048, verifiedCite: "2.1.197"},
		{spec: "claude-code@2.1.280", id: "claude-code@2.1.280", name: "Claude Code 2.1.280", desc: 2048, instr: 2048, verifiedCite: "2.1.280"},
		{spec: "claude-code@2.1.294", id: "claude-code@2.1.294", name: "Claude Code 2.1.294", desc: 2048, instr: 2048, verifiedCite: "2.1.294"},
		{spec: "claude-code@2.1.295", id: "claude-code@2.1.295", name: "Claude Code 2.1.295", desc: 2048, instr: 2048, verifiedCite: "2.1.295"},
		{spec: "claude-code@2.1.296", id: "claude-code@2.1.296", name: "Claude Code 2.1.296", desc: 4096, instr: 4096, verifiedCite: "2.1.296"},
		{spec: "claude-code@2.1.400", id: "claude-code@2.1.400", name: "Claude Code 2.1.400", desc: 4096, instr: 4096},
		{spec: "claude-code@2.1.280=3000", id: "claude-code@2.1.280", name: "Claude Code 2.1.280 (cut 3000)", desc: 3000, instr: 2048},
		{spec: "claude-code@2.1.100", err: "claude-code@2.1.100: no rules known for that version; known: 2.1.197 to 2.1.294, 2.1.295, 2.1.296 and later"},
		{spec: "claude-code@2.x", err: `claude-code@2.x: version "2.x": want numbers and dots`},
		{spec: "claude-code@", err: `version "": want numbers and dots`},
		{spec: "codex@0.171.0", err: "codex@0.171.0: the codex profile has no per-version rules"},
		{spec: "nosuch@1.0", err: `unknown host "nosuch"`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			hs, err := Select(Known(), []string{tc.spec})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h := hs[0]
			if h.ID != tc.id || h.Name != tc.name || h.Description.Limit != tc.desc || h.Instructions.Limit != tc.instr || len(h.Versions) != 0 && h.ID != "claude-code" {
				t.Errorf("got %s %q %d/%d (%d versions), want %s %q %d/%d", h.ID, h.Name, h.Description.Limit, h.Instructions.Limit, len(h.Versions), tc.id, tc.name, tc.desc, tc.instr)
			}
			if !strings.Contains(h.Description.Verified, tc.verifiedCite) {
				t.Errorf("verified %q does not cite %s", h.Description.Verified, tc.verifiedCite)
			}
		})
	}
	// The default list has no per-version rows; the strictest row counts them.
	for _, h := range Known() {
		if strings.Contains(h.ID, "@") {
			t.Errorf("Known lists %s", h.ID)
		}
	}
	if all := Strictest(Known()); all.Description.Limit != 2048 || all.Instructions.Rule != "not_delivered" {
		t.Errorf("all = %+v", all.Description)
	}
}

func TestLoadVersions(t *testing.T) {
	path := t.TempDir() + "/hosts.json"
	for _, tc := range []struct {
		row string
		err string
	}{
		{`"since":"1.2","versions":[{"from":"1.0","to":"1.1","description":{"rule":"cut","limit":5,"unit":"utf16"}}]`, ""},
		{`"versions":[{"from":"1.0","to":"1.1"}]`, "versions need since"},
		{`"since":"1.x"`, `since: version "1.x"`},
		{`"since":"1.2","versions":[{"from":"1.1","to":"1.0"}]`, "want from <= to < since"},
		{`"since":"1.2","versions":[{"from":"1.0","to":"1.2"}]`, "want from <= to < since"},
		{`"since":"1.2","versions":[{"from":"1.0","to":"1.1","instructions":{"rule":"cut","limit":0,"unit":"utf16"}}]`, "a cut needs a positive limit"},
	} {
		writeFile(t, path, `{"hosts":[{"id":"x","description":{"rule":"whole"},"instructions":{"rule":"whole"},`+tc.row+`}]}`)
		hs, err := Load(path, Known())
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.row, err)
			} else if h, err := Select(hs, []string{"x@1.0"}); err != nil || h[0].Description.Limit != 5 {
				t.Errorf("%s: x@1.0 = %+v, %v", tc.row, h, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err %v, want %q", tc.row, err, tc.err)
		}
	}
}
