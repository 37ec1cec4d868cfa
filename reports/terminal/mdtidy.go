package terminal

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// TidyMarkdown readies markdown the renderers wrote for a linter and a
// forge: one blank line around every table, heading and fenced block,
// never two in a row, bare URLs made links, and one newline at the end.
// Inside a fenced block nothing changes. It is what lets every section
// write its own blank lines without knowing what comes next.
func TidyMarkdown(md []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(md), "\n"), "\n")
	var out []string
	blank := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	inFence := false
	prevKind := ""
	var table []string
	flushTable := func() {
		out = append(out, tableRows(table)...)
		table = nil
	}
	for _, l := range lines {
		if len(table) > 0 && (inFence || mdKind(l) != "table") {
			flushTable()
		}
		if inFence {
			out = append(out, l)
			if strings.HasPrefix(l, "```") {
				inFence = false
				prevKind = "fence"
			}
			continue
		}
		kind := mdKind(l)
		switch {
		case kind == "blank":
			blank()
			prevKind = kind
			continue
		case kind == "fence":
			blank()
			inFence = true
		case kind == "heading", kind == "table" && prevKind != "table":
			blank()
		case kind != "table" && prevKind == "table", prevKind == "heading", prevKind == "fence":
			blank()
		}
		prevKind = kind
		if kind == "table" {
			table = append(table, l)
			continue
		}
		if kind != "fence" {
			l = linkURLs(l)
		}
		out = append(out, l)
	}
	if len(table) > 0 {
		flushTable()
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

func mdKind(l string) string {
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		return "blank"
	case strings.HasPrefix(t, "```"):
		return "fence"
	case strings.HasPrefix(l, "#"):
		return "heading"
	case strings.HasPrefix(t, "|"):
		return "table"
	}
	return "text"
}

var bareURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s<>()|\x60"]+`) })

// linkURLs puts a bare URL in angle brackets, an autolink; one in a code
// span, already in brackets or in a link's parentheses is left alone.
func linkURLs(l string) string {
	parts := splitCodeSpans(l)
	for i := 0; i < len(parts); i += 2 { // even parts are outside code spans
		p := parts[i]
		var b strings.Builder
		last := 0
		for _, m := range bareURL().FindAllStringIndex(p, -1) {
			start, end := m[0], m[1]
			// Trailing punctuation ends the sentence, not the URL.
			for end > start && strings.ContainsRune(".,;:!?'", rune(p[end-1])) {
				end--
			}
			head := p[:start]
			b.WriteString(p[last:start])
			// An escaped "\](" is text, not a link: its URL is bare.
			link := (strings.HasSuffix(head, "](") && !strings.HasSuffix(head, `\](`)) ||
				(strings.HasSuffix(head, "[") && !strings.HasSuffix(head, `\[`))
			if strings.HasSuffix(head, "<") || link {
				b.WriteString(p[start:end])
			} else {
				b.WriteString("<" + p[start:end] + ">")
			}
			last = end
		}
		b.WriteString(p[last:])
		parts[i] = b.String()
	}
	return strings.Join(parts, "`")
}

// splitCodeSpans splits l at its backticks, as strings.Split would, except
// a backtick escaped with a backslash: that one is text (server text is
// escaped so), and must not be taken for the edge of a code span.
func splitCodeSpans(l string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '\\':
			i++ // the escaped character, whatever it is
		case '`':
			parts = append(parts, l[start:i])
			start = i + 1
		}
	}
	return append(parts, l[start:])
}

// tidyTo writes what render writes to w, tidied (TidyMarkdown).
func TidyTo(w io.Writer, render func(io.Writer)) {
	var b bytes.Buffer
	var into io.Writer = &b
	if s, ok := w.(*Screen); ok {
		// The renderer still sees the screen's choices (--verbose).
		into = &Screen{W: &b, Width: s.Width, Color: s.Color, Verbose: s.Verbose}
	}
	render(into)
	_, _ = w.Write(TidyMarkdown(b.Bytes()))
}

// tableRows links the URLs in a table's cells and writes each row again
// unpadded, as MarkdownTable does: a link's brackets change its own cell,
// and no other row.
func tableRows(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		cells := splitRow(r)
		for j, c := range cells {
			switch {
			case i == 1 && isDelimiter(c):
				// |:---|---:|: keep each colon, three dashes.
				d := "---"
				if strings.HasPrefix(c, ":") {
					d = ":" + d
				}
				if strings.HasSuffix(c, ":") && len(c) > 1 {
					d += ":"
				}
				cells[j] = d
			case i != 1:
				cells[j] = linkURLs(c)
			}
		}
		var b strings.Builder
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" ")
			if c != "" {
				b.WriteString(c + " ")
			}
			b.WriteString("|")
		}
		out[i] = b.String()
	}
	return out
}

// splitRow splits a table row on its unescaped pipes, each cell trimmed.
func splitRow(r string) []string {
	r = strings.TrimSpace(r)
	r = strings.TrimPrefix(r, "|")
	r = strings.TrimSuffix(r, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '\\' && i+1 < len(r):
			cur.WriteByte(r[i])
			cur.WriteByte(r[i+1])
			i++
		case r[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(r[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func isDelimiter(c string) bool {
	return c != "" && strings.Trim(c, ":-") == ""
}
