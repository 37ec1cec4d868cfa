package call

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/skillfile"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// SkillLoad is read --skill: the file read as a host loading a skill
// (SEP-2640) reads it, and its verification against the skills/list entry
// that lists it.
type SkillLoad struct {
	// Skill is the listing entry's uri (its SKILL.md); File what the
	// entry says of the file read.
	Skill string
	File  skillfile.Listed
	// Mismatches are how the content differs from the listing; Unread
	// says why there was no content to verify. Either refuses the skill.
	Mismatches []skillfile.Mismatch
	Unread     string
}

// Refused reports whether a host must not use the file: it differs from
// its listing, or could not be verified at all.
func (s *SkillLoad) Refused() bool { return len(s.Mismatches) > 0 || s.Unread != "" }

// Differed names what differed, in order ("digest", "size, digest"), or
// says there was nothing to verify.
func (s *SkillLoad) Differed() string {
	if s.Unread != "" {
		return "nothing to verify"
	}
	var w []string
	for _, m := range s.Mismatches {
		w = append(w, m.What)
	}
	return strings.Join(w, ", ")
}

// Problem is the refusal in one line, "" when the file was verified.
func (s *SkillLoad) Problem() string {
	if s.Unread != "" {
		return "nothing to verify: " + s.Unread
	}
	var p []string
	for _, m := range s.Mismatches {
		p = append(p, fmt.Sprintf("%s: %s (%s)", m.What, m.Detail, m.Clause))
	}
	return strings.Join(p, "; ")
}

// listedSkillFile lists the skills, as a host does before it loads one,
// and finds the entry that lists uri: the skill whose SKILL.md it is, or
// whose resources name it. Nothing is read yet.
func listedSkillFile(ctx context.Context, cl *probe.Client, uri string) (*SkillLoad, error) {
	if _, ok := probe.SkillsSetting(cl.Capture.Capabilities); !ok {
		return nil, probe.Optionf("--skill: the server does not declare the %s extension (SEP-2640), so no listing says what %s should hold; read it without --skill", probe.SkillsExtension, uri)
	}
	cl.ListSkillsOnly(ctx)
	skills := wire.Skills(cl.Capture)
	for _, e := range skills {
		load := &SkillLoad{Skill: e.URI, File: skillfile.Listed{URI: uri}}
		found := e.URI == uri
		if found {
			// An entry without frontmatter has nothing a SKILL.md
			// can match: the comparison refuses it.
			load.File.Frontmatter = e.Frontmatter
			if load.File.Frontmatter == nil {
				load.File.Frontmatter = []byte("null")
			}
		}
		for _, f := range e.Files {
			if f.URI == uri {
				found = true
				load.File.Digest, load.File.Size, load.File.HasSize = f.Digest, f.Size, f.HasSize
				if f.Digest == "" {
					// Listed without a digest: nothing proves the bytes.
					load.File.Digest = "(none)"
				}
				break
			}
		}
		if found {
			return load, nil
		}
	}
	if l := cl.Capture.Skills; l != nil && l.List.Error != "" {
		return nil, &probe.FatalError{What: "skills/list failed, so " + uri + " cannot be verified: " + l.List.Error, Try: "run mcpprobe wire on the server to see its skills"}
	}
	var listed []string
	for i, e := range skills {
		if i == 20 {
			listed = append(listed, fmt.Sprintf("… (%d in all)", len(skills)))
			break
		}
		listed = append(listed, fmt.Sprintf("%q", e.URI))
	}
	if len(listed) == 0 {
		listed = []string{"none"}
	}
	return nil, probe.Optionf("--skill: no skill that skills/list lists names %s among its files; the listed skills are %s", uri, strings.Join(listed, ", "))
}

// verifySkill checks what the read answered against the listing, and
// refuses the file (a finding) when a host must not use it.
func (r *Result) verifySkill() {
	s := r.Skill
	switch {
	case r.Error != nil:
		s.Unread = fmt.Sprintf("the read answered JSON-RPC error %d", r.Error.Code)
	case r.Result == nil:
		s.Unread = "the read got no result"
		if r.Unanswered != "" {
			s.Unread += ": " + r.Unanswered
		}
	default:
		b, why := skillfile.Content(r.Result, s.File.URI)
		if b == nil {
			s.Unread = why
			break
		}
		s.Mismatches = skillfile.Verify(s.File, b)
	}
	if s.Refused() {
		r.add(findings.SkillRefused, "fails verification against the skills/list entry of %s, so the skill is not loaded and no other file of it is read: %s", s.Skill, s.Problem())
	}
}
