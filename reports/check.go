package reports

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// reportDate matches the date that ends the report's "Probed …" line: the
// only part of a report that changes from run to run of the same server.
var reportDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(Probed .* · )(\d{4}-\d{2}-\d{2})$`) })

// ReportDate returns the date a committed report is dated, or "" when it
// has no "Probed …" line, so a check can regenerate with the same date.
func ReportDate(report []byte) string {
	m := headerMatch(report, reportDate())
	if m == nil {
		return ""
	}
	return string(m[2])
}

// reportVersion matches the version of mcpprobe that wrote a report, on
// its "Probed …" line, just before the date. The greedy ".*" takes the
// last "· mcpprobe ": what the server said (its server/discover error, on
// the same line) comes before it.
var reportVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(Probed .* · mcpprobe )(\S+)( · \d{4}-\d{2}-\d{2})$`)
})

// ReportVersion returns the version of mcpprobe that wrote a report, or
// "" when its "Probed …" line names none.
func ReportVersion(report []byte) string {
	m := headerMatch(report, reportVersion())
	if m == nil {
		return ""
	}
	return string(m[2])
}

// The bounds on what Check diffs: the part of each side between the lines
// both share at the start and at the end, with its context. A committed
// file is the pull request's; a diff (Myers', which go-diff runs) is
// quadratic at worst, and 5 million changed lines had run past 90 s.
const (
	MaxDiffLines = 20_000   // lines on either side
	MaxDiffBytes = 4 << 20  // bytes on either side
	MaxDiffLine  = 64 << 10 // bytes in any one line
)

// headerMatch is re's first match in a "Probed …" line of report no longer
// than MaxDiffLine: a line at a time, since the pattern's ".*" over a
// committed file's one 60 MB line took 13 s.
func headerMatch(report []byte, re *regexp.Regexp) [][]byte {
	for i := 0; i < len(report); {
		l := lineAt(report, i)
		i += len(l)
		if bytes.HasPrefix(l, []byte("Probed ")) && len(l) <= MaxDiffLine {
			if m := re.FindSubmatch(trimEOL(l)); m != nil {
				return m
			}
		}
	}
	return nil
}

// Check compares a committed report with a freshly generated one, ignoring
// the date and the version of mcpprobe that wrote it: upgrading mcpprobe
// does not make a report stale unless what it says changed. It returns ""
// when they agree, else a unified diff from the committed file to the
// fresh one, or, when the part that differs is past the diff's bounds, a
// line that says where it starts and why no diff follows.
//
// The work is linear in the files but for the diff, which sees only what
// differs (lines both share at the start and the end are compared a line
// at a time, not diffed) and only within the bounds.
func Check(committed, fresh []byte) string {
	if bytes.Equal(committed, fresh) {
		return ""
	}
	a, b := committed, fresh
	// Lines both files share at the start, then at the end.
	pre, preA, preB := 0, 0, 0
	// The header line, when only its version or date differ: shown as a
	// change of its own should anything else differ.
	var header string
	headerAt := 0
	for preA < len(a) && preB < len(b) {
		la, lb := lineAt(a, preA), lineAt(b, preB)
		if !sameLine(la, lb) {
			break
		}
		if header == "" && !bytes.Equal(trimEOL(la), trimEOL(lb)) {
			headerAt = pre
			header = fmt.Sprintf("@@ -%d +%d @@\n-%s\n+%s\n", pre+1, pre+1, trimEOL(la), trimEOL(lb))
		}
		pre, preA, preB = pre+1, preA+len(la), preB+len(lb)
	}
	endA, endB := len(a), len(b)
	for endA > preA && endB > preB {
		la, lb := lineBefore(a[preA:endA]), lineBefore(b[preB:endB])
		if !sameLine(la, lb) {
			break
		}
		endA, endB = endA-len(la), endB-len(lb)
	}
	if endA == preA && endB == preB {
		return ""
	}
	// ctx lines of context on each side of what differs.
	const ctx = 3
	startA, startB, skipped := preA, preB, pre
	for range ctx {
		if startA == 0 {
			break
		}
		startA -= len(lineBefore(a[:startA]))
		startB -= len(lineBefore(b[:startB]))
		skipped--
	}
	for range ctx {
		if endA == len(a) || endB == len(b) {
			break
		}
		endA += len(lineAt(a, endA))
		endB += len(lineAt(b, endB))
	}
	ma, mb := a[startA:endA], b[startB:endB]
	if why := pastBounds(ma, mb); why != "" {
		return fmt.Sprintf("--- committed\n+++ fresh\nThe files differ from line %d on: %s, past what --check diffs (%d lines, %s or a line of %s on either side), so no diff is shown.\n",
			pre+1, why, MaxDiffLines, iecBytes(MaxDiffBytes), iecBytes(MaxDiffLine))
	}
	// Show the real lines, with their dates, in the diff.
	d := UnifiedDiff("committed", "fresh", string(ma), string(mb), ctx)
	if skipped > 0 {
		d = offsetHunks(d, skipped)
	}
	if header != "" && headerAt < skipped {
		d = strings.Replace(d, "+++ fresh\n", "+++ fresh\n"+header, 1)
	}
	return d
}

func trimEOL(l []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
}

// lineAt returns the line starting at i, with its newline.
func lineAt(b []byte, i int) []byte {
	if e := bytes.IndexByte(b[i:], '\n'); e >= 0 {
		return b[i : i+e+1]
	}
	return b[i:]
}

// lineBefore returns the last line of b, with its newline.
func lineBefore(b []byte) []byte {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	return b[bytes.LastIndexByte(b[:end], '\n')+1:]
}

// sameLine compares two lines as Check does: CRLF as LF, and a "Probed …"
// line without its version and date.
func sameLine(x, y []byte) bool {
	if bytes.HasSuffix(x, []byte("\n")) != bytes.HasSuffix(y, []byte("\n")) {
		return false
	}
	x, y = trimEOL(x), trimEOL(y)
	if bytes.Equal(x, y) {
		return true
	}
	if !bytes.HasPrefix(x, []byte("Probed ")) || !bytes.HasPrefix(y, []byte("Probed ")) || len(x) > MaxDiffLine || len(y) > MaxDiffLine {
		return false
	}
	norm := func(l []byte) []byte {
		l = reportVersion().ReplaceAll(l, []byte("${1}VERSION${3}"))
		return reportDate().ReplaceAll(l, []byte("${1}DATE"))
	}
	return bytes.Equal(norm(x), norm(y))
}

// pastBounds says how the differing parts exceed the diff's bounds, or "".
func pastBounds(a, b []byte) string {
	for _, side := range []struct {
		name string
		b    []byte
	}{{"committed", a}, {"fresh", b}} {
		if len(side.b) > MaxDiffBytes {
			return fmt.Sprintf("%s of the %s file", iecBytes(len(side.b)), side.name)
		}
		if n := bytes.Count(side.b, []byte("\n")); n > MaxDiffLines {
			return fmt.Sprintf("%d lines of the %s file", n, side.name)
		}
		for rest := side.b; len(rest) > 0; {
			l := lineAt(rest, 0)
			if len(l) > MaxDiffLine {
				return fmt.Sprintf("a line of %s in the %s file", iecBytes(len(l)), side.name)
			}
			rest = rest[len(l):]
		}
	}
	return ""
}

// iecBytes is n in KiB or MiB, as the bounds are stated.
func iecBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// hunkHeader matches a unified diff's hunk header.
var hunkHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@$`) })

// offsetHunks moves every hunk of d down by n lines: d diffed a part of
// the files that starts after n lines both share.
func offsetHunks(d string, n int) string {
	return hunkHeader().ReplaceAllStringFunc(d, func(h string) string {
		m := hunkHeader().FindStringSubmatch(h)
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[3])
		return fmt.Sprintf("@@ -%d%s +%d%s @@", a+n, m[2], b+n, m[4])
	})
}

// UnifiedDiff writes a line-based unified diff of a and b with ctx lines of
// context around each change, as diff -u would.
func UnifiedDiff(nameA, nameB, a, b string, ctx int) string {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	type line struct {
		op   byte // ' ', '-', '+'
		text string
	}
	var ls []line
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		text := strings.TrimSuffix(d.Text, "\n")
		for _, l := range strings.Split(text, "\n") {
			ls = append(ls, line{op, l})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	for i := 0; i < len(ls); {
		if ls[i].op == ' ' {
			i++
			continue
		}
		// A hunk runs from ctx lines before this change to ctx lines after
		// the last change closer than 2*ctx lines to the previous one.
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ls); j++ {
			if ls[j].op != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(len(ls), end+ctx+1)
		// Line numbers of the hunk's start in each file.
		na, nb := 1, 1
		for _, l := range ls[:start] {
			if l.op != '+' {
				na++
			}
			if l.op != '-' {
				nb++
			}
		}
		var ha, hb int
		for _, l := range ls[start:stop] {
			if l.op != '+' {
				ha++
			}
			if l.op != '-' {
				hb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(na, ha), hunkRange(nb, hb))
		for _, l := range ls[start:stop] {
			out.WriteByte(l.op)
			out.WriteString(l.text)
			out.WriteByte('\n')
		}
		i = stop
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		start--
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// FitDiff wraps each line of a unified diff wider than width, for a
// terminal: each continuation repeats its line's mark (" ", "-" or "+")
// then "↪ ", so that it still reads as part of that side and no line
// hides the end of a change. width 0 returns the diff as it is; a pipe
// gets it whole.
func FitDiff(d string, width int) string {
	if width <= 4 {
		return d
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(d, "\n") {
		body := strings.TrimSuffix(l, "\n")
		if terminal.Width(body) <= width || body == "" {
			out.WriteString(l)
			continue
		}
		mark, rest := body[:1], body[1:]
		for i, chunk := range terminal.WrapText(rest, width-3) {
			if i == 0 {
				out.WriteString(mark + chunk + "\n")
			} else {
				out.WriteString(mark + "↪ " + chunk + "\n")
			}
		}
		if len(body) == len(l) { // the last line had no newline
			s := strings.TrimSuffix(out.String(), "\n")
			out.Reset()
			out.WriteString(s)
		}
	}
	return out.String()
}
