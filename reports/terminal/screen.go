package terminal

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// Screen is text for a person at a terminal: how wide it is and whether
// it shows colour. A renderer handed a *Screen as its writer fits its
// tables to Width and colours severities and verdicts; any other writer
// (a file, a pipe, a test's buffer) gets full width and no colour.
type Screen struct {
	W     io.Writer
	Width int  // columns; 0 for no limit
	Color bool // ANSI colour for severities and verdicts
	// Verbose asks for every row of every table (--verbose): by default
	// rows that all say the same fold into one line naming what they
	// cover, and the answer comes first.
	Verbose bool
}

func (s *Screen) Write(p []byte) (int, error) { return s.W.Write(p) }

func screenOf(w io.Writer) (width int, color bool) {
	if s, ok := w.(*Screen); ok {
		return s.Width, s.Color
	}
	return 0, false
}

// verbose is whether w asks for the full tables (--verbose).
func Verbose(w io.Writer) bool {
	s, ok := w.(*Screen)
	return ok && s.Verbose
}

// ANSI colours: the few a terminal shows the same everywhere.
const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	green  = "\x1b[32m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// Severity is a severity word as w shows it: red for error, yellow for
// warning, dim for info, on a colour screen; the word alone elsewhere.
func Severity(w io.Writer, s string) string {
	if _, color := screenOf(w); !color {
		return s
	}
	switch s {
	case "error":
		return red + s + reset
	case "warning":
		return yellow + s + reset
	case "info":
		return dim + s + reset
	}
	return s
}

// Verdict colours a verdict cell on a colour screen by the mark it starts
// with: ✓ green, ✗ red, ⚠ yellow.
func Verdict(w io.Writer, s string) string {
	if _, color := screenOf(w); !color {
		return s
	}
	switch {
	case strings.HasPrefix(s, "✓"):
		return green + s + reset
	case strings.HasPrefix(s, "✗"):
		return red + s + reset
	case strings.HasPrefix(s, "⚠"):
		return yellow + s + reset
	}
	return s
}

// Width is the columns s takes on a terminal: wide characters count two,
// ANSI escapes none.
func Width(s string) int { return twwidth.Width(s) }

// Fit wraps every line of text wider than width at spaces, its
// continuation lines indented under the value of a "label   value" line
// or by two more spaces; a word longer than a line is broken. A table
// line (box drawing) is cut with an ellipsis instead: Table fits tables
// already, so this only guards the width. width 0 returns text as it is.
func Fit(text []byte, width int) []byte {
	if width <= 0 {
		return text
	}
	var out strings.Builder
	lines := strings.SplitAfter(string(text), "\n")
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		nl := len(body) < len(l)
		if Width(body) <= width {
			out.WriteString(l)
			continue
		}
		if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(body, " ")); strings.ContainsRune("┌│├└╭╰┬┼", r) {
			out.WriteString(twwidth.Truncate(body, width, "…"))
		} else {
			out.WriteString(strings.Join(wrapLine(body, width), "\n"))
		}
		if nl {
			out.WriteByte('\n')
		}
	}
	return []byte(out.String())
}

// wrapLine wraps one line, hanging its continuation lines.
func wrapLine(line string, width int) []string {
	indent := hangIndent(line)
	if indent > width/2 {
		indent = min(4, width/2)
	}
	pad := strings.Repeat(" ", indent)
	var out []string
	first := true
	for _, l := range WrapText(strings.TrimLeft(line, " "), width-indent) {
		if first {
			lead := len(line) - len(strings.TrimLeft(line, " "))
			// The first line keeps its own leading spaces, and so is
			// wrapped narrower by them.
			if lead > 0 && Width(l)+lead > width {
				return wrapHard(line, width, pad)
			}
			out = append(out, strings.Repeat(" ", lead)+l)
			first = false
			continue
		}
		out = append(out, pad+l)
	}
	return out
}

func wrapHard(line string, width int, pad string) []string {
	out := WrapText(line, width-len(pad))
	for i := 1; i < len(out); i++ {
		out[i] = pad + out[i]
	}
	return out
}

// hangIndent is where a continuation line starts: under the value of a
// "label   value" line (two or more spaces after a label), else two
// spaces in from the line's own indent.
func hangIndent(line string) int {
	lead := len(line) - len(strings.TrimLeft(line, " "))
	rest := line[lead:]
	if i := strings.Index(rest, "  "); i > 0 && i < 30 {
		j := i
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		return Width(line[:lead+j])
	}
	return lead + 2
}

// wrapText breaks s into lines of at most width columns: at spaces, else
// after a hyphen, slash, comma or similar, else anywhere.
func WrapText(s string, width int) []string {
	width = max(width, 1)
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range unitWords(s) {
		ww := Width(word)
		switch {
		case curW == 0 && ww <= width:
			cur.WriteString(word)
			curW = ww
		case curW > 0 && curW+1+ww <= width:
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
		default:
			if curW > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
				curW = 0
			}
			for Width(word) > width {
				head, tail := breakWord(word, width)
				lines = append(lines, head)
				word = tail
			}
			cur.WriteString(word)
			curW = Width(word)
		}
	}
	return append(lines, cur.String())
}

// breakWord splits a word too long for width: after the last hyphen,
// slash, underscore, dot, comma or semicolon that fits, else at width.
func breakWord(word string, width int) (string, string) {
	cut, w := 0, 0
	best := 0
	for i, r := range word {
		rw := Width(string(r))
		if w+rw > width {
			break
		}
		w += rw
		cut = i + utf8.RuneLen(r)
		if strings.ContainsRune("-/_.,;:)", r) && cut < len(word) {
			best = cut
		}
	}
	if best > 0 && best >= cut/2 {
		cut = best
	}
	if cut == 0 {
		_, n := utf8.DecodeRuneInString(word)
		cut = n
	}
	return word[:cut], word[cut:]
}

// fitColumns picks each column's width so that a table of them is at
// most width columns, given each column's natural width and the least
// it can take without breaking a word (mins); overhead is what the
// borders and padding take per column. The widest columns give way first,
// down to a common cap, so short columns (severities, numbers) stay whole;
// only when the words themselves cannot fit are the longest words broken.
// It returns nil when the table fits as it is.
func fitColumns(natural, mins []int, width, overhead int) []int {
	n := len(natural)
	avail := width - (overhead*n + 1)
	if n == 0 || sum(natural) <= avail {
		return nil
	}
	if sum(mins) > avail {
		// Even whole words do not fit: the longest words give way.
		mins = capped(mins, largestCap(mins, make([]int, n), max(avail, n)))
	}
	c := largestCap(natural, mins, avail)
	out := capped(natural, c)
	spare := avail
	for i := range out {
		out[i] = max(out[i], mins[i])
		spare -= out[i]
	}
	// What the cap leaves unused goes to the columns it cut, in order.
	for i, w := range natural {
		if add := min(spare, w-out[i]); add > 0 {
			out[i] += add
			spare -= add
		}
	}
	return out
}

// largestCap is the largest c with sum(max(floor, min(w, c))) <= avail
// (at least 1).
func largestCap(ws, floor []int, avail int) int {
	total := func(c int) int {
		s := 0
		for i, w := range ws {
			s += max(floor[i], min(w, c))
		}
		return s
	}
	lo, hi := 1, 1
	for _, w := range ws {
		hi = max(hi, w)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if total(mid) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func capped(ws []int, c int) []int {
	out := make([]int, len(ws))
	for i, w := range ws {
		out[i] = min(w, c)
	}
	return out
}

func sum(ws []int) int {
	s := 0
	for _, w := range ws {
		s += w
	}
	return s
}

// minWidth is the least a cell can be given without breaking a word: a
// short cell (a number with its unit, "whole, deferred") is kept whole,
// a longer one down to its longest word. A header breaks at its hyphens
// too (claude-code).
func minWidth(cell string, header bool) int {
	if !header && cellWidth(cell) <= 12 {
		return cellWidth(cell)
	}
	m := 1
	for _, w := range unitWords(strings.ReplaceAll(cell, "\n", " ")) {
		if header {
			for _, part := range strings.SplitAfter(w, "-") {
				m = max(m, Width(part))
			}
			continue
		}
		m = max(m, Width(w))
	}
	return m
}

// wrapCell wraps a cell's text to width, keeping its own line breaks. A
// cell coloured whole is coloured again on each of its lines, so that no
// colour runs into the table's borders.
func wrapCell(s string, width int) string {
	for _, c := range []string{red, yellow, green, dim} {
		if strings.HasPrefix(s, c) && strings.HasSuffix(s, reset) {
			lines := strings.Split(wrapCell(s[len(c):len(s)-len(reset)], width), "\n")
			for i, l := range lines {
				lines[i] = c + l + reset
			}
			return strings.Join(lines, "\n")
		}
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if Width(l) <= width {
			lines = append(lines, l)
			continue
		}
		lines = append(lines, WrapText(l, width)...)
	}
	return strings.Join(lines, "\n")
}

func cellWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, Width(l))
	}
	return w
}

// units are the words a number is never parted from when a line wraps:
// "54.34 ms" stays on one line.
var units = map[string]bool{
	"ns": true, "µs": true, "us": true, "ms": true, "s": true, "min": true, "h": true,
	"B": true, "KB": true, "kB": true, "KiB": true, "MB": true, "MiB": true, "GB": true, "GiB": true,
	"bytes": true, "%": true,
}

// unitWords splits s at spaces, as a line may break, except between a
// number and its unit.
func unitWords(s string) []string {
	words := strings.Split(s, " ")
	out := words[:0:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if i+1 < len(words) && units[words[i+1]] && isNumber(w) {
			w += " " + words[i+1]
			i++
		}
		out = append(out, w)
	}
	return out
}

// isNumber is whether w reads as a number: digits with a sign, a
// decimal point, thousands separators or a leading "~", "<" or ">".
func isNumber(w string) bool {
	w = strings.TrimLeft(w, "~<>≈+-(")
	digits := 0
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' || r == ',':
		default:
			return false
		}
	}
	return digits > 0
}
