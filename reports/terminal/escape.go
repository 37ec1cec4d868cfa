package terminal

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
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
// Text holding "<", ">" or "&" is written as escaped text instead (MD,
// emphasis marks escaped too): a code span would show it as typed, but
// the raw report would still carry "<script" for any lax renderer or
// reader, and an entity in a span shows as the entity.
func Code(s string) string {
	if strings.ContainsAny(s, "<>&") {
		return mdStrict(s)
	}
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

// MD makes untrusted text safe in markdown, in prose or a table cell:
// Escape first, then whatever a markdown renderer would act on is escaped
// so that it shows as the server typed it. "<", ">" and "&" become
// entities, so "<script>" or "<img src=…>" never reaches a renderer as
// HTML and "&lt;" stays five characters; "[" and "]" are escaped, so no
// link, image or reference is made; "`" is escaped, so no code span
// opens; "|" is escaped, so no cell ends. Emphasis marks are left alone:
// they can only change how the text looks, and escaping them would litter
// every name with backslashes. A backslash that would escape what follows
// it is doubled, so the server cannot undo an escape of ours.
//
// A word a forge would link by itself (GitHub's extended autolinks: a
// URL, "www.", an e-mail address; mailto: and the like) is written as a
// code span instead, where no renderer links anything: a backslash
// cannot break an e-mail autolink, since GitHub joins the text around an
// escape before it looks for one.
func MD(s string) string {
	s = Escape(s)
	if !strings.ContainsAny(s, "<>&[]`|\\:@.*_") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	// Words and the bytes between them alternate: each byte between is
	// escaped on its own, each word is text or a code span.
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !wordEnd(s[j]) {
			j++
		}
		w := s[i:j]
		if linkable(w) && !ownURL(w) {
			b.WriteString("`" + w + "`")
		} else {
			mdText(&b, w)
		}
		if j == len(s) {
			break
		}
		switch c := s[j]; c {
		case '\\':
			// A backslash escapes the ASCII punctuation after it, and
			// whatever is written next may be punctuation of ours: the
			// backtick of a code span, or an escape.
			k := j + 1
			for k < len(s) && !wordEnd(s[k]) {
				k++
			}
			if j+1 == len(s) || isPunct(s[j+1]) || (linkable(s[j+1:k]) && !ownURL(s[j+1:k])) {
				b.WriteString(`\\`)
			} else {
				b.WriteByte(c)
			}
		default:
			mdText(&b, s[j:j+1])
		}
		i = j + 1
	}
	return b.String()
}

// wordEnd are the bytes a word (what MD tests for a link) stops at: space
// and every byte MD escapes, none of which may stand in a code span.
func wordEnd(c byte) bool {
	return c == ' ' || strings.IndexByte("<>&[]`|\\", c) >= 0
}

// linkable is true for a word some forge would make a link of, with room
// to spare: any scheme followed by "//", "www." anywhere, any "@", and the
// schemes that take no "//".
func linkable(w string) bool {
	l := strings.ToLower(w)
	if strings.Contains(l, "://") || strings.Contains(l, "www.") || strings.Contains(l, "@") {
		return true
	}
	for _, scheme := range []string{"mailto:", "xmpp:", "javascript:", "vbscript:", "data:", "tel:", "file:"} {
		if strings.Contains(l, scheme) {
			return true
		}
	}
	return false
}

// ownURLs are the pages mcpprobe's own messages cite (the specifications a
// finding refers to): a word that is one of them, of plain URL characters
// only, stays a bare URL that the tidier links. A server that writes one
// links to the specification, nothing else.
var ownURLRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\(?(https://modelcontextprotocol\.io/specification/|https://www\.jsonrpc\.org/specification|https://json-schema\.org/)[A-Za-z0-9/#._-]*\)?[.,;:]?$`)
})

func ownURL(s string) bool { return ownURLRe().MatchString(s) }

// mdText writes s, which holds no backslash, escaped as MD escapes text.
// An emphasis mark with no letter or digit on either side of its run is
// escaped too: "/* x */" or "_ y _" is no emphasis to a renderer, but
// linters (markdownlint's MD037) take it for one with spaces inside. A
// mark against a word ("*now*", "snake_case", "**bold**") stays bare.
func mdText(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*', '_':
			if loneMark(s, i) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '[', ']', '`', '|':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
}

// loneMark is true when the run of s[i] around i has no letter, digit or
// non-ASCII byte next to it within s.
func loneMark(s string, i int) bool {
	a, z := i, i
	for a > 0 && s[a-1] == s[i] {
		a--
	}
	for z < len(s)-1 && s[z+1] == s[i] {
		z++
	}
	wordy := func(c byte) bool {
		return c >= 0x80 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return (a == 0 || !wordy(s[a-1])) && (z == len(s)-1 || !wordy(s[z+1]))
}

// isPunct is CommonMark's ASCII punctuation, what a backslash escapes.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// MDMessage makes a message safe in markdown while keeping its code spans:
// mcpprobe's messages put names in backticks, which read better as code.
// Each code span (a run of backticks closed by a run of the same length,
// as CommonMark pairs them) is written again with Code, where nothing is
// HTML; everything between is MD. A server's backticks inside a name can
// only move where a span ends, never let text out unescaped.
func MDMessage(s string) string {
	s = Escape(s)
	if !strings.Contains(s, "`") {
		return MD(s)
	}
	type run struct{ at, n int }
	var runs []run
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		runs = append(runs, run{i, j - i})
		i = j
	}
	// next[r] is the next run as long as run r, the one that closes it:
	// found from the end, so that pairing stays linear however many
	// unmatched runs a server's text holds.
	next := make([]int, len(runs))
	last := map[int]int{}
	for r := len(runs) - 1; r >= 0; r-- {
		next[r] = -1
		if k, ok := last[runs[r].n]; ok {
			next[r] = k
		}
		last[runs[r].n] = r
	}
	var b strings.Builder
	text := 0
	for r := 0; r < len(runs); {
		c := next[r]
		if c < 0 {
			r++
			continue
		}
		open, close := runs[r], runs[c]
		b.WriteString(MD(s[text:open.at]))
		b.WriteString(Code(s[open.at+open.n : close.at]))
		text = close.at + close.n
		r = c + 1
	}
	b.WriteString(MD(s[text:]))
	return b.String()
}

// plain is untrusted text as st shows it: escaped on a terminal, and made
// inert (MD) in markdown.
func Plain(st Style, s string) string {
	if st == Markdown {
		return MD(s)
	}
	return Escape(s)
}

// cell is an untrusted table cell as st shows it.
func StyledCell(st Style, s string) string {
	if st == Markdown {
		return MD(s)
	}
	return Cell(s)
}

// message is a message that may quote a server (a finding's, a note's)
// as st shows it: in markdown its code spans are kept and the rest is
// made inert (MDMessage).
func Message(st Style, s string) string {
	if st == Markdown {
		return MDMessage(s)
	}
	return Cell(s)
}

// mdStrict is MD with the emphasis marks escaped as well, for text that
// stands where a code span would have shown every character as typed;
// inside MD's own code spans they show as typed already.
func mdStrict(s string) string {
	s = MD(s)
	if !strings.ContainsAny(s, "*_~") {
		return s
	}
	var b strings.Builder
	inCode := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
		case c == '`':
			inCode = !inCode
		case (c == '*' || c == '_' || c == '~') && !inCode:
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TerminalLines makes text of many lines that quotes an input file (a
// committed report's lines in report --check's diff) safe to print: each
// line escaped as Escape escapes it, so that no escape sequence, C1 or
// bidi control in the file reaches the terminal; a line longer than
// maxLine runes is cut, and past maxLines lines the rest is counted, not
// printed.
func TerminalLines(s string, maxLine, maxLines int) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == maxLines {
			rest := len(lines) - i
			if lines[len(lines)-1] == "" {
				rest--
			}
			fmt.Fprintf(&b, "… %d more lines\n", rest)
			break
		}
		text, nl := strings.CutSuffix(l, "\n")
		b.WriteString(Clip(Escape(text), maxLine))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
