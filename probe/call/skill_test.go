package call

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/skillfile"
)

func TestVerifySkill(t *testing.T) {
	const md = "---\nname: a\ndescription: b\n---\nbody\n"
	listed := skillfile.Listed{URI: "skill://a/SKILL.md", Digest: skillfile.Digest([]byte(md)), Size: int64(len(md)), HasSize: true, Frontmatter: []byte(`{"name":"a","description":"b"}`)}
	text := func(s string) []byte {
		return []byte(`{"contents":[{"uri":"skill://a/SKILL.md","text":` + quote(s) + `}]}`)
	}
	for _, tc := range []struct {
		name    string
		r       Result
		refused string // words of the finding; "" for none
	}{
		{"verified", Result{Result: text(md)}, ""},
		{"digest", Result{Result: text(strings.Replace(md, "body", "evil", 1))}, "digest: the 36 bytes served hash to sha256:"},
		{"frontmatter", Result{Result: text(strings.Replace(md, "description: b", "description: c", 1))}, "frontmatter: the SKILL.md served differs"},
		{"a JSON-RPC error", Result{Error: &probe.RPCError{Code: -32002}}, "nothing to verify: the read answered JSON-RPC error -32002"},
		{"unanswered", Result{Unanswered: "timed out"}, "nothing to verify: the read got no result: timed out"},
		{"no content", Result{Result: []byte(`{"contents":[]}`)}, "nothing to verify: no contents[] entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			r.Name, r.Skill = listed.URI, &SkillLoad{Skill: listed.URI, File: listed}
			r.verifySkill()
			var got []string
			for _, f := range r.Findings() {
				if f.Code == findings.SkillRefused {
					got = append(got, f.Message)
				}
			}
			switch {
			case tc.refused == "" && (len(got) > 0 || r.Skill.Refused()):
				t.Errorf("refused: %q", got)
			case tc.refused != "" && (len(got) != 1 || !strings.Contains(got[0], tc.refused) || !r.Skill.Refused()):
				t.Errorf("findings %q, want one with %q", got, tc.refused)
			case tc.refused != "" && !strings.Contains(got[0], "fails verification against the skills/list entry of skill://a/SKILL.md"):
				t.Errorf("the finding names no file: %q", got[0])
			}
		})
	}
}
