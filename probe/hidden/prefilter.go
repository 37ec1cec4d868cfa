package hidden

import (
	"regexp/syntax"
	"strings"
)

// A text rule's pattern costs microseconds per field in Go's regexp
// engine, and nearly every field of a real server matches none of them.
// Each pattern can only match a text that holds one of a few literal
// strings ("ignore", "instructions", "tool", …), so one pass over the
// text notes which of all the patterns' literals it holds, and a pattern
// runs only where one of its own is there. The literals are derived from
// the patterns themselves (required), not written beside them, so that a
// pattern edited later cannot drift away from its prefilter.

// required is a set of literals one of which every match of re holds, or
// nil when none is known (a pattern that can match without any literal).
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part must match: the most selective part's set will do.
		var best []string
		for _, s := range re.Sub {
			if r := required(s); r != nil && (best == nil || selectivity(r) > selectivity(best)) {
				best = r
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			r := required(s)
			if r == nil {
				return nil
			}
			out = append(out, r...)
		}
		return out
	}
	return nil
}

// selectivity ranks a literal set: its shortest literal's length first
// (a long literal is rare in text), then fewer literals.
func selectivity(lits []string) int {
	short := 1 << 20
	for _, l := range lits {
		short = min(short, len(l))
	}
	return short*1000 - len(lits)
}

// literals is the literals of several patterns, found in one pass.
type literals struct {
	lits []string
	// byFirst lists, per first byte, the literals that start with it,
	// each with its first two bytes for a cheap test before the compare.
	byFirst [256][]firstTwo
}

type firstTwo struct {
	idx int
	two uint16 // second byte in the low 8 bits; 0x100 when the literal is one byte
}

// set is which literals a text holds, a bit per literal: an array, so
// that a field's scan allocates nothing.
type set [maxLiterals / 64]uint64

// maxLiterals bounds the literals of all patterns; a pattern that would
// pass it always runs.
const maxLiterals = 512

func (s *set) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// prefilter is one pattern's literals as indexes into literals; nil
// indexes means the pattern always runs.
type prefilter struct {
	idx    []int
	always bool
}

// add derives a pattern's literals and returns its prefilter.
func (l *literals) add(expr string) prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return prefilter{always: true}
	}
	req := required(re)
	if req == nil {
		return prefilter{always: true}
	}
	var p prefilter
	for _, lit := range req {
		if lit == "" {
			return prefilter{always: true}
		}
		i := -1
		for j, have := range l.lits {
			if have == lit {
				i = j
			}
		}
		if i < 0 && len(l.lits) == maxLiterals {
			return prefilter{always: true}
		}
		if i < 0 {
			i = len(l.lits)
			l.lits = append(l.lits, lit)
			two := uint16(0x100)
			if len(lit) > 1 {
				two = uint16(lit[1])
			}
			l.byFirst[lit[0]] = append(l.byFirst[lit[0]], firstTwo{i, two})
		}
		p.idx = append(p.idx, i)
	}
	return p
}

// scan is the one pass: which literals s holds.
func (l *literals) scan(s string) set {
	var found set
	for i := 0; i < len(s); i++ {
		cands := l.byFirst[s[i]]
		if len(cands) == 0 {
			continue
		}
		second := uint16(0x100)
		if i+1 < len(s) {
			second = uint16(s[i+1])
		}
		for _, c := range cands {
			if (c.two == 0x100 || c.two == second) && !found.has(c.idx) && strings.HasPrefix(s[i:], l.lits[c.idx]) {
				found[c.idx/64] |= 1 << (c.idx % 64)
			}
		}
	}
	return found
}

// may reports whether the pattern can match a text holding found.
func (p prefilter) may(found *set) bool {
	if p.always || noPrefilter {
		return true
	}
	for _, i := range p.idx {
		if found.has(i) {
			return true
		}
	}
	return false
}

// noPrefilter runs every pattern on every text: the tests compare both ways.
var noPrefilter = false
