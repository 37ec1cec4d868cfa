//go:build e2e

package main

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestCutHidesE2E is issue 28's done-when line: a 3,000-character
// description whose "Required: path." and "Never call on production."
// sit past 2,048 characters gets a lost-after-cut finding for the Claude
// Code versions that cut at 2,048 (2.1.197 to 2.1.295, picked with
// --host claude-code@VERSION), naming both, and none for the hosts that
// keep the whole text: today's Claude Code (4,096 since 2.1.296) among
// them, which delivers all 3,000 units.
func TestCutHidesE2E(t *testing.T) {
	r := mcpprobe(t, "budget", "--json", "--per-host-tools",
		"--host", "claude-code@2.1.280,claude-code@2.1.295,claude-code,cowork,claude-ai,chatgpt-chat,chatgpt-work,codex,all", "--", bin.good, "-cut-tool")
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
	if len(lost) != 2 {
		t.Fatalf("lost-after-cut findings for purge_cache: %q, want two (Claude Code 2.1.280's and 2.1.295's)", lost)
	}
	for i, v := range []string{"2.1.280", "2.1.295"} {
		for _, want := range []string{"the cut on Claude Code " + v + " hides", `required parameter "path"`, `"Required: path."`, `"Never call on production."`} {
			if !strings.Contains(lost[i], want) {
				t.Errorf("the finding lacks %s: %s", want, lost[i])
			}
		}
	}
	// The JSON names each rule and its words in the cut it hides them by;
	// today's Claude Code delivers the description whole.
	var hides, claude []string
	gjson.Get(r.stdout, "budget.hosts").ForEach(func(_, h gjson.Result) bool {
		h.Get("tools").ForEach(func(_, tl gjson.Result) bool {
			if tl.Get("name").String() == "purge_cache" {
				tl.Get("cut.hides").ForEach(func(_, x gjson.Result) bool {
					hides = append(hides, h.Get("host").String()+":"+x.Get("rule").String()+"="+x.Get("words").String())
					return true
				})
				if h.Get("host").String() == "claude-code" {
					claude = append(claude, tl.Get("delivered").String(), tl.Get("description_len").String(), tl.Get("delivered_len").String())
				}
			}
			return true
		})
		return true
	})
	want := "claude-code@2.1.280:required-param=path,claude-code@2.1.280:warning=Never," +
		"claude-code@2.1.295:required-param=path,claude-code@2.1.295:warning=Never,all:required-param=path,all:warning=Never"
	if strings.Join(hides, ",") != want {
		t.Errorf("hides %q, want %s\n%s", hides, want, gjson.Get(r.stdout, "budget.hosts.0.tools").Raw)
	}
	if got := strings.Join(claude, " "); got != "whole 3000 3000" {
		t.Errorf("claude-code (2.1.296 and later) delivers purge_cache as %q, want whole 3000 3000", got)
	}
}
