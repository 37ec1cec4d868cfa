package reports

import (
	"fmt"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/tidwall/gjson"
)

// SkillsSection is the skills member of wire's --json, for a server that
// declares the Skills extension: its declaration and each listed skill,
// the frontmatter and manifest embedded byte for byte as listed.
func SkillsSection(c *probe.Capture) []byte {
	sk := c.Skills
	o := &jsonout.Object{}
	o.Raw("extension", sk.Setting)
	o.Set("directory_read", gjson.GetBytes(sk.Setting, "directoryRead").Type == gjson.True)
	bytesOnWire := 0
	for _, p := range sk.List.Pages {
		bytesOnWire += len(p.Raw)
	}
	lo := &jsonout.Object{}
	lo.Set("method", sk.List.Method).Set("asked", sk.List.Asked)
	if sk.List.Skipped != "" {
		lo.Set("skipped", sk.List.Skipped)
	}
	lo.Set("pages", len(sk.List.Pages)).Set("items", len(sk.List.Items)).Set("bytes", bytesOnWire).Set("error", jsonout.NullIfEmpty(sk.List.Error))
	o.Raw("list", lo.Bytes())
	var items [][]byte
	for _, s := range wire.Skills(c) {
		so := &jsonout.Object{}
		so.Set("uri", s.URI)
		so.Set("name", stringOrNull(s.Name, s.HasName))
		so.Set("description", stringOrNull(s.Description, s.HasDescription))
		so.Raw("frontmatter", s.Frontmatter)
		so.Raw("resources", s.Resources)
		if s.Resources != nil && !s.Dynamic {
			so.Set("files", len(s.Files)).Set("bytes", s.Bytes)
		} else {
			so.Set("files", nil).Set("bytes", nil)
		}
		g := &jsonout.Object{}
		if s.Get == nil {
			g.Set("asked", false)
		} else {
			g.Set("asked", true).Set("error", jsonout.NullIfEmpty(s.Get.Error))
		}
		so.Raw("get", g.Bytes())
		items = append(items, so.Bytes())
	}
	o.Raw("skills", jsonout.RawArray(items))
	o.Set("not_got", sk.NotGot)
	o.Set("gets_stopped", jsonout.NullIfEmpty(sk.GetsStopped))
	return o.Bytes()
}

func stringOrNull(s string, ok bool) any {
	if !ok {
		return nil
	}
	return s
}

// skills writes the skills a server lists and each one's manifest:
// nothing at all for a server that does not declare the extension.
func skills(w io.Writer, st terminal.Style, c *probe.Capture) {
	if c.Skills == nil || !heading(w, st, "Skills", c.Skills.List) {
		return
	}
	var rows, files [][]string
	for _, s := range wire.Skills(c) {
		name, desc := s.Name, Num(wire.UTF16Len(s.Description))
		if !s.HasName {
			name = "—"
		}
		if !s.HasDescription {
			desc = "none"
		}
		got := "not asked"
		if s.Get != nil {
			got = "ok"
			if s.Get.Error != "" {
				got = terminal.Clip(s.Get.Error, 60)
			}
		}
		rows = append(rows, []string{code(st, terminal.Clip(name, 64)), code(st, terminal.Clip(s.URI, 80)), desc, manifest(s), terminal.StyledCell(st, got)})
		for _, f := range s.Files {
			sz := "—"
			if f.HasSize {
				sz = Num(int(f.Size))
			}
			files = append(files, []string{code(st, terminal.Clip(f.URI, 80)), sz, code(st, shortDigest(f.Digest))})
		}
	}
	terminal.Table(w, st, []string{"skill", "uri", "description (UTF-16)", "resources", "skills/get"}, rows, terminal.Left, terminal.Left, terminal.Right, terminal.Left, terminal.Left)
	if len(files) == 0 {
		return
	}
	if st == terminal.Terminal {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Skill files (as each listing publishes them):")
	} else {
		fmt.Fprintf(w, "Skill files, as each listing publishes them:\n\n")
	}
	terminal.Table(w, st, []string{"file", "size (bytes)", "digest"}, files, terminal.Left, terminal.Right, terminal.Left)
}

// manifest says what kind of manifest a skill publishes; its files are
// the next table's rows, so that one changed file changes one line.
func manifest(s wire.Skill) string {
	switch {
	case s.Dynamic:
		return "dynamic"
	case s.Resources == nil:
		return "none"
	case !gjson.ParseBytes(s.Resources).IsArray():
		return "not a list"
	}
	return "listed"
}

// shortDigest keeps a sha256 digest's first 16 hex digits on screen; --json
// has it whole.
func shortDigest(d string) string {
	if h, ok := strings.CutPrefix(d, "sha256:"); ok && len(h) > 16 {
		return "sha256:" + h[:16] + "…"
	}
	return terminal.Clip(d, 40)
}
