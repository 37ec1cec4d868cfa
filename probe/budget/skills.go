package budget

import (
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// Skills is what each host that consumes the Skills extension (SEP-2640)
// delivers of a server's skills, by its rule (hosts.SkillsRule): nil for
// a server that does not declare the extension.
type Skills struct {
	Listed int // skills the server lists
	// Installable are the listed skills whose manifest lists their
	// files, which a host that installs by digest can install; the
	// others ("dynamic", or no manifest) it cannot.
	Installable int
	// NameDescUTF16 is the installable skills' names and descriptions
	// added up, in UTF-16 units: what an "install" host puts in its
	// system prompt once each is installed.
	NameDescUTF16 int
	Hosts         []SkillsHost
}

// SkillsHost is one host's row.
type SkillsHost struct {
	Rule hosts.SkillsRule
	// Delivered is, for an "install" host, the UTF-16 units of name and
	// description it delivers once every installable skill is installed;
	// 0 for the others.
	Delivered int
}

// SkillsOf works out the skills rows of a capture, for the hosts that
// consume skills (hosts.KnownSkills).
func SkillsOf(c *probe.Capture, rules []hosts.SkillsRule) *Skills {
	if c == nil || c.Skills == nil {
		return nil
	}
	s := &Skills{}
	for _, sk := range wire.Skills(c) {
		s.Listed++
		if sk.Dynamic || sk.Resources == nil || len(sk.Files) == 0 {
			continue
		}
		s.Installable++
		s.NameDescUTF16 += wire.UTF16Len(sk.Name) + wire.UTF16Len(sk.Description)
	}
	for _, r := range rules {
		h := SkillsHost{Rule: r}
		if r.Rule == "install" {
			h.Delivered = s.NameDescUTF16
		}
		s.Hosts = append(s.Hosts, h)
	}
	return s
}
