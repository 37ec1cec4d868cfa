package reports

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// reportDate matches the date that ends the report's "Probed …" line: the
// only part of a report that changes from run to run of the same server.
var reportDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(Probed .* · )(\d{4}-\d{2}-\d{2})$`) })

// ReportDate returns the date a committed report is dated, or "" when it
// has no "Probed …" line, so a check can regenerate with the same date.
func ReportDate(report []byte) string {
	m := reportDate().FindSubmatch(report)
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
	m := reportVersion().FindSubmatch(report)
	if m == nil {
		return ""
	}
	return string(m[2])
}

// Check compares a committed report with a freshly generated one, ignoring
// the date and the version of mcpprobe that wrote it: upgrading mcpprobe
// does not make a report stale unless what it says changed. It returns ""
// when they agree, else a unified diff from the committed file to the
// fresh one.
func Check(committed, fresh []byte) string {
	norm := func(b []byte) string {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		s := reportVersion().ReplaceAllString(string(b), "${1}VERSION${3}")
		return reportDate().ReplaceAllString(s, "${1}DATE")
	}
	a, b := norm(committed), norm(fresh)
	if a == b {
		return ""
	}
	// Show the real lines, with their dates, in the diff.
	return UnifiedDiff("committed", "fresh", string(committed), string(fresh), 3)
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
		if Width(body) <= width || body == "" {
			out.WriteString(l)
			continue
		}
		mark, rest := body[:1], body[1:]
		for i, chunk := range wrapText(rest, width-3) {
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
