package check

// The Skills extension's checks (SEP-2640, io.modelcontextprotocol/skills):
// their clauses, ids and judges. skills_run.go makes their exchanges. A
// server that does not declare the extension gets not-applicable from
// each: the extension is optional.

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/mcpprobe/mcpprobe/probe/skillfile"
	pwire "github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/tidwall/gjson"
)

// skillsRev is what a skills clause cites as its revision: the
// extension's identifier, whose text is SEP-2640 (Extensions Track, Final).
const skillsRev = probe.SkillsExtension + " (SEP-2640)"

const skillsSEP = "https://modelcontextprotocol.io/seps/2640-skills-extension"

// The clauses, read in the SEP's text (modelcontextprotocol/experimental-ext-skills
// docs/sep-draft-skills-extension.md, synced with the canonical SEP) and in
// the official suite's sep-2640 scenarios (0.2.0-alpha.12), which quote
// the Final text where it adds to the draft (size, "dynamic", resources).
var (
	skillsCapability = &Clause{Version: skillsRev, Section: "Capability Declaration", URL: skillsSEP + "#capability-declaration", Keyword: "MUST", Binds: "server",
		Text: "A server declaring this extension MUST also declare the resources capability, because skill files are served through resources/read. […] An empty object indicates support for the extension with no optional features."}
	skillsList = &Clause{Version: skillsRev, Section: "Enumeration via skills/list", URL: skillsSEP + "#enumeration-via-skillslist", Keyword: "MUST", Binds: "server",
		Text: "A server declaring the io.modelcontextprotocol/skills extension MUST implement the skills/list method […] Result fields: skills, skills[].frontmatter, skills[].uri, skills[].resources (required) […] An entry is atomic — a skill's resources set is never split across pages. […] When present, resources MUST be complete: it lists every file of the skill, each exactly once, including an entry matching the skill's top-level uri. Each uri MUST be the skill's SKILL.md or a file within the skill's directory."}
	skillsGet = &Clause{Version: skillsRev, Section: "Retrieval via skills/get", URL: skillsSEP + "#retrieval-via-skillsget", Keyword: "MUST", Binds: "server",
		Text: "A server declaring the io.modelcontextprotocol/skills extension MUST also implement the skills/get method […] If the URI does not identify a skill the server serves, the server MUST return error -32602 (Invalid params). […] The result carries no pagination cursor: a single entry is not a list."}
	skillsFrontmatter = &Clause{Version: skillsRev, Section: "Frontmatter", URL: skillsSEP + "#frontmatter", Keyword: "MUST", Binds: "server",
		Text: "SKILL.md MUST begin with YAML frontmatter containing at minimum the name and description fields […] The frontmatter object MUST be identical in content to the frontmatter of the SKILL.md it describes."}
	skillsURI = &Clause{Version: skillsRev, Section: "Resource Mapping", URL: skillsSEP + "#resource-mapping", Keyword: "MUST", Binds: "server",
		Text: "The final segment of <skill-path> MUST equal the skill's name as declared in its SKILL.md frontmatter. […] The final <skill-path> segment, being the skill name, MUST satisfy the Agent Skills specification's naming rules."}
	skillsDigest = &Clause{Version: skillsRev, Section: "Integrity and verification", URL: skillsSEP + "#integrity-and-verification", Keyword: "MUST", Binds: "server",
		Text: "Digests are SHA-256 hashes of an artifact's raw bytes, formatted as sha256:{hex} where {hex} is 64 lowercase hexadecimal characters. Each entry in a skill's resources carries the digest of the file at its uri."}
	skillsSize = &Clause{Version: skillsRev, Section: "Resources", URL: skillsSEP + "#resources", Keyword: "MUST", Binds: "server",
		Text: "Each entry MUST carry size: the length in bytes of the file's raw content — the same bytes the digest covers."}
	skillsDirectory = &Clause{Version: skillsRev, Section: "Directory Listing", URL: skillsSEP + "#directory-listing", Keyword: "MUST", Binds: "server",
		Text: "A server that declares directoryRead MUST support the method for every directory within the skill namespaces it serves as individual files. […] If the URI does not exist, or exists but is not a directory resource, the server MUST return error -32602 […] subdirectories listed as directory resources (mimeType: \"inode/directory\"). […] Pagination mirrors resources/list."}
	skillsCache = &Clause{Version: skillsRev, Section: "Enumeration via skills/list", URL: skillsSEP + "#enumeration-via-skillslist", Keyword: "MUST", Binds: "server",
		Text: "In protocol versions 2026-07-28 and later, the result also carries the base protocol's list-caching attributes — ttlMs and cacheScope, as defined for tools/list and resources/list (SEP-2549) — with the same semantics. (skills/get: whether the result should also carry them is left open.) The keyword is the base protocol's, which the sentence carries over: 2026-07-28 server/utilities/caching, \"Servers MUST provide a `ttlMs` value that is `>= 0`.\""}
)

// The ids of the skills checks: the side-by-side table maps the official
// suite's sep-2640 scenarios to them.
const (
	IDSkillsCapability  = "skills.capability"
	IDSkillsList        = "skills.list"
	IDSkillsGet         = "skills.get"
	IDSkillsFrontmatter = "skills.frontmatter"
	IDSkillsURI         = "skills.uri"
	IDSkillsDigest      = "skills.digest"
	IDSkillsSize        = "skills.size"
	IDSkillsDirectory   = "skills.directory"
	IDSkillsCacheHints  = "skills.cache-hints"
)

func skillsCheck(id, title string, c *Clause) Check {
	return Check{ID: id, Title: title, Eras: both, Transports: anyTransport, Clauses: map[string]*Clause{Legacy: c, Modern: c}}
}

var skillsRegistry = sync.OnceValue(func() []Check {
	return []Check{
		skillsCheck(IDSkillsCapability, "a server declaring the Skills extension declares resources too, with a settings object", skillsCapability),
		skillsCheck(IDSkillsList, "skills/list answers entries with uri, frontmatter and a complete resources list, paged without splitting an entry", skillsList),
		skillsCheck(IDSkillsGet, "skills/get answers each listed skill's entry, no cursor, and -32602 for a URI that is no skill", skillsGet),
		skillsCheck(IDSkillsFrontmatter, "each entry's frontmatter has name and description, identical to the SKILL.md served", skillsFrontmatter),
		skillsCheck(IDSkillsURI, "each skill's URI ends in <name>/SKILL.md, the name following the Agent Skills naming rules", skillsURI),
		skillsCheck(IDSkillsDigest, "every listed file read back hashes to its listed sha256 digest", skillsDigest),
		skillsCheck(IDSkillsSize, "every listed file read back is as long as its listed size", skillsSize),
		skillsCheck(IDSkillsDirectory, "resources/directory/read (behind directoryRead) lists a skill's directory, pages, and refuses a file with -32602", skillsDirectory),
		{ID: IDSkillsCacheHints, Title: "skills/list results carry ttlMs and cacheScope on 2026-07-28 connections", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: skillsCache}, NotIn: map[string]string{Legacy: "ttlMs and cacheScope are " + modernOnly}},
	}
})

// SkillFileRead is one listed file read back with resources/read.
type SkillFileRead struct {
	URI   string
	X     Exchange
	Bytes []byte // the content's bytes: text as UTF-8, blob decoded; nil if none
	Why   string // why there are no bytes, when there are none
}

// SkillsSeen is what the skills checks judge, all from one connection.
type SkillsSeen struct {
	Era      string
	Caps     []byte
	First    Exchange      // skills/list, first page, asked by the check
	Skills   *probe.Skills // the whole listing and each skills/get (probe.Client.ListSkills)
	Unknown  Exchange      // skills/get of a URI no server serves
	Reads    []SkillFileRead
	NotRead  int    // listed files not read: past the bounds
	Bounds   string // which bound stopped the reads, for people
	Dir      []Exchange
	DirURI   string   // the skill directory read
	DirFile  Exchange // resources/directory/read of a file: -32602 expected
	DirFileU string
}

// UnknownSkillURI is what skills/get is asked for to see -32602: no
// server serves it.
const UnknownSkillURI = "skill://mcpprobe-no-such-skill-7c1e/SKILL.md"

func notDeclaredSkills(era string) []Verdict {
	var out []Verdict
	for _, c := range skillsRegistry() {
		if c.Judges(era) {
			out = append(out, notApplicable(c.ID, era, "the server does not declare the "+probe.SkillsExtension+" extension (optional)"))
		}
	}
	return out
}

// JudgeSkills gives every skills verdict of one era.
func JudgeSkills(s SkillsSeen) []Verdict {
	if _, ok := probe.SkillsSetting(s.Caps); !ok {
		return notDeclaredSkills(s.Era)
	}
	entries := s.entries()
	vs := []Verdict{
		s.judgeCapability(),
		s.judgeList(entries),
		s.judgeGet(entries),
		s.judgeFrontmatter(entries),
		s.judgeURI(entries),
		s.judgeFiles(entries, IDSkillsDigest),
		s.judgeFiles(entries, IDSkillsSize),
		s.judgeDirectory(),
	}
	if s.Era == Modern {
		vs = append(vs, s.judgeCache())
	}
	return vs
}

func (s SkillsSeen) entries() []pwire.Skill {
	if s.Skills == nil {
		return nil
	}
	gets := map[string]*probe.SkillGet{}
	for i := range s.Skills.Gets {
		g := &s.Skills.Gets[i]
		if _, ok := gets[g.URI]; !ok {
			gets[g.URI] = g
		}
	}
	var out []pwire.Skill
	for _, raw := range s.Skills.List.Items {
		out = append(out, pwire.ReadSkill(raw, gets))
	}
	return out
}

func (s SkillsSeen) listed() bool {
	return s.First.Err == nil && s.First.NoReply == "" && gjson.GetBytes(s.First.Result, "skills").IsArray()
}

func (s SkillsSeen) judgeCapability() Verdict {
	setting, _ := probe.SkillsSetting(s.Caps)
	x := Exchange{Method: "capabilities", Raw: s.Caps}
	switch {
	case !gjson.ParseBytes(setting).IsObject():
		return verdict(IDSkillsCapability, s.Era, skillsCapability, Fail, x, fmt.Sprintf("capabilities.extensions[%q] is %s, not a settings object (an empty object declares the extension with no optional features)", probe.SkillsExtension, bound(string(setting))))
	case !declared(s.Caps, "resources"):
		return verdict(IDSkillsCapability, s.Era, skillsCapability, Fail, x, "the server declares the Skills extension but not the resources capability, through whose resources/read skill files are served")
	}
	return verdict(IDSkillsCapability, s.Era, skillsCapability, Pass, x, "declares the extension with a settings object, and resources")
}

// dirOf is a SKILL.md URI's skill directory, "" when the URI does not end
// in /SKILL.md.
func dirOf(uri string) string {
	d, ok := strings.CutSuffix(uri, "/SKILL.md")
	if !ok || !strings.Contains(d, "://") || strings.HasSuffix(d, "://") {
		return ""
	}
	return d
}

func (s SkillsSeen) judgeList(entries []pwire.Skill) Verdict {
	id, c := IDSkillsList, skillsList
	if !s.listed() {
		if s.First.NoReply != "" && s.First.NoReply != "closed" {
			return noReply(id, s.Era, s.First)
		}
		return verdict(id, s.Era, c, Fail, s.First, "skills/list did not answer a skills array; a server declaring the extension MUST implement it")
	}
	var bad []string
	l := s.Skills.List
	if l.Error != "" {
		bad = append(bad, "the listing stopped: "+l.Error)
	}
	pageOf := map[string]int{}
	for _, p := range l.Pages {
		for _, it := range gjson.GetBytes(p.Result, "skills").Array() {
			u := it.Get("uri").String()
			if first, ok := pageOf[u]; ok && first != p.N {
				bad = append(bad, fmt.Sprintf("%s is on pages %d and %d: an entry is atomic", u, first, p.N))
			} else if ok {
				bad = append(bad, fmt.Sprintf("%s is listed twice on page %d", u, p.N))
			}
			pageOf[u] = p.N
		}
	}
	for i, e := range entries {
		label := e.URI
		if label == "" {
			label = fmt.Sprintf("skills[%d]", i)
		}
		v := gjson.ParseBytes(e.Raw)
		switch {
		case v.Get("uri").Type != gjson.String || e.URI == "":
			bad = append(bad, label+": no uri string")
		case !v.Get("frontmatter").IsObject():
			bad = append(bad, label+": frontmatter is not an object")
		}
		switch {
		case e.Resources == nil:
			bad = append(bad, label+": no resources (an array, or \"dynamic\")")
		case e.Dynamic:
		case !gjson.ParseBytes(e.Resources).IsArray():
			bad = append(bad, label+": resources is neither an array nor \"dynamic\"")
		default:
			seen, own := map[string]bool{}, false
			dir := dirOf(e.URI)
			for _, f := range e.Files {
				if seen[f.URI] {
					bad = append(bad, label+": lists "+f.URI+" twice")
				}
				seen[f.URI] = true
				own = own || f.URI == e.URI
				if dir != "" && f.URI != e.URI && !strings.HasPrefix(f.URI, dir+"/") {
					bad = append(bad, label+": "+f.URI+" is outside the skill's directory "+dir)
				}
			}
			if !own {
				bad = append(bad, label+": resources has no entry for the skill's own SKILL.md")
			}
		}
	}
	x := s.First
	if len(bad) > 0 {
		return verdict(id, s.Era, c, Fail, x, few(bad))
	}
	return verdict(id, s.Era, c, Pass, x, fmt.Sprintf("%d skill(s) in %d page(s), each entry whole with its resources", len(entries), len(l.Pages)))
}

// few joins the first five problems, counting the rest.
func few(bad []string) string {
	if len(bad) <= 5 {
		return strings.Join(bad, "; ")
	}
	return strings.Join(bad[:5], "; ") + fmt.Sprintf(" (and %d more)", len(bad)-5)
}

func (s SkillsSeen) judgeGet(entries []pwire.Skill) Verdict {
	id, c := IDSkillsGet, skillsGet
	var bad, observed []string
	var shown Exchange
	asked := 0
	for _, e := range entries {
		g := e.Get
		if g == nil {
			continue
		}
		asked++
		x := Exchange{Method: "skills/get", Params: `"uri":` + quoteJSON(g.URI), Raw: g.Raw, Result: g.Result}
		if shown.Method == "" {
			shown = x
		}
		if g.Error != "" {
			bad = append(bad, fmt.Sprintf("skills/get %s: %s", g.URI, g.Error))
			shown = x
			continue
		}
		r := gjson.ParseBytes(g.Result)
		sk := r.Get("skill")
		switch {
		case !sk.IsObject():
			bad = append(bad, "skills/get "+g.URI+": no skill object")
		case sk.Get("uri").String() != g.URI:
			bad = append(bad, fmt.Sprintf("skills/get %s answered the skill at %s", g.URI, bound(sk.Get("uri").String())))
		case !sk.Get("frontmatter").IsObject() || !(sk.Get("resources").IsArray() || sk.Get("resources").String() == "dynamic"):
			bad = append(bad, "skills/get "+g.URI+": the entry lacks frontmatter or resources")
		case r.Get("nextCursor").Exists():
			bad = append(bad, "skills/get "+g.URI+" carries a nextCursor: a single entry is not a list")
		case !bytes.Equal(canon.JSON([]byte(sk.Raw)), canon.JSON(e.Raw)):
			observed = append(observed, g.URI)
		}
		if len(bad) > 0 && shown.Raw == nil {
			shown = x
		}
	}
	unknown := s.Unknown
	switch {
	case unknown.Method == "":
	case unknown.Err != nil && unknown.Err.Code == -32602:
	case unknown.Err != nil:
		bad = append(bad, fmt.Sprintf("skills/get of %s (no skill) answered %d, not -32602", UnknownSkillURI, unknown.Err.Code))
	case unknown.NoReply != "":
		bad = append(bad, "skills/get of "+UnknownSkillURI+" (no skill): no reply ("+unknown.NoReply+")")
	default:
		bad = append(bad, "skills/get of "+UnknownSkillURI+" (no skill) answered a result, not -32602")
	}
	if len(bad) > 0 {
		if shown.Method == "" || strings.Contains(bad[0], UnknownSkillURI) {
			shown = unknown
		}
		return verdict(id, s.Era, c, Fail, shown, few(bad))
	}
	if asked == 0 {
		if len(entries) == 0 && s.listed() {
			return verdict(id, s.Era, c, Pass, unknown, "the listing is empty (which it MAY be); skills/get of a URI that is no skill answered -32602")
		}
		return inconclusive(id, s.Era, c, "no listed skill to ask skills/get for")
	}
	why := fmt.Sprintf("skills/get answered each of %d listed skill(s), and -32602 for a URI that is no skill", asked)
	if len(observed) > 0 {
		why += fmt.Sprintf("; %d answer(s) differ from the listed entry (%s): each is a point-in-time snapshot, so observed, not judged", len(observed), few(observed))
	}
	return verdict(id, s.Era, c, Pass, shown, why)
}

// readOf is the read of uri, if one was made.
func (s SkillsSeen) readOf(uri string) (SkillFileRead, bool) {
	for _, r := range s.Reads {
		if r.URI == uri {
			return r, true
		}
	}
	return SkillFileRead{}, false
}

func (s SkillsSeen) judgeFrontmatter(entries []pwire.Skill) Verdict {
	id, c := IDSkillsFrontmatter, skillsFrontmatter
	if len(entries) == 0 {
		return inconclusive(id, s.Era, c, "no skill is listed, so there is no frontmatter to judge")
	}
	var bad []string
	var shown Exchange
	compared := 0
	for _, e := range entries {
		switch {
		case e.Frontmatter == nil:
			bad = append(bad, e.URI+": the entry has no frontmatter")
			continue
		case !e.HasName || e.Name == "" || !e.HasDescription || e.Description == "":
			bad = append(bad, e.URI+": the entry's frontmatter lacks a non-empty name or description")
			continue
		}
		r, ok := s.readOf(e.URI)
		if !ok || r.Bytes == nil {
			continue
		}
		if shown.Method == "" {
			shown = r.X
		}
		fm, err := skillfile.ParseFrontmatter(r.Bytes)
		if err != nil {
			bad = append(bad, e.URI+": "+err.Error())
			shown = r.X
			continue
		}
		compared++
		if diffs := skillfile.FrontmatterDiff(fm, e.Frontmatter); len(diffs) > 0 {
			bad = append(bad, e.URI+": the listed frontmatter differs from the SKILL.md served: "+few(diffs))
			shown = r.X
		}
	}
	if len(bad) > 0 {
		return verdict(id, s.Era, c, Fail, shown, few(bad))
	}
	if compared == 0 {
		return inconclusive(id, s.Era, c, "no SKILL.md could be read back to compare its frontmatter with the listing")
	}
	return verdict(id, s.Era, c, Pass, shown, fmt.Sprintf("%d SKILL.md frontmatter(s) parsed and identical, field by field, to the listed entries", compared))
}

// skillName is the Agent Skills naming rule: 1–64 characters, lowercase
// letters, digits and hyphens, no leading, trailing or double hyphen.
// Compiled on first use: its {0,62} made it most of the package's init.
var skillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`) })

func (s SkillsSeen) judgeURI(entries []pwire.Skill) Verdict {
	id, c := IDSkillsURI, skillsURI
	if len(entries) == 0 {
		return inconclusive(id, s.Era, c, "no skill is listed, so there is no URI to judge")
	}
	var bad, other []string
	for _, e := range entries {
		dir := dirOf(e.URI)
		if dir == "" {
			bad = append(bad, bound(e.URI)+" does not end in <skill-path>/SKILL.md")
			continue
		}
		last := dir[strings.LastIndex(dir, "/")+1:]
		if i := strings.Index(dir, "://"); i >= 0 && !strings.Contains(dir[i+3:], "/") {
			last = dir[i+3:]
		}
		switch {
		case e.HasName && last != e.Name:
			bad = append(bad, fmt.Sprintf("%s: final segment %q is not frontmatter.name %q", e.URI, last, bound(e.Name)))
		case !skillName().MatchString(last):
			bad = append(bad, fmt.Sprintf("%s: name %q breaks the Agent Skills naming rules", e.URI, last))
		}
		if !strings.HasPrefix(e.URI, "skill://") {
			other = append(other, e.URI)
		}
	}
	x := Exchange{Method: "skills/list", Raw: s.First.Raw}
	if len(bad) > 0 {
		return verdict(id, s.Era, c, Fail, x, few(bad))
	}
	why := fmt.Sprintf("each of %d skill URI(s) ends in <name>/SKILL.md with a valid name", len(entries))
	if len(other) > 0 {
		why += "; some use another scheme than skill:// (SHOULD use it, but no scheme is privileged): " + few(other)
		return verdict(id, s.Era, c, Warn, x, why)
	}
	return verdict(id, s.Era, c, Pass, x, why)
}

// digestForm is sha256: and 64 lowercase hex digits.
var digestForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// judgeFiles judges digests (IDSkillsDigest) or sizes (IDSkillsSize)
// against the files read back.
func (s SkillsSeen) judgeFiles(entries []pwire.Skill, id string) Verdict {
	c := skillsDigest
	if id == IDSkillsSize {
		c = skillsSize
	}
	var bad []string
	var shown Exchange
	verified, listed, unread := 0, 0, 0
	for _, e := range entries {
		for _, f := range e.Files {
			listed++
			if id == IDSkillsDigest && !digestForm().MatchString(f.Digest) {
				bad = append(bad, fmt.Sprintf("%s: digest %s is not sha256:{64 lowercase hex}", f.URI, bound(f.Digest)))
				continue
			}
			if id == IDSkillsSize && !f.HasSize {
				bad = append(bad, fmt.Sprintf("%s: size %s is not a non-negative integer", f.URI, bound(gjson.GetBytes(f.Raw, "size").Raw)))
				continue
			}
			r, ok := s.readOf(f.URI)
			if !ok {
				continue
			}
			if r.Bytes == nil {
				unread++
				if shown.Method == "" {
					shown = r.X
				}
				continue
			}
			verified++
			if id == IDSkillsDigest {
				if got := skillfile.Digest(r.Bytes); got != f.Digest {
					bad = append(bad, fmt.Sprintf("%s: the %d bytes served hash to %s, the listing publishes %s", f.URI, len(r.Bytes), got, f.Digest))
					shown = r.X
				}
			} else if int64(len(r.Bytes)) != f.Size {
				bad = append(bad, fmt.Sprintf("%s: %d bytes served, the listing publishes size %d", f.URI, len(r.Bytes), f.Size))
				shown = r.X
			}
		}
	}
	what := "digest"
	if id == IDSkillsSize {
		what = "size"
	}
	if len(bad) > 0 {
		if shown.Method == "" {
			shown = Exchange{Method: "skills/list", Raw: s.First.Raw}
		}
		return verdict(id, s.Era, c, Fail, shown, few(bad))
	}
	note := ""
	if s.NotRead > 0 {
		note = fmt.Sprintf("; %d listed file(s) not read (%s)", s.NotRead, s.Bounds)
	}
	if unread > 0 {
		note += fmt.Sprintf("; %d listed file(s) read without content", unread)
	}
	if verified == 0 {
		if listed == 0 {
			return inconclusive(id, s.Era, c, "no skill lists a file (an empty listing, or every skill \"dynamic\")")
		}
		return inconclusive(id, s.Era, c, "no listed file could be read back to verify"+note)
	}
	if unread > 0 {
		return verdict(id, s.Era, c, Fail, shown, fmt.Sprintf("%d listed file(s) could not be read back with resources/read%s", unread, note))
	}
	return verdict(id, s.Era, c, Pass, shown, fmt.Sprintf("every one of %d listed file(s) read back matches its listed %s%s", verified, what, note))
}

func (s SkillsSeen) judgeDirectory() Verdict {
	id, c := IDSkillsDirectory, skillsDirectory
	setting, _ := probe.SkillsSetting(s.Caps)
	if gjson.GetBytes(setting, "directoryRead").Type != gjson.True {
		return notApplicable(id, s.Era, "the server does not declare directoryRead: true (resources/directory/read is optional)")
	}
	if s.DirURI == "" {
		return inconclusive(id, s.Era, c, "no listed skill gives a directory to read")
	}
	var bad []string
	children := 0
	for i, x := range s.Dir {
		switch {
		case x.Err != nil || x.NoReply != "":
			bad = append(bad, fmt.Sprintf("resources/directory/read %s page %d: %s", s.DirURI, i+1, x.got()))
		case !gjson.GetBytes(x.Result, "resources").IsArray():
			bad = append(bad, fmt.Sprintf("resources/directory/read %s page %d has no resources array", s.DirURI, i+1))
		default:
			for _, r := range gjson.GetBytes(x.Result, "resources").Array() {
				children++
				if r.Get("uri").Type != gjson.String {
					bad = append(bad, "a child has no uri")
				}
			}
		}
	}
	f := s.DirFile
	switch {
	case f.Method == "":
	case f.Err != nil && f.Err.Code == -32602:
	case f.Err != nil:
		bad = append(bad, fmt.Sprintf("resources/directory/read of the file %s answered %d, not -32602", s.DirFileU, f.Err.Code))
	default:
		bad = append(bad, fmt.Sprintf("resources/directory/read of the file %s answered %s, not -32602", s.DirFileU, f.got()))
	}
	if len(bad) > 0 {
		x := s.Dir[0]
		if strings.Contains(bad[0], "of the file") {
			x = f
		}
		return verdict(id, s.Era, c, Fail, x, few(bad))
	}
	return verdict(id, s.Era, c, Pass, s.Dir[0], fmt.Sprintf("%s lists %d child(ren) in %d page(s); a file's URI gets -32602", s.DirURI, children, len(s.Dir)))
}

func (s SkillsSeen) judgeCache() Verdict {
	id, c := IDSkillsCacheHints, skillsCache
	if !s.listed() || s.Skills == nil {
		return inconclusive(id, s.Era, c, "skills/list did not answer, so there are no caching hints to judge")
	}
	var bad []string
	var shown Exchange
	for _, p := range s.Skills.List.Pages {
		r := gjson.ParseBytes(p.Result)
		ttl, scope := r.Get("ttlMs"), r.Get("cacheScope").String()
		x := Exchange{Method: "skills/list", Raw: p.Raw, Result: p.Result}
		switch {
		case ttl.Type != gjson.Number || ttl.Num < 0 || ttl.Num != float64(int64(ttl.Num)):
			bad = append(bad, fmt.Sprintf("page %d: ttlMs is %s, not an integer >= 0", p.N, absentOr(ttl)))
		case scope != "public" && scope != "private":
			bad = append(bad, fmt.Sprintf("page %d: cacheScope is %s, not \"public\" or \"private\"", p.N, absentOr(r.Get("cacheScope"))))
		default:
			continue
		}
		if shown.Method == "" {
			shown = x
		}
	}
	if len(bad) > 0 {
		return verdict(id, s.Era, c, Fail, shown, few(bad))
	}
	why := fmt.Sprintf("every skills/list page (%d) carries ttlMs and cacheScope", len(s.Skills.List.Pages))
	gets, without := 0, 0
	for _, g := range s.Skills.Gets {
		if g.Result == nil {
			continue
		}
		gets++
		if !gjson.GetBytes(g.Result, "ttlMs").Exists() || !gjson.GetBytes(g.Result, "cacheScope").Exists() {
			without++
		}
	}
	if gets > 0 {
		why += fmt.Sprintf("; skills/get (left open by the text): %d of %d answer(s) carry both", gets-without, gets)
	}
	return verdict(id, s.Era, c, Pass, s.First, why)
}

func absentOr(v gjson.Result) string {
	if !v.Exists() {
		return "absent"
	}
	return bound(v.Raw)
}
