package budget

import (
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func TestSkillsOf(t *testing.T) {
	if SkillsOf(&probe.Capture{}, hosts.KnownSkills()) != nil {
		t.Error("skills rows for a server without the extension")
	}
	c := &probe.Capture{Skills: &probe.Skills{}}
	c.Skills.List.Items = [][]byte{
		[]byte(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"éé"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":1}]}`),
		[]byte(`{"uri":"skill://b/SKILL.md","frontmatter":{"name":"b","description":"dynamic one"},"resources":"dynamic"}`),
		[]byte(`{"uri":"skill://c/SKILL.md","frontmatter":{"name":"c","description":"no manifest"}}`),
	}
	rules := []hosts.SkillsRule{{ID: "i", Rule: "install"}, {ID: "n", Rule: "not_consumed"}, {ID: "u", Rule: "unknown"}}
	s := SkillsOf(c, rules)
	// only a is installable: a dynamic skill, or one without a manifest,
	// cannot be checked by digest, and an install host refuses it
	if s.Listed != 3 || s.Installable != 1 || s.NameDescUTF16 != 3 {
		t.Errorf("%+v", s)
	}
	if got := []int{s.Hosts[0].Delivered, s.Hosts[1].Delivered, s.Hosts[2].Delivered}; got[0] != 3 || got[1] != 0 || got[2] != 0 {
		t.Errorf("delivered %v", got)
	}
}
