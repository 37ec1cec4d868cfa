package result

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// RulesMarkdown lists the hosts' result rules and the call timeout
// policies as markdown tables, each row with its source and date. The
// README carries it (go test ./probe/result -update rewrites it).
func RulesMarkdown(hosts []hosts.Host, ps []Policy) string {
	var b strings.Builder
	b.WriteString("<!-- generated from probe/hosts/hosts.json by `go test ./probe/result -update`: edit there -->\n\n")
	b.WriteString("| host | what the model gets of a tool result | measured on | source |\n| --- | --- | --- | --- |\n")
	for _, h := range hosts {
		r := h.Result
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(h.Name), cell(describeRule(r)), cell(orDash(r.MeasuredOn)), cell(orDash(r.Source)))
	}
	b.WriteString("\n| policy | gives up | measured on | source |\n| --- | --- | --- | --- |\n")
	for _, p := range ps {
		what := describePolicy(p)
		if p.Note != "" {
			what += ". " + p.Note
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Name, cell(what), cell(orDash(p.MeasuredOn)), cell(p.Source))
	}
	b.WriteString("\n")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// cell makes text safe in a table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func describeRule(r hosts.ResultRule) string {
	var parts []string
	switch r.Rule {
	case "cap":
		if r.PersistChars > 0 {
			s := fmt.Sprintf("saved to a file and replaced by a reference past %s characters (%s)", num(r.PersistChars), charUnit(r.CharUnit))
			if r.MetaOverride != "" {
				s += fmt.Sprintf(", a threshold a tool raises with `_meta[\"%s\"]` in tools/list, up to %s", r.MetaOverride, num(r.MetaCeiling))
			}
			parts = append(parts, s)
		}
		if r.TokenLimit > 0 {
			s := fmt.Sprintf("cap of %s tokens counted as %s", num(r.TokenLimit), orDash(r.Count))
			if r.OverrideEnv != "" {
				s += fmt.Sprintf(" (`%s` overrides it)", r.OverrideEnv)
			}
			parts = append(parts, s+", past it "+orDash(r.Over))
		}
		if r.WarnTokens > 0 {
			parts = append(parts, fmt.Sprintf("a warning past %s tokens", num(r.WarnTokens)))
		}
		if r.PreviewBytes > 0 {
			parts = append(parts, fmt.Sprintf("a persisted result's reference previews about %s bytes", num(r.PreviewBytes)))
		}
	case "head_tail":
		parts = append(parts, fmt.Sprintf("cut past %s bytes or %d lines: the first %s bytes (or %d lines) and the end, around a marker", num(r.MaxBytes), r.MaxLines, num(r.HeadBytes), r.HeadLines))
	case "spill":
		parts = append(parts, describeSpill(r))
	case "whole":
		parts = append(parts, "whole")
	default:
		parts = append(parts, "unknown")
	}
	if len(r.Content) > 0 {
		by := map[string][]string{}
		for t, s := range r.Content {
			by[s] = append(by[s], "`"+t+"`")
		}
		for _, s := range []string{"passed", "dropped", "unknown"} {
			if ts := by[s]; len(ts) > 0 {
				sort.Strings(ts)
				parts = append(parts, s+": "+strings.Join(ts, ", "))
			}
		}
	}
	switch r.Prefers {
	case "structured":
		parts = append(parts, "reads `structuredContent` when present")
	case "text":
		parts = append(parts, "reads the text blocks, not `structuredContent`")
	case "unknown":
		parts = append(parts, "`structuredContent` or text: unknown")
	}
	s := strings.Join(parts, "; ")
	if r.Notes != "" {
		s += ". " + r.Notes
	}
	return s
}

func describePolicy(p Policy) string {
	var parts []string
	if p.Timeout > 0 {
		s := dur(p.Timeout) + " after the request"
		if p.ResetOnProgress {
			s = dur(p.Timeout) + " after the request or the last progress notification"
		}
		parts = append(parts, s)
	}
	if p.MaxTotal > 0 {
		s := "at " + dur(p.MaxTotal) + " in all"
		if p.MaxTotalOnProgress {
			s = "at the first progress notification past " + dur(p.MaxTotal)
		}
		parts = append(parts, s)
	}
	if p.Idle > 0 {
		parts = append(parts, "after "+dur(p.Idle)+" without progress")
	}
	return strings.Join(parts, ", or ")
}

func describeSpill(r hosts.ResultRule) string {
	at := ""
	if r.AtMost {
		at = "at most "
	}
	switch r.Keep {
	case "head_tail":
		s := fmt.Sprintf("past %s UTF-16 units saved to a file; the model reads the first %.0f%% and the last %.0f%% of %s around a marker", num(r.MaxChars), r.HeadShare*100, (1-r.HeadShare)*100, num(r.MaxChars))
		if r.OneTextOnly {
			s += " (a result of one text block only)"
		}
		return s
	case "preview":
		return fmt.Sprintf("past %s%s bytes saved to a file; the model reads a notice and the first %s characters", at, num(r.MaxBytes), num(r.PreviewChars))
	}
	return fmt.Sprintf("past %s bytes or %s lines saved to a file; the model reads the whole lines from the start within both limits and a notice", num(r.MaxBytes), num(r.MaxLines))
}
