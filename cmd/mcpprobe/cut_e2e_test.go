//go:build e2e

package main

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestCutHidesE2E is issue 28's done-when line: a 3,000-character
// description whose "Required: path." and "Never call on production."
// sit past 2,048 characters gets a lost-after-cut finding for Claude Code
// naming both, and none for the hosts that keep the whole text.
func TestCutHidesE2E(t *testing.T) {
	r := mcpprobe(t, "budget", "--json", "--", bin.good, "-cut-tool")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var lost []string
	gjson.Get(r.stdout, "findings").ForEach(func(_, f gjson.Result) bool {
		if f.Get("code").String() == "lost-after-cut" && f.Get("tool").String() == "purge_cache" {
			lost = append(lost, f.Get("message").String())
		}
		return true
	})
	if len(lost) != 1 {
		t.Fatalf("lost-after-cut findings for purge_cache: %q, want one (Claude Code's)", lost)
	}
	for _, want := range []string{"on Claude Code", `required parameter "path"`, `"Required: path."`, `"Never call on production."`} {
		if !strings.Contains(lost[0], want) {
			t.Errorf("the finding lacks %s: %s", want, lost[0])
		}
	}
	// The JSON names each rule and its words in the cut it hides them by.
	var hides []string
	gjson.Get(r.stdout, "budget.hosts").ForEach(func(_, h gjson.Result) bool {
		h.Get("tools").ForEach(func(_, tl gjson.Result) bool {
			if tl.Get("name").String() == "purge_cache" {
				tl.Get("cut.hides").ForEach(func(_, x gjson.Result) bool {
					hides = append(hides, h.Get("host").String()+":"+x.Get("rule").String()+"="+x.Get("words").String())
					return true
				})
			}
			return true
		})
		return true
	})
	want := "claude-code:required-param=path,claude-code:warning=Never,all:required-param=path,all:warning=Never"
	if strings.Join(hides, ",") != want {
		t.Errorf("hides %q, want %s\n%s", hides, want, gjson.Get(r.stdout, "budget.hosts.0.tools").Raw)
	}
}
