package reports

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/call"
)

// callSkillLine is read --skill's verdict on the file: verified against
// its listing, or refused with what differed.
func callSkillLine(st Style, s *call.SkillLoad) string {
	head := "skill " + plain(st, s.Skill) + ", file " + plain(st, s.File.URI) + ": "
	if s.Refused() {
		return head + "REFUSED, not loaded: " + plain(st, s.Problem())
	}
	what := ""
	if s.File.HasSize {
		what += fmt.Sprintf("size %d, ", s.File.Size)
	}
	if s.File.Digest != "" {
		what += "digest " + plain(st, Clip(s.File.Digest, 23)) + ", "
	}
	if s.File.Frontmatter != nil {
		what += "frontmatter field by field, "
	}
	return head + "verified against skills/list (" + what + "as listed): a host may load it"
}

// callSkillJSON is the call section's "skill" member, present with
// --skill only.
func callSkillJSON(o *Object, s *call.SkillLoad) {
	if s == nil {
		return
	}
	so := &Object{}
	so.Set("skill", s.Skill).Set("file", s.File.URI)
	so.Set("digest", nullIfEmpty(s.File.Digest))
	if s.File.HasSize {
		so.Set("size", s.File.Size)
	} else {
		so.Raw("size", nil)
	}
	so.Set("frontmatter_compared", s.File.Frontmatter != nil)
	so.Set("refused", s.Refused())
	so.Set("unread", nullIfEmpty(s.Unread))
	ms := make([][]byte, 0, len(s.Mismatches))
	for _, m := range s.Mismatches {
		mo := &Object{}
		mo.Set("what", m.What).Set("detail", m.Detail).Set("clause", m.Clause)
		ms = append(ms, mo.Bytes())
	}
	so.Raw("mismatches", RawArray(ms))
	o.Raw("skill", so.Bytes())
}
