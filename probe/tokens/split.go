package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer splits text exactly where o200k_base's pattern does:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// as a backtracking engine runs it: alternatives in order, the first that
// matches wins, greedy quantifiers give back one character at a time. Each
// alternative below is the closed form of that search, worked out once, so a
// piece costs one pass over its characters where the regexp2 engine tiktoken-go
// uses can be quadratic. FuzzSplit holds it to that engine.

// Character classes, one bit each, combined per rune by class.
const (
	cU     = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cW                 // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cN                 // \p{N}
	cP                 // [^\r\n\p{L}\p{N}]
	cS                 // [^\s\p{L}\p{N}]
	cSpace             // \s: unicode.IsSpace, as regexp2 has it
	cNL                // [\r\n]
)

var latin1 [256]uint8

func init() {
	for r := range latin1 {
		latin1[r] = classify(rune(r))
	}
}

func class(r rune) uint8 {
	if r < 0 {
		return 0 // end of text is in no class
	}
	if r < 256 {
		return latin1[r]
	}
	return classify(r)
}

// classify uses the unicode package's tables, the ones regexp2 uses for the
// same class names, so both agree on every code point Go knows.
func classify(r rune) uint8 {
	var c uint8
	letter := false
	switch {
	case unicode.Is(unicode.Lo, r), unicode.Is(unicode.Lm, r):
		c, letter = cU|cW, true
	case unicode.Is(unicode.Ll, r):
		c, letter = cW, true
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		c, letter = cU, true
	case unicode.Is(unicode.M, r):
		c = cU | cW
	}
	num := unicode.Is(unicode.N, r)
	if num {
		c |= cN
	}
	space := unicode.IsSpace(r)
	if space {
		c |= cSpace
	}
	nl := r == '\r' || r == '\n'
	if nl {
		c |= cNL
	}
	if !letter && !num && !nl {
		c |= cP
	}
	if !letter && !num && !space {
		c |= cS
	}
	return c
}

// scanner finds pieces in s, which must be valid UTF-8. touched records
// whether the last match looked at the end of s: a match that did not would
// be the same in any text that continues s, which is what lets OfTools share
// pieces between a tool and the array that holds it.
type scanner struct {
	s       string
	touched bool
}

// at returns the rune at byte offset i and its width, or -1 at the end.
// Every read goes through here so that touched is exact.
func (sc *scanner) at(i int) (rune, int) {
	if i >= len(sc.s) {
		sc.touched = true
		return -1, 0
	}
	if b := sc.s[i]; b < utf8.RuneSelf {
		return rune(b), 1
	}
	return utf8.DecodeRuneInString(sc.s[i:])
}

// next returns the end of the piece that starts at p < len(s).
func (sc *scanner) next(p int) int {
	r, w := sc.at(p)
	c := class(r)
	if c&cP != 0 {
		if e := sc.upperLower(p + w); e >= 0 {
			return e
		}
	}
	if e := sc.upperLower(p); e >= 0 {
		return e
	}
	if c&cP != 0 {
		if e := sc.upper(p + w); e >= 0 {
			return e
		}
	}
	if e := sc.upper(p); e >= 0 {
		return e
	}
	if c&cN != 0 { // \p{N}{1,3}
		e := p + w
		for k := 1; k < 3; k++ {
			r, w := sc.at(e)
			if class(r)&cN == 0 {
				break
			}
			e += w
		}
		return e
	}
	if e := sc.punct(p, r, w, c); e >= 0 {
		return e
	}
	if c&cSpace == 0 {
		// Unreachable: every rune is a letter, a number, a space or in
		// [^\s\p{L}\p{N}]. A regexp engine would skip it; keeping it as a
		// piece of its own at least counts it.
		return p + w
	}
	// The three whitespace alternatives share one run.
	e, lastNL, last, n := p, -1, p, 0
	for {
		r, w := sc.at(e)
		if class(r)&cSpace == 0 {
			break
		}
		last, e, n = e, e+w, n+1
		if r == '\r' || r == '\n' {
			lastNL = e
		}
	}
	switch {
	case lastNL >= 0: // \s*[\r\n]+ gives back to the last newline
		return lastNL
	case e == len(sc.s) || n == 1: // \s+(?!\S) at the end, or \s+
		return e
	default: // \s+(?!\S) leaves the last space to prefix what follows
		return last
	}
}

// upperLower is [U]*[W]+C? from q, or -1. U* takes its longest run, then
// gives back until W+ can start: either right after the run (a lowercase
// letter) or at the last run character that is also in W.
func (sc *scanner) upperLower(q int) int {
	e, lastW := q, -1
	var r rune
	var w int
	for {
		r, w = sc.at(e)
		c := class(r)
		if c&cU == 0 {
			break
		}
		e += w
		if c&cW != 0 {
			lastW = e
		}
	}
	switch {
	case class(r)&cW != 0:
		e = sc.run(e+w, cW)
	case lastW >= 0:
		e = lastW
	default:
		return -1
	}
	return e + sc.contraction(e)
}

// upper is [U]+[W]*C? from q, or -1.
func (sc *scanner) upper(q int) int {
	e := sc.run(q, cU)
	if e == q {
		return -1
	}
	e = sc.run(e, cW)
	return e + sc.contraction(e)
}

// punct is ` ?[^\s\p{L}\p{N}]+[\r\n/]*` at p, or -1.
func (sc *scanner) punct(p int, r rune, w int, c uint8) int {
	start := p
	if r == ' ' {
		r2, _ := sc.at(p + 1)
		if class(r2)&cS == 0 {
			return -1
		}
		start = p + 1
	} else if c&cS == 0 {
		return -1
	}
	e := sc.run(start, cS)
	for {
		r, w := sc.at(e)
		if r != '\r' && r != '\n' && r != '/' {
			return e
		}
		e += w
	}
}

// run returns the end of the run of runes in class c from i. ASCII is
// stepped over a byte at a time; the rune that ends the run, or the end of
// the text, is still read through at.
func (sc *scanner) run(i int, c uint8) int {
	s := sc.s
	for {
		for i < len(s) && s[i] < utf8.RuneSelf && latin1[s[i]]&c != 0 {
			i++
		}
		r, w := sc.at(i)
		if class(r)&c == 0 {
			return i
		}
		i += w
	}
}

// contraction is the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
// Case folding is unicode.ToLower, as regexp2 does it.
func (sc *scanner) contraction(i int) int {
	if r, _ := sc.at(i); r != '\'' {
		return 0
	}
	r, w := sc.at(i + 1)
	if r < 0 {
		return 0
	}
	switch unicode.ToLower(r) {
	case 's', 't', 'm', 'd':
		return 1 + w
	case 'r', 'v':
		if r2, w2 := sc.at(i + 1 + w); r2 >= 0 && unicode.ToLower(r2) == 'e' {
			return 1 + w + w2
		}
	case 'l':
		if r2, w2 := sc.at(i + 1 + w); r2 >= 0 && unicode.ToLower(r2) == 'l' {
			return 1 + w + w2
		}
	}
	return 0
}
