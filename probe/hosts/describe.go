package hosts

import (
	"fmt"
	"strings"
)

// RuleLine is one rule of a host in words, with how it is known and
// where it was read: a row of `mcpprobe hosts ID` and of docs/hosts.md.
type RuleLine struct {
	What   string // "description", "tool count", "result", …
	Rule   string
	Sure   string // code, docs, report, unknown ("" where the row does not say)
	Date   string
	Source string
}

// Rules lists what the profile says, rule by rule, each with its source;
// a dimension the profile leaves out is listed as unknown.
func (h Host) Rules() []RuleLine {
	var out []RuleLine
	text := func(what string, r Rule) {
		l := RuleLine{What: what, Rule: textRule(r), Sure: r.Sure, Date: r.Date, Source: r.Source}
		if r.Verified != "" {
			l.Sure, l.Source = SureCode, r.Verified
		}
		if l.Source == "" {
			l.Source, l.Date = h.Source, h.MeasuredOn
		}
		out = append(out, l)
	}
	text("description", h.Description)
	text("instructions", h.Instructions)
	is := "whole"
	switch h.InputSchema.Rule {
	case "unknown", "":
		is = "unknown"
	case "drop_property_descriptions":
		is = "every property description dropped"
		if h.InputSchema.Over > 0 {
			is += fmt.Sprintf(" past %d %ss serialized", h.InputSchema.Over, orWord(h.InputSchema.Unit, "byte"))
		} else {
			is += " on large schemas (threshold not measured)"
		}
	}
	out = append(out, schemaLine(h, "input schema", is))
	out = append(out, schemaLine(h, "output schema", strings.ReplaceAll(orWord(h.OutputSchema, "unknown"), "_", " ")))
	if n := h.ToolNames; n != nil {
		rule := fmt.Sprintf("%s, at most %d characters (%s past it)", n.Prefix, n.MaxLen, strings.ReplaceAll(n.OverLimit, "_", " "))
		if n.Replacement != "" {
			rule += fmt.Sprintf("; characters outside [%s] become %q", n.Allowed, n.Replacement)
		}
		out = append(out, RuleLine{What: "tool names", Rule: rule, Sure: n.Sure, Date: n.Date, Source: n.Source})
		for _, e := range n.Earlier {
			out = append(out, RuleLine{What: "tool names, earlier", Rule: fmt.Sprintf("at most %d characters (%s past it)", e.MaxLen, strings.ReplaceAll(e.OverLimit, "_", " ")), Sure: e.Sure, Date: e.Date, Source: e.Source})
		}
	} else {
		out = append(out, unknownLine("tool names"))
	}
	if s := h.ToolSearch; s != nil {
		rule := map[string]string{"always": "tools deferred behind a tool search", "never": "never deferred"}[s.Rule]
		if s.Rule == "share_of_context" {
			rule = fmt.Sprintf("deferred past %g%% of a %d-token context", s.Percent, s.ContextTokens)
		}
		out = append(out, RuleLine{What: "tool search", Rule: rule, Date: s.Date, Source: s.Source})
	}
	if len(h.ToolLimits) == 0 {
		out = append(out, unknownLine("tool count"))
	}
	for _, l := range h.ToolLimits {
		out = append(out, RuleLine{What: "tool count", Rule: l.What() + "; past it " + l.Past(), Sure: l.Sure, Date: l.Date, Source: l.Source})
	}
	r := h.Result
	rs := RuleLine{What: "result", Rule: resultRule(r), Sure: r.Sure, Date: r.MeasuredOn, Source: r.Source}
	if rs.Sure == "" && (r.Rule == "unknown" || r.Rule == "") {
		rs.Sure = SureUnknown
	}
	if r.Notes != "" && r.Rule != "unknown" && r.Rule != "" {
		rs.Rule += ". " + r.Notes
	}
	out = append(out, rs)
	for _, f := range []struct {
		what string
		f    *Feature
	}{{"prompts", h.Prompts}, {"resources", h.Resources}, {"tool _meta", h.ToolMeta}} {
		if f.f == nil {
			out = append(out, unknownLine(f.what))
			continue
		}
		out = append(out, RuleLine{What: f.what, Rule: strings.ReplaceAll(f.f.Rule, "_", " "), Sure: f.f.Sure, Date: f.f.Date, Source: f.f.Source})
	}
	for _, q := range h.SchemaQuirks {
		out = append(out, RuleLine{What: "schema quirk", Rule: q.What + ": " + q.Does, Sure: q.Sure, Date: q.Date, Source: q.Source})
	}
	return out
}

// schemaLine: the schema rules carry no source of their own; the
// profile's is theirs, unless the rule is unknown.
func schemaLine(h Host, what, rule string) RuleLine {
	if rule == "unknown" {
		return unknownLine(what)
	}
	return RuleLine{What: what, Rule: rule, Date: h.MeasuredOn, Source: h.Source}
}

func unknownLine(what string) RuleLine {
	return RuleLine{What: what, Rule: "unknown", Sure: SureUnknown, Source: "not in this profile: no source recorded"}
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func textRule(r Rule) string {
	switch r.Rule {
	case "cut":
		s := fmt.Sprintf("cut at %d %s", r.Limit, map[string]string{"utf16": "UTF-16 units", "codepoint": "code points", "byte": "bytes"}[orWord(r.Unit, "utf16")])
		if r.Marker != "" {
			s += fmt.Sprintf(", %q appended", r.Marker)
		}
		if r.Deferred {
			s += "; deferred behind a tool search"
		}
		return s
	case "not_delivered":
		return "not delivered"
	case "prepended":
		return "prepended to every tool description"
	case "unknown":
		return "unknown (budget counts it whole)"
	}
	if r.Deferred {
		return "whole; deferred behind a tool search"
	}
	return "whole"
}

func resultRule(r ResultRule) string {
	switch r.Rule {
	case "cap":
		s := ""
		if r.PersistChars > 0 {
			s = fmt.Sprintf("saved to a file past %d characters", r.PersistChars)
			if r.MetaOverride != "" {
				s += fmt.Sprintf(" (a tool raises it with _meta[%q], up to %d)", r.MetaOverride, r.MetaCeiling)
			}
		}
		if r.TokenLimit > 0 {
			if s != "" {
				s += "; "
			}
			s += fmt.Sprintf("a cap of %d tokens", r.TokenLimit)
		}
		return s
	case "head_tail":
		return fmt.Sprintf("past %d bytes or %d lines, the head and the tail around a marker", r.MaxBytes, r.MaxLines)
	case "spill":
		switch r.Keep {
		case "head_tail":
			return fmt.Sprintf("past %d UTF-16 units saved to a file; the model reads the first %.0f%% and the last %.0f%% of that many", r.MaxChars, r.HeadShare*100, (1-r.HeadShare)*100)
		case "preview":
			at := ""
			if r.AtMost {
				at = "at most "
			}
			return fmt.Sprintf("past %s%d bytes saved to a file; the model reads a notice and the first %d characters", at, r.MaxBytes, r.PreviewChars)
		}
		return fmt.Sprintf("past %d bytes or %d lines saved to a file; the model reads the whole lines from the start within both and a notice", r.MaxBytes, r.MaxLines)
	case "whole":
		return "whole"
	}
	return "unknown"
}

// Markdown is docs/hosts.md: every host's rules, each with how it is
// known and its source, from the registry.
func Markdown(hs []Host) string {
	var b strings.Builder
	b.WriteString("# Hosts\n\n<!-- generated from probe/hosts/hosts.json by `go test ./probe/hosts -run TestHostsDoc -update`: edit there -->\n\n")
	b.WriteString("What each AI host does with an MCP server, rule by rule, as mcpprobe's host profiles say (`mcpprobe hosts ID` prints one host's).\n")
	b.WriteString("\"How known\": `code` read in the host's shipped code or public source, pinned by version or commit (`scripts/verify-hosts.sh`, checked by `TestClaudeCodeExtracts` and `TestHostExtracts`); `docs` the host's documentation; `report` an issue or a user's report; `unknown` no source, and why.\n\n")
	b.WriteString("| host | id | measured on | read in code |\n| --- | --- | --- | --- |\n")
	for _, h := range hs {
		code := "no"
		for _, l := range h.Rules() {
			if l.Sure == SureCode {
				code = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", mdCell(h.Name), h.ID, h.MeasuredOn, code)
	}
	for _, h := range hs {
		fmt.Fprintf(&b, "\n## %s\n\n", mdCell(h.Name))
		if h.Aliases != "" {
			fmt.Fprintf(&b, "Also: %s.\n\n", mdCell(h.Aliases))
		}
		b.WriteString("| rule | what the host does | how known | date | source |\n| --- | --- | --- | --- | --- |\n")
		for _, l := range h.Rules() {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", l.What, mdCell(l.Rule), orWord(l.Sure, "–"), orWord(l.Date, "–"), mdCell(l.Source))
		}
		if h.Notes != "" {
			fmt.Fprintf(&b, "\n%s\n", mdCell(h.Notes))
		}
	}
	return b.String()
}

// mdCell makes text safe in a markdown table cell: pipes escaped, lines
// joined, angle brackets as entities so no tag is read as HTML.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
