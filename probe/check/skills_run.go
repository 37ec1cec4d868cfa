package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/skillfile"
	"github.com/tidwall/gjson"
)

// Bounds of the skills checks' reads: a server lists the files, so it
// must not be able to make the check read without end.
const (
	maxSkillReads  = 128              // listed files read back, over all skills
	skillReadsTime = 60 * time.Second // every read together
	maxDirPages    = 20               // pages of one resources/directory/read
)

// skills makes the skills checks' exchanges on the era's connection:
// skills/list (its first page asked here, the whole list and a skills/get
// per skill by the client), skills/get of a URI that is no skill, every
// listed file read back, and a skill directory read when directoryRead is
// declared.
func (s *session) skills(era string, caps []byte) []Verdict {
	seen := SkillsSeen{Era: era, Caps: caps}
	setting, ok := probe.SkillsSetting(caps)
	if !ok {
		return JudgeSkills(seen)
	}
	s.o.say("skills/list")
	seen.First = s.ask("skills/list", "")
	if seen.listed() {
		s.o.say("skills/list (every page), skills/get per skill")
		s.cl.ListSkills(s.ctx)
		seen.Skills = s.cl.Capture.Skills
	}
	seen.Unknown = s.ask("skills/get", `"uri":`+quoteJSON(UnknownSkillURI))
	s.readSkillFiles(&seen)
	if gjson.GetBytes(setting, "directoryRead").Type == gjson.True {
		s.readSkillDir(&seen)
	}
	return JudgeSkills(seen)
}

func (s *session) readSkillFiles(seen *SkillsSeen) {
	ctx, cancel := context.WithTimeout(s.ctx, skillReadsTime)
	defer cancel()
	asked := map[string]bool{}
	read := func(uri string) {
		if asked[uri] || uri == "" {
			return
		}
		asked[uri] = true
		switch {
		case len(seen.Reads) == maxSkillReads:
			seen.NotRead++
			seen.Bounds = fmt.Sprintf("mcpprobe reads at most %d", maxSkillReads)
			return
		case ctx.Err() != nil:
			seen.NotRead++
			seen.Bounds = fmt.Sprintf("the reads' %v were spent", skillReadsTime)
			return
		}
		if len(seen.Reads) == 0 {
			s.o.say("resources/read of every listed skill file")
		}
		seen.Reads = append(seen.Reads, s.readSkillFile(ctx, uri))
	}
	for _, e := range seen.entries() {
		for _, f := range e.Files {
			read(f.URI)
		}
		// a "dynamic" skill lists no file; its SKILL.md is read for
		// the frontmatter check
		if dirOf(e.URI) != "" {
			read(e.URI)
		}
	}
}

// readSkillFile reads uri back and decodes its content: text as its UTF-8
// bytes, a blob from base64.
func (s *session) readSkillFile(ctx context.Context, uri string) SkillFileRead {
	x := Exchange{Method: "resources/read", Params: `"uri":` + quoteJSON(uri)}
	r, err := s.cl.Request(ctx, x.Method, x.Params, s.o.Probe.Timeout)
	x = exchanged(x, r, err)
	s.seen = append(s.seen, x)
	fr := SkillFileRead{URI: uri, X: x}
	if x.Result == nil {
		fr.Why = "no result: " + x.got()
		return fr
	}
	fr.Bytes, fr.Why = skillfile.Content(x.Result, uri)
	return fr
}

// readSkillDir reads the first listed skill's directory, every page, and
// asks the same of its SKILL.md, a file.
func (s *session) readSkillDir(seen *SkillsSeen) {
	for _, e := range seen.entries() {
		if d := dirOf(e.URI); d != "" {
			seen.DirURI, seen.DirFileU = d, e.URI
			break
		}
	}
	if seen.DirURI == "" {
		return
	}
	s.o.say("resources/directory/read")
	cursors := map[string]bool{}
	cursor := ""
	for n := 0; n < maxDirPages && s.ctx.Err() == nil; n++ {
		members := `"uri":` + quoteJSON(seen.DirURI)
		if cursor != "" {
			members += `,"cursor":` + quoteJSON(cursor)
		}
		x := s.ask("resources/directory/read", members)
		seen.Dir = append(seen.Dir, x)
		next := gjson.GetBytes(x.Result, "nextCursor")
		if x.Result == nil || next.Type != gjson.String || next.String() == "" || cursors[next.String()] {
			break
		}
		cursor = next.String()
		cursors[cursor] = true
	}
	seen.DirFile = s.ask("resources/directory/read", `"uri":`+quoteJSON(seen.DirFileU))
}
