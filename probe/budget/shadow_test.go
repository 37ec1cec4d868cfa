package budget

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

func TestShadows(t *testing.T) {
	for _, c := range []struct {
		name    string
		a, b    ServerTools
		why     string // "" is no shadow
		message []string
	}{
		{"digit one for l", ServerTools{Name: "a", Tools: []string{"read_file"}}, ServerTools{Name: "b", Tools: []string{"read_fi1e"}},
			"confusable", []string{"`read_file` of server `a` and `read_fi1e` of server `b`", `"1" (U+0031) for "l" (U+006C)`, "skeleton, `read_file`"}},
		{"cyrillic a", ServerTools{Name: "a", Tools: []string{"search"}}, ServerTools{Name: "b", Tools: []string{"se\u0430rch"}},
			"confusable", []string{"(U+0430) for \"a\" (U+0061)"}},
		{"rn for m", ServerTools{Name: "a", Tools: []string{"memory"}}, ServerTools{Name: "b", Tools: []string{"rnemory"}}, "confusable", nil},
		{"fullwidth", ServerTools{Name: "a", Tools: []string{"fetch"}}, ServerTools{Name: "b", Tools: []string{"ｆetch"}}, "confusable", nil},
		{"one edit", ServerTools{Name: "a", Tools: []string{"get_user"}}, ServerTools{Name: "b", Tools: []string{"get_users"}},
			"one-edit", []string{"short names one edit apart"}},
		{"swap", ServerTools{Name: "a", Tools: []string{"list_tags"}}, ServerTools{Name: "b", Tools: []string{"list_tgas"}}, "one-edit", nil},
		{"long names one edit apart are not looked at", ServerTools{Name: "a", Tools: []string{"list_repository_branches"}},
			ServerTools{Name: "b", Tools: []string{"list_repository_branch"}}, "", nil},
		{"two edits", ServerTools{Name: "a", Tools: []string{"get_user"}}, ServerTools{Name: "b", Tools: []string{"get_userss"}}, "", nil},
		{"equal names are the collision's", ServerTools{Name: "a", Tools: []string{"search"}}, ServerTools{Name: "b", Tools: []string{"search"}}, "", nil},
		{"a.b and a_b are a host's collision", ServerTools{Name: "a", Tools: []string{"a.bc"}}, ServerTools{Name: "b", Tools: []string{"a_bc"}}, "", nil},
		{"same server", ServerTools{Name: "a", Tools: []string{"get_user", "get_users"}}, ServerTools{Name: "b"}, "", nil},
		{"same job",
			ServerTools{Name: "web", Tools: []string{"web_search"}, Descriptions: []string{"Search the web for pages matching a query and return titles, links and snippets."}},
			ServerTools{Name: "brave", Tools: []string{"brave_lookup"}, Descriptions: []string{"Search the web for pages matching your query; returns titles, snippets and links."}},
			"same-job", []string{"claim the same job", "Jaccard"}},
		{"different jobs",
			ServerTools{Name: "fs", Tools: []string{"read_text"}, Descriptions: []string{"Read the complete contents of a file from the file system as text."}},
			ServerTools{Name: "gh", Tools: []string{"create_issue"}, Descriptions: []string{"Create a new issue in a GitHub repository with a title and body."}},
			"", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := shadows([]ServerTools{c.a, c.b})
			if c.why == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Why != c.why {
				t.Fatalf("got %+v, want one %s", got, c.why)
			}
			for _, m := range c.message {
				if !strings.Contains(got[0].message(), m) {
					t.Errorf("message %q lacks %q", got[0].message(), m)
				}
			}
		})
	}
}

func TestShadowFindingNamesBothServers(t *testing.T) {
	tot := Sum([]ServerTools{{Name: "files", Tools: []string{"read_file"}}, {Name: "other", Tools: []string{"read_fi1e"}}}, nil)
	var n int
	for _, f := range tot.Findings() {
		if f.Code == findings.ToolShadowing {
			n++
			if !strings.Contains(f.Message, "`files`") || !strings.Contains(f.Message, "`other`") {
				t.Errorf("message: %s", f.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d tool-shadowing findings, want 1", n)
	}
}

func TestShadowsCapped(t *testing.T) {
	var a, b ServerTools
	a.Name, b.Name = "a", "b"
	for i := 0; i < 12; i++ {
		for j := 0; j < 12; j++ {
			a.Tools = append(a.Tools, fmt.Sprintf("t%02d%02dx", i, j))
			b.Tools = append(b.Tools, fmt.Sprintf("t%02d%02dy", i, j))
		}
	}
	tot := Sum([]ServerTools{a, b}, nil)
	// each of a's 144 names is one edit from b's same-numbered name
	if len(tot.Shadows) != maxShadows || tot.ShadowsMore != 144-maxShadows {
		t.Fatalf("shadows %d, more %d", len(tot.Shadows), tot.ShadowsMore)
	}
	fs := tot.Findings()
	if last := fs[len(fs)-1]; last.Code != findings.ToolShadowing || !strings.HasPrefix(last.Message, "44 more pairs") {
		t.Errorf("last finding: %+v", last)
	}
}
