package budget

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func TestSum(t *testing.T) {
	hs := []hosts.Host{hostByID(t, "claude-code"), hostByID(t, "codex"), hostByID(t, "chatgpt-chat")}
	servers := []ServerTools{
		{Name: "alpha", Tools: []string{"search", "a.b"}, Tokens: 1000, Bytes: 300},
		{Name: "beta", Tools: []string{"search", "a_b"}, Tokens: 2500, Bytes: 700},
		{Name: "gamma", Tools: []string{strings.Repeat("l", 60)}, Tokens: 25000, Bytes: 9000},
	}
	got := Sum(servers, hs)
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
	small := Sum(servers[:2], hs)
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
	cc := hostByID(t, "claude-code")
	got := Sum([]ServerTools{{Name: "s", Tools: []string{"a.b", "a_b"}}}, []hosts.Host{cc})
	if c := got.Hosts[0].Collisions; len(c) != 1 || c[0].Name != "mcp__s__a_b" {
		t.Errorf("got %+v", c)
	}
}
