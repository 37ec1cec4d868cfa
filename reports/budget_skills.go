package reports

import (
	"fmt"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/budget"
)

// budgetSkills writes what each host that consumes skills delivers of
// them: nothing for a server without the Skills extension.
func budgetSkills(w io.Writer, st terminal.Style, s *budget.Skills) {
	if s == nil {
		return
	}
	if st == terminal.Terminal {
		fmt.Fprintf(w, "Skills (io.modelcontextprotocol/skills): %d listed, %d installable (a manifest of their files)\n", s.Listed, s.Installable)
	} else {
		fmt.Fprintf(w, "### Skills by host\n\n%d listed, %d installable (a manifest of their files).\n\n", s.Listed, s.Installable)
	}
	var rows [][]string
	for _, h := range s.Hosts {
		got := "—"
		switch h.Rule.Rule {
		case "install":
			got = "after install: " + Num(h.Delivered) + " (names, descriptions)"
			if st == terminal.Markdown {
				// a committed report: one changed description changes
				// one line (the wire section's), not this one too
				got = "after install: names and descriptions, whole"
			}
		case "not_consumed":
			got = "nothing"
		case "unknown":
			got = "unknown"
		}
		rows = append(rows, []string{terminal.StyledCell(st, h.Rule.Name), terminal.StyledCell(st, h.Rule.Rule), got, terminal.StyledCell(st, terminal.Clip(h.Rule.Source, 60)+" ("+h.Rule.Date+")")})
	}
	terminal.Table(w, st, []string{"host", "rule", "delivered", "source"}, rows)
	if st == terminal.Terminal {
		fmt.Fprintln(w)
	}
}

// budgetSkillsJSON is budget --json's skills member, nil without the
// extension.
func budgetSkillsJSON(s *budget.Skills) []byte {
	if s == nil {
		return nil
	}
	o := &jsonout.Object{}
	o.Set("listed", s.Listed).Set("installable", s.Installable).Set("name_description_utf16", s.NameDescUTF16)
	var hs [][]byte
	for _, h := range s.Hosts {
		ho := &jsonout.Object{}
		ho.Set("host", h.Rule.ID).Set("name", h.Rule.Name).Set("rule", h.Rule.Rule).Set("delivers", h.Rule.Delivers)
		ho.Set("delivered_utf16", h.Delivered).Set("versions", h.Rule.Versions).Set("source", h.Rule.Source).Set("date", h.Rule.Date).Set("sure", h.Rule.Sure)
		hs = append(hs, ho.Bytes())
	}
	o.Raw("hosts", jsonout.RawArray(hs))
	return o.Bytes()
}
