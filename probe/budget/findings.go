package budget

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/lint"
)

// Findings turns a result into what an author must hear: cut
// descriptions (and the blocks past the cut), cut or undelivered
// instructions, dropped schema descriptions, output schemas nobody reads.
// The "all" row is left out: it repeats the real hosts.
func Findings(r Delivery) []probe.Finding {
	var out []probe.Finding
	add := func(code findings.Code, tool, format string, args ...any) {
		out = append(out, findings.New(code, format, args...).About(tool))
	}
	for _, hr := range r.Hosts {
		h := hr.Host
		if h.ID == "all" {
			continue
		}
		for _, t := range hr.Tools {
			d := t.Description
			if d.Mode == "cut" {
				add(findings.Cut, t.Name, "%s loses %s of %s %s (%s) on %s: cut at %s",
					code(t.Name), num(d.Lost), num(d.Len), unitName(d.Unit), Pct(d.LostPct), h.Name, where(d.Cut))
				if past := blocksPast(d); len(past) > 0 {
					add(findings.BlockPastCut, t.Name, "%s: %s only after the cut on %s, so the model never reads %s",
						code(t.Name), strings.Join(past, ", "), h.Name, them(len(past)))
				}
				if len(d.Omits) > 0 {
					add(findings.LostAfterCut, t.Name, "%s: the cut on %s hides %s", code(t.Name), h.Name, omits(d.Omits))
				}
			}
			if t.Schema.Dropped {
				add(findings.SchemaDrop, t.Name, "%s: its input schema serializes to %s %s, over %s's %s: all %d property descriptions (%s chars) are dropped",
					code(t.Name), num(t.Schema.Serialized), unitName(t.Schema.Unit), h.Name, num(t.Schema.Over), t.Schema.Descriptions, num(t.Schema.DroppedChars))
			}
		}
		in := hr.Instructions
		switch in.Mode {
		case "cut":
			add(findings.InstructionsCut, "", "the server instructions lose %s of %s %s (%s) on %s: cut at %s",
				num(in.Lost), num(in.Len), unitName(in.Unit), Pct(in.LostPct), h.Name, where(in.Cut))
			if len(in.Omits) > 0 {
				add(findings.LostAfterCut, "", "the server instructions: the cut on %s hides %s", h.Name, omits(in.Omits))
			}
		case "not_delivered":
			if in.Len > 0 {
				add(findings.InstructionsNotDelivered, "", "%s does not deliver server instructions (%s %s) to the model", h.Name, num(in.Len), unitName(in.Unit))
			}
		case "prepended":
			if in.Len > 0 && len(hr.Tools) > 0 {
				add(findings.InstructionsPrepended, "", "%s prepends the server instructions (%s %s) to every tool description: %s %s across %d tools",
					h.Name, num(in.Len), unitName(in.Unit), num(in.Len*len(hr.Tools)), unitName(in.Unit), len(hr.Tools))
			}
		}
	}
	for _, l := range r.OutputLost {
		add(findings.OutputSchemaUndelivered, l.Tool, "%s: %d output-schema descriptions (%s chars) reach no host of this set", code(l.Tool), l.Descriptions, num(l.Chars))
	}
	return out
}

// blocksPast names the description blocks that start after the cut.
func blocksPast(d Text) []string {
	text := strings.TrimSuffix(d.Head, "\uFFFD") + d.Tail
	var past []string
	for _, b := range lint.Blocks(text) {
		if Length(prefixUTF16(text, b.Offset), d.Unit) >= d.Delivered {
			past = append(past, b.Name)
		}
	}
	return past
}

// prefixUTF16 is the prefix of s that is n UTF-16 units long.
func prefixUTF16(s string, n int) string {
	k := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if k+w > n {
			return s[:i]
		}
		k += w
	}
	return s
}

func where(c *Cut) string {
	s := fmt.Sprintf("%s (line %d, column %d", num(c.At), c.Line, c.Column)
	switch {
	case c.SplitsChar:
		s += ", inside a character: the model gets half of it"
	case c.SplitsWord:
		s += ", mid-word"
	}
	return s + ")"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func code(s string) string { return "`" + s + "`" }

// unitName names a unit for people.
func unitName(u string) string {
	switch u {
	case "byte":
		return "bytes"
	case "codepoint":
		return "chars"
	}
	return "UTF-16 units"
}

// omits lists what a cut hides, each with the words matched and the
// sentence they are in: `required parameter "path" (in "Required: path.")`.
func omits(ls []Lost) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		what := map[string]string{"required-param": "required parameter", "enum-value": "enum value", "default": "a default", "warning": "a warning", "example": "an example"}[l.Rule]
		if l.Rule == "default" {
			// The word matched is "default" itself: what a reader needs is
			// the value the sentence gives, when it gives one.
			if v := defaultValue(l.Sentence, l.Words); v != "" {
				parts[i] = fmt.Sprintf("a default of %s (%s, in %q)", v, l.Rule, l.Sentence)
			} else {
				parts[i] = fmt.Sprintf("a default (%s, in %q)", l.Rule, l.Sentence)
			}
			continue
		}
		parts[i] = fmt.Sprintf("%s %q (%s, in %q)", what, l.Words, l.Rule, l.Sentence)
	}
	return strings.Join(parts, "; ")
}

// defaultValue is the value a sentence gives its default, read after the
// words matched: "defaults to 10MB", "default: json", "(default 100)",
// "the default depth is 3". It is "" when no value follows ("sorted by
// date by default"): a connector (to, is, :, =) announces the next word
// as the value; without one, the first of the next few words with a
// digit or a quote is taken. At most maxDefaultValue code points of the
// server's own words, quoted as Go quotes strings.
func defaultValue(sentence, words string) string {
	i := strings.Index(strings.ToLower(sentence), strings.ToLower(words))
	if i < 0 || strings.EqualFold(words, "by default") {
		return ""
	}
	rest := strings.Fields(sentence[i+len(words):])
	connector := false
	for len(rest) > 0 {
		w := strings.ToLower(strings.Trim(rest[0], ":="))
		if w == "" && rest[0] != "" || w == "is" || w == "to" || w == "of" || w == "will" || w == "be" || w == "value" {
			connector = true
			rest = rest[1:]
			continue
		}
		if strings.HasSuffix(rest[0], ":") || strings.HasSuffix(rest[0], "=") {
			// "default value: 3" reads its connector off the word.
			connector = true
		}
		break
	}
	clean := func(w string) string { return strings.Trim(w, "([.,;:!?)]") }
	valueLike := func(w string) bool { return strings.ContainsAny(w, "0123456789`'\"") }
	v := ""
	switch {
	case len(rest) == 0:
		return ""
	case connector && !strings.HasSuffix(rest[0], ":"):
		v = clean(rest[0])
		// "defaults to the first page": an article begins a phrase.
		if lw := strings.ToLower(v); (lw == "the" || lw == "a" || lw == "an") && len(rest) > 1 {
			v += " " + clean(rest[1])
		}
	default:
		if strings.HasSuffix(rest[0], ":") && len(rest) > 1 {
			rest = rest[1:]
			v = clean(rest[0])
			break
		}
		for _, w := range rest[:min(len(rest), 4)] {
			if valueLike(w) {
				v = clean(w)
				break
			}
		}
	}
	if v == "" {
		return ""
	}
	if utf8.RuneCountInString(v) > maxDefaultValue {
		v = string([]rune(v)[:maxDefaultValue]) + "…"
	}
	return strconv.Quote(v)
}

// maxDefaultValue bounds the value shown: the sentence is the server's.
const maxDefaultValue = 40
