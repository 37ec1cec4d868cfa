package wire

import (
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// Skill is one entry of a server's skills/list (the Skills extension,
// SEP-2640), with the facts read from it. Frontmatter and Resources are
// the bytes as listed; the rest is derived from them.
type Skill struct {
	URI            string
	Name           string // frontmatter.name, "" when absent or not a string
	Description    string // frontmatter.description, likewise
	HasName        bool
	HasDescription bool
	Raw            []byte // the entry as listed
	Frontmatter    []byte // nil when absent
	Resources      []byte // the manifest as listed: an array, "dynamic", or nil when absent
	Dynamic        bool   // resources is "dynamic"
	Files          []SkillFile
	Bytes          int64           // the sizes of Files added up
	Get            *probe.SkillGet // nil when not asked (past probe.MaxSkillGets)
}

// SkillFile is one entry of a skill's manifest.
type SkillFile struct {
	URI     string
	Digest  string
	Size    int64
	HasSize bool // size is a non-negative integer
	Raw     []byte
}

// Skills reads the skills a capture listed, in the server's order; nil
// when the server does not declare the extension.
func Skills(c *probe.Capture) []Skill {
	if c == nil || c.Skills == nil {
		return nil
	}
	gets := map[string]*probe.SkillGet{}
	for i := range c.Skills.Gets {
		g := &c.Skills.Gets[i]
		if _, ok := gets[g.URI]; !ok {
			gets[g.URI] = g
		}
	}
	out := make([]Skill, 0, len(c.Skills.List.Items))
	for _, raw := range c.Skills.List.Items {
		out = append(out, ReadSkill(raw, gets))
	}
	return out
}

// ReadSkill reads one skill entry (of skills/list or skills/get); gets,
// when given, supplies its skills/get by uri.
func ReadSkill(raw []byte, gets map[string]*probe.SkillGet) Skill {
	v := gjson.ParseBytes(raw)
	s := Skill{Raw: raw, URI: v.Get("uri").String()}
	if g, ok := gets[s.URI]; ok && v.Get("uri").Type == gjson.String {
		s.Get = g
	}
	if fm := v.Get("frontmatter"); fm.Exists() {
		s.Frontmatter = member(raw, "frontmatter")
		if n := fm.Get("name"); n.Type == gjson.String {
			s.Name, s.HasName = n.String(), true
		}
		if d := fm.Get("description"); d.Type == gjson.String {
			s.Description, s.HasDescription = d.String(), true
		}
	}
	res := v.Get("resources")
	if !res.Exists() {
		return s
	}
	s.Resources = member(raw, "resources")
	s.Dynamic = res.Type == gjson.String && res.String() == "dynamic"
	if !res.IsArray() {
		return s
	}
	for _, f := range res.Array() {
		sf := SkillFile{URI: f.Get("uri").String(), Digest: f.Get("digest").String(), Raw: []byte(f.Raw)}
		if sz := f.Get("size"); sz.Type == gjson.Number && sz.Num >= 0 && sz.Num == float64(int64(sz.Num)) {
			sf.Size, sf.HasSize = int64(sz.Num), true
			s.Bytes += sf.Size
		}
		s.Files = append(s.Files, sf)
	}
	return s
}
