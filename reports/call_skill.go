package reports

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/call"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// callSkillLine is read --skill's verdict on the file: verified against
// its listing, or refused with what differed.
func callSkillLine(st terminal.Style, s *call.SkillLoad) string {
	head := "skill " + terminal.Plain(st, s.Skill) + ", file " + terminal.Plain(st, s.File.URI) + ": "
	if s.Refused() {
		return head + "REFUSED, not loaded: " + terminal.Plain(st, s.Problem())
	}
	what := ""
	if s.File.HasSize {
		what += fmt.Sprintf("size %d, ", s.File.Size)
	}
	if s.File.Digest != "" {
		what += "digest " + terminal.Plain(st, terminal.Clip(s.File.Digest, 23)) + ", "
	}
	if s.File.Frontmatter != nil {
		what += "frontmatter field by field, "
	}
	return head + "verified against skills/list (" + what + "as listed): a host may load it"
}

// callSkillJSON is the call section's "skill" member, present with
// --skill only.
func callSkillJSON(o *jsonout.Object, s *call.SkillLoad) {
	if s == nil {
		return
	}
	so := &jsonout.Object{}
	so.Set("skill", s.Skill).Set("file", s.File.URI)
	so.Set("digest", jsonout.NullIfEmpty(s.File.Digest))
	if s.File.HasSize {
		so.Set("size", s.File.Size)
	} else {
		so.Raw("size", nil)
	}
	so.Set("frontmatter_compared", s.File.Frontmatter != nil)
	so.Set("refused", s.Refused())
	so.Set("unread", jsonout.NullIfEmpty(s.Unread))
	ms := make([][]byte, 0, len(s.Mismatches))
	for _, m := range s.Mismatches {
		mo := &jsonout.Object{}
		mo.Set("what", m.What).Set("detail", m.Detail).Set("clause", m.Clause)
		ms = append(ms, mo.Bytes())
	}
	so.Raw("mismatches", jsonout.RawArray(ms))
	o.Raw("skill", so.Bytes())
}
