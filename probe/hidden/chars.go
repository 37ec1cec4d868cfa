package hidden

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// charNames names the invisible and bidi code points by their Unicode names.
var charNames = map[rune]string{
	0x200B: "ZERO WIDTH SPACE",
	0x200C: "ZERO WIDTH NON-JOINER",
	0x200D: "ZERO WIDTH JOINER",
	0x2060: "WORD JOINER",
	0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
	0x202A: "LEFT-TO-RIGHT EMBEDDING",
	0x202B: "RIGHT-TO-LEFT EMBEDDING",
	0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE",
	0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
	0x200E: "LEFT-TO-RIGHT MARK",
	0x200F: "RIGHT-TO-LEFT MARK",
	0x061C: "ARABIC LETTER MARK",
	0x1B:   "ESCAPE",
	0x9B:   "CONTROL SEQUENCE INTRODUCER",
	0x9D:   "OPERATING SYSTEM COMMAND",
	0x7F:   "DELETE",
}

// charRule says which rule a code point falls under, or "".
func charRule(r rune) string {
	switch {
	case r == '\n' || r == '\r' || r == '\t':
		return ""
	case r >= 0xE0000 && r <= 0xE007F:
		return TagSmuggling
	case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
		return ZeroWidth
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return BidiControl
	case r == 0x1B || r == 0x9B || r == 0x9D:
		return EscapeSequence
	case r < 0x20 || r == 0x7F || r >= 0x80 && r <= 0x9F:
		return ControlChar
	}
	return ""
}

func isEmoji(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r >= 0x2B00 && r <= 0x2BFF || r == 0xFE0F
}

// shaped: a letter of a script that needs joiners (Arabic, Persian, Indic).
func shaped(r rune) bool {
	return r >= 0x0600 && (unicode.IsLetter(r) || unicode.IsMark(r)) && !unicode.Is(unicode.Latin, r)
}

func rtl(r rune) bool {
	return unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko)
}

// inPlace reports whether a character does the job it exists for: a
// joiner inside an emoji sequence or between letters of a script that
// needs it, a direction mark beside right-to-left text, a byte-order
// mark at the very start.
func inPlace(r, prev, next rune, at int) bool {
	switch r {
	case 0x200D:
		return isEmoji(prev) && isEmoji(next) || shaped(prev) && shaped(next)
	case 0x200C:
		return shaped(prev) && shaped(next)
	case 0x200E, 0x200F, 0x061C:
		return rtl(prev) || rtl(next)
	case 0xFEFF:
		return at == 0
	}
	return false
}

// chars finds the hidden characters of a field: a run of tag characters
// is one match that spells what they say; each other character one match,
// named, with what follows an ESC.
func chars(f Field) []Match {
	s := f.Text
	if plainText(s) {
		return nil
	}
	var out []Match
	prev := rune(-1)
	at := 0
	var tags strings.Builder
	tagAt, tagN := 0, 0
	flush := func() {
		if tagN == 0 {
			return
		}
		out = append(out, Match{Rule: TagSmuggling, Path: f.Path, At: tagAt,
			Matched: fmt.Sprintf("%d Unicode tag characters (U+E0000–U+E007F) spelling %s", tagN, quote(tags.String(), 80))})
		tags.Reset()
		tagN = 0
	}
	for i, r := range s {
		rule := charRule(r)
		if rule == TagSmuggling {
			if tagN == 0 {
				tagAt = at
			}
			tagN++
			if r >= 0xE0020 && r <= 0xE007E {
				tags.WriteRune(r - 0xE0000)
			}
			prev = r
			at++
			continue
		}
		flush()
		if rule != "" && len(out) < 50 {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if !inPlace(r, prev, next, at) {
				out = append(out, Match{Rule: rule, Path: f.Path, At: at, Matched: describeChar(r, s[i+utf8.RuneLen(r):])})
			}
		}
		prev = r
		at++
	}
	flush()
	return out
}

func describeChar(r rune, rest string) string {
	name := charNames[r]
	if name == "" {
		name = "control character"
	}
	d := fmt.Sprintf("U+%04X %s", r, name)
	if r == 0x1B && rest != "" {
		switch rest[0] {
		case '[':
			d += " starting a CSI sequence (ANSI colour or cursor control) " + quote(seq(rest), 24)
		case ']':
			d += " starting an OSC sequence (terminal title, hyperlink, clipboard) " + quote(seq(rest), 24)
		}
	}
	return d
}

// seq is the start of an escape sequence's body, for the message.
func seq(rest string) string {
	n := 0
	for i, r := range rest {
		if n >= 16 || r == 0x07 || r == 0x1B || (n > 0 && rest[0] == '[' && r >= 0x40 && r <= 0x7E) {
			if r >= 0x40 && r <= 0x7E && rest[0] == '[' {
				return rest[:i+1]
			}
			return rest[:i]
		}
		n++
	}
	return rest
}

// plainText: printable ASCII, tabs and line breaks, in which no rule of
// this file can match; most fields are, and a byte loop says so.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}
