package budget

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

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

func TestSum(t *testing.T) {
	hosts := []Host{host(t, "claude-code"), host(t, "codex"), host(t, "chatgpt-chat")}
	servers := []ServerTools{
		{Name: "alpha", Tools: []string{"search", "a.b"}, Tokens: 1000, Bytes: 300},
		{Name: "beta", Tools: []string{"search", "a_b"}, Tokens: 2500, Bytes: 700},
		{Name: "gamma", Tools: []string{strings.Repeat("l", 60)}, Tokens: 25000, Bytes: 9000},
	}
	got := Sum(servers, hosts)
	if got.Servers != 3 || got.Tools != 5 || got.Tokens != 28500 || got.Bytes != 10000 {
		t.Errorf("sums: %+v", got)
	}
	if len(got.Collisions) != 1 || got.Collisions[0].Name != "search" || len(got.Collisions[0].Tools) != 2 {
		t.Errorf("collisions: %+v", got.Collisions)
	}
	byID := map[string]HostTotal{}
	for _, h := range got.Hosts {
		byID[h.Host.ID] = h
	}
	cc := byID["claude-code"]
	if cc.Threshold != 20000 || cc.ToolSearch != "defers" || len(cc.Over) != 0 {
		t.Errorf("claude-code: %+v", cc)
	}
	// a.b and a_b of two servers stay apart under mcp__SERVER__ …
	if len(cc.Collisions) != 0 {
		t.Errorf("claude-code collisions: %+v", cc.Collisions)
	}
	cx := byID["codex"]
	if cx.ToolSearch != "defers" || len(cx.Over) != 1 || cx.Over[0].Server != "gamma" || cx.Over[0].Len != 72 {
		t.Errorf("codex: %+v", cx)
	}
	oa := byID["chatgpt-chat"]
	if oa.ToolSearch != "unknown" || len(oa.Over) != 1 || !oa.Over[0].Refused {
		t.Errorf("chatgpt: %+v", oa)
	}
	// Under the threshold, Claude Code loads every tool.
	small := Sum(servers[:2], hosts)
	if small.Hosts[0].ToolSearch != "loads" {
		t.Errorf("small: %+v", small.Hosts[0])
	}
	counts := map[findings.Code]int{}
	for _, f := range got.Findings() {
		counts[f.Code]++
	}
	if counts[findings.ToolNameCollision] != 1 || counts[findings.ToolNameOverLimit] != 2 || counts[findings.ToolSearchDeferral] != 2 {
		t.Errorf("findings: %v", counts)
	}
}

func TestSumHostCollisionFromReplacement(t *testing.T) {
	cc := host(t, "claude-code")
	got := Sum([]ServerTools{{Name: "s", Tools: []string{"a.b", "a_b"}}}, []Host{cc})
	if c := got.Hosts[0].Collisions; len(c) != 1 || c[0].Name != "mcp__s__a_b" {
		t.Errorf("got %+v", c)
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

func host(t *testing.T, id string) Host {
	t.Helper()
	h, ok := find(Known(), id)
	if !ok {
		t.Fatalf("no host %s", id)
	}
	return h
}
