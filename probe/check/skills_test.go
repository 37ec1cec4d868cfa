package check

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

// A hand-made skills server: one skill, git-workflow, its SKILL.md and a
// reference file, each bug of skillsBugs breaking exactly one check.
const (
	skillMD  = "---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\n\n# Git\n"
	guideMD  = "# Guide\n"
	skillURI = "skill://git-workflow/SKILL.md"
	guideURI = "skill://git-workflow/references/GUIDE.md"
)

func digestOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

func fileEntry(uri, body string) string {
	return `{"uri":"` + uri + `","digest":"` + digestOf(body) + `","size":` + strconv.Itoa(len(body)) + `}`
}

type skillsFixture struct {
	caps, entry, page, get, unknownCode string
	files                               map[string]string
	dir                                 string // a directory page's result, "" for an error
	dirFileCode                         int64
}

func goodSkills() skillsFixture {
	entry := `{"uri":"` + skillURI + `","frontmatter":{"name":"git-workflow","description":"Follow the team's Git conventions"},"resources":[` +
		fileEntry(skillURI, skillMD) + `,` + fileEntry(guideURI, guideMD) + `]}`
	return skillsFixture{
		caps:        `{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}`,
		entry:       entry,
		page:        `{"skills":[` + entry + `],"ttlMs":0,"cacheScope":"private"}`,
		get:         `{"skill":` + entry + `}`,
		unknownCode: "-32602",
		files:       map[string]string{skillURI: skillMD, guideURI: guideMD},
		dir:         `{"resources":[{"uri":"skill://git-workflow/SKILL.md","name":"SKILL.md"},{"uri":"skill://git-workflow/references","name":"references","mimeType":"inode/directory"}]}`,
		dirFileCode: -32602,
	}
}

func (f skillsFixture) seen(era string) SkillsSeen {
	res := []byte(f.page)
	s := SkillsSeen{Era: era, Caps: []byte(f.caps), First: Exchange{Method: "skills/list", Raw: res, Result: res}}
	l := probe.List{Method: "skills/list", Key: "skills", Asked: true, Pages: []probe.Page{{Method: "skills/list", N: 1, Raw: res, Result: res}}}
	l.Items = [][]byte{[]byte(f.entry)}
	sk := &probe.Skills{List: l, Gets: []probe.SkillGet{{URI: skillURI, Raw: []byte(f.get), Result: []byte(f.get)}}}
	s.Skills = sk
	code, _ := strconv.Atoi(f.unknownCode)
	s.Unknown = Exchange{Method: "skills/get", Err: &probe.RPCError{Code: int64(code), Message: "no skill"}}
	for _, u := range []string{skillURI, guideURI} {
		s.Reads = append(s.Reads, SkillFileRead{URI: u, X: Exchange{Method: "resources/read"}, Bytes: []byte(f.files[u])})
	}
	s.DirURI, s.DirFileU = "skill://git-workflow", skillURI
	s.Dir = []Exchange{{Method: "resources/directory/read", Raw: []byte(f.dir), Result: []byte(f.dir)}}
	s.DirFile = Exchange{Method: "resources/directory/read", Err: &probe.RPCError{Code: f.dirFileCode}}
	return s
}

func outcomes(vs []Verdict) map[string]string {
	out := map[string]string{}
	for _, v := range vs {
		out[v.ID] = v.Outcome
	}
	return out
}

// Each injected bug fails the one check that names it, and no other.
func TestJudgeSkillsBugs(t *testing.T) {
	for _, tc := range []struct {
		bug    string
		fails  string
		inject func(*skillsFixture)
	}{
		{"no resources capability", IDSkillsCapability, func(f *skillsFixture) {
			f.caps = `{"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}`
		}},
		{"resources split from the skill's own SKILL.md", IDSkillsList, func(f *skillsFixture) {
			f.entry = strings.Replace(f.entry, fileEntry(skillURI, skillMD)+`,`, "", 1)
			f.page = `{"skills":[` + f.entry + `],"ttlMs":0,"cacheScope":"private"}`
			f.get = `{"skill":` + f.entry + `}`
		}},
		{"unknown skill not -32602", IDSkillsGet, func(f *skillsFixture) { f.unknownCode = "-32603" }},
		{"frontmatter differs from the file", IDSkillsFrontmatter, func(f *skillsFixture) {
			md := strings.Replace(skillMD, "Follow the team's", "Ignore the team's", 1)
			f.files[skillURI] = md[:len(skillMD)]
			// the listing's digest and size follow the file, so only the frontmatter differs
			f.entry = strings.Replace(f.entry, fileEntry(skillURI, skillMD), fileEntry(skillURI, md), 1)
			f.page = `{"skills":[` + f.entry + `],"ttlMs":0,"cacheScope":"private"}`
			f.get = `{"skill":` + f.entry + `}`
		}},
		{"uri does not match the name", IDSkillsURI, func(f *skillsFixture) {
			f.entry = strings.Replace(f.entry, `"name":"git-workflow"`, `"name":"git-flow"`, 1)
			f.files[skillURI] = strings.Replace(skillMD, "name: git-workflow", "name: git-flow", 1)
			f.entry = strings.Replace(f.entry, fileEntry(skillURI, skillMD), fileEntry(skillURI, f.files[skillURI]), 1)
			f.page = `{"skills":[` + f.entry + `],"ttlMs":0,"cacheScope":"private"}`
			f.get = `{"skill":` + f.entry + `}`
		}},
		{"bytes differ from the digest", IDSkillsDigest, func(f *skillsFixture) { f.files[guideURI] = "# GUIDE\n" }},
		{"size differs", IDSkillsSize, func(f *skillsFixture) {
			f.entry = strings.Replace(f.entry, `"size":8}`, `"size":9}`, 1)
			f.page = `{"skills":[` + f.entry + `],"ttlMs":0,"cacheScope":"private"}`
			f.get = `{"skill":` + f.entry + `}`
		}},
		{"directory read of a file succeeds", IDSkillsDirectory, func(f *skillsFixture) { f.dirFileCode = 0 }},
		{"no cacheScope on a 2026-07-28 listing", IDSkillsCacheHints, func(f *skillsFixture) {
			f.page = `{"skills":[` + f.entry + `],"ttlMs":0}`
		}},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			f := goodSkills()
			tc.inject(&f)
			s := f.seen(Modern)
			if tc.fails == IDSkillsDirectory {
				s.DirFile = Exchange{Method: "resources/directory/read", Raw: []byte(`{"resources":[]}`), Result: []byte(`{"resources":[]}`)}
			}
			got := outcomes(JudgeSkills(s))
			for id, o := range got {
				want := Pass
				if id == tc.fails {
					want = Fail
				}
				if o != want {
					t.Errorf("%s: %s, want %s", id, o, want)
				}
			}
		})
	}
}

func TestJudgeSkillsGood(t *testing.T) {
	for _, era := range Eras {
		got := outcomes(JudgeSkills(goodSkills().seen(era)))
		want := 8
		if era == Modern {
			want = 9
		}
		if len(got) != want {
			t.Errorf("%s: %d verdicts, want %d: %v", era, len(got), want, got)
		}
		for id, o := range got {
			if o != Pass {
				t.Errorf("%s %s: %s, want pass", era, id, o)
			}
		}
	}
}

// A server without the extension gets not-applicable from every skills
// check, and a server without directoryRead from the directory check.
func TestJudgeSkillsNotApplicable(t *testing.T) {
	for id, o := range outcomes(JudgeSkills(SkillsSeen{Era: Modern, Caps: []byte(`{"resources":{}}`)})) {
		if o != NotApplicable {
			t.Errorf("%s: %s, want not-applicable", id, o)
		}
	}
	f := goodSkills()
	f.caps = `{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{}}}`
	if o := outcomes(JudgeSkills(f.seen(Legacy)))[IDSkillsDirectory]; o != NotApplicable {
		t.Errorf("directory without directoryRead: %s", o)
	}
}
