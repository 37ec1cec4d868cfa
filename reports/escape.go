// Package reports renders what the probe found: markdown for people and for
// committing, text for the terminal, JSON for machines. It never measures.
package reports

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes untrusted server text safe to print: control characters
// (ESC and so every ANSI sequence among them), C1 controls, bidirectional
// overrides and invisible format characters become visible escapes, and
// invalid UTF-8 becomes \xNN. Newlines and tabs are escaped too, so one
// value stays on one line.
func Escape(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			return asciiOrSafe(s)
		}
	}
	return true
}

func asciiOrSafe(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || unsafeRune(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// unsafeRune is true for C1 controls and for format characters (category
// Cf: bidi embeddings, overrides and isolates, zero-width characters, the
// BOM), which can reorder or hide what a reader sees.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

// Cell escapes s for a markdown table cell.
func Cell(s string) string {
	return strings.ReplaceAll(Escape(s), "|", `\|`)
}

// Code wraps s in a markdown code span that its own backticks cannot end.
func Code(s string) string {
	s = Cell(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// Clip shortens s to at most n runes, marking the cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return s[:i] + "…"
}
