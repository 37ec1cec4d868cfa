package result

import (
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// spillFile stands for the path a host writes a spilled result to: it is
// the host's choice, not the server's.
const spillFile = "<file the host writes>"

// spill applies a rule under which, past a size, the host saves the
// result to a file and the model reads a notice with part of it: the
// head and the tail (Gemini CLI), a preview (Copilot CLI) or whole lines
// from the start (OpenCode).
func spill(d *Delivery, r hosts.ResultRule, a Analysis, t *resultText) {
	switch r.Keep {
	case "head_tail":
		spillHeadTail(d, r, a, t)
	case "preview":
		spillPreview(d, r, t)
	case "head_lines":
		spillLines(d, r, t)
	}
}

func spillHeadTail(d *Delivery, r hosts.ResultRule, a Analysis, t *resultText) {
	text := t.all
	if r.Wrap != "" {
		text = strings.Replace(r.Wrap, "{text}", text, 1)
	}
	n := utf16Len(text)
	d.Unit, d.Size, d.Limit = "UTF-16 units", n, r.MaxChars
	if r.OneTextOnly && (len(a.Blocks) != 1 || a.Blocks[0].Type != "text") {
		d.Outcome, d.Delivered, d.View = Whole, n, text
		d.Note = join(d.Note, fmt.Sprintf("the cut applies to a result of one text block; this one has %s: delivered as it is", plural(len(a.Blocks), "block")))
		return
	}
	if n <= r.MaxChars {
		d.Outcome, d.Delivered, d.View = Whole, n, text
		if r.Wrap != "" {
			d.Note = join(d.Note, "the text is wrapped as "+strings.ReplaceAll(r.Wrap, "\n", `\n`)+" first")
		}
		return
	}
	head := int(float64(r.MaxChars) * r.HeadShare)
	tail := r.MaxChars - head
	omitted := n - head - tail
	d.Outcome, d.Delivered, d.Lost = Truncated, head+tail, omitted
	d.View = fillText(r.Marker, map[string]string{
		"{head}": num(head), "{tail}": num(tail), "{omitted}": num(omitted), "{file}": spillFile,
		"{head_text}": prefixUTF16(text, head), "{tail_text}": suffixUTF16(text, tail),
	})
	d.Note = join(d.Note, fmt.Sprintf("%s UTF-16 units (the text wrapped as %s) over %s: the model reads the first %s and the last %s around a marker; %s in the middle are dropped; the whole result is saved to a file",
		num(n), strings.ReplaceAll(r.Wrap, "\n", `\n`), num(r.MaxChars), num(head), num(tail), num(omitted)))
}

func spillPreview(d *Delivery, r hosts.ResultRule, t *resultText) {
	n := len(t.all)
	d.Unit, d.Size, d.Limit = "bytes", n, r.MaxBytes
	if n <= r.MaxBytes {
		if r.AtMost {
			d.Note = join(d.Note, fmt.Sprintf("the threshold is known only as at most %s bytes: whether %s bytes are saved to a file is not known", num(r.MaxBytes), num(n)))
			return
		}
		d.Outcome, d.Delivered, d.View = Whole, n, t.all
		return
	}
	preview := prefixUTF16(t.all, r.PreviewChars)
	d.Outcome, d.Delivered, d.Lost = Persisted, len(preview), n-len(preview)
	d.View = fillText(r.Marker, map[string]string{
		"{kb}": fmt.Sprintf("%.1f", float64(n)/1024), "{file}": spillFile, "{head_text}": preview,
	})
	d.Note = join(d.Note, fmt.Sprintf("%s bytes, over the threshold (at most %s bytes): saved to a file; the model reads a notice and the first %s characters", num(n), num(r.MaxBytes), num(r.PreviewChars)))
}

func spillLines(d *Delivery, r hosts.ResultRule, t *resultText) {
	s := t.all
	lines := strings.Split(s, "\n")
	n := len(s)
	d.Unit, d.Size, d.Limit = "bytes", n, r.MaxBytes
	if len(lines) <= r.MaxLines && n <= r.MaxBytes {
		d.Outcome, d.Delivered, d.View = Whole, n, s
		return
	}
	kept, size, byBytes := 0, 0, false
	for kept < len(lines) && kept < r.MaxLines {
		add := len(lines[kept])
		if kept > 0 {
			add++
		}
		if size+add > r.MaxBytes {
			byBytes = true
			break
		}
		size += add
		kept++
	}
	omitted, unit := len(lines)-kept, "lines"
	if byBytes {
		omitted, unit = n-size, "bytes"
	}
	head := strings.Join(lines[:kept], "\n")
	d.Outcome, d.Delivered, d.Lost = Truncated, size, n-size
	d.View = fillText(r.Marker, map[string]string{"{head_text}": head, "{omitted}": fmt.Sprint(omitted), "{unit}": unit, "{file}": spillFile})
	note := fmt.Sprintf("%s bytes in %s, over %s bytes or %s lines: the model reads the first %s whole (%s bytes) and a notice; the whole result is saved to a file",
		num(n), plural(len(lines), "line"), num(r.MaxBytes), num(r.MaxLines), plural(kept, "line"), num(size))
	if kept == 0 {
		note += "; its first line alone is over the limit, so none of its text reaches the model"
	}
	d.Note = join(d.Note, note)
}

// fillText replaces placeholders; {head_text} and {tail_text} last and
// once each, so a result that holds a placeholder's name is left as it
// is, and a marker of a --hosts file that repeats them cannot multiply
// the result's size.
func fillText(tmpl string, vals map[string]string) string {
	var pairs []string
	for k, v := range vals {
		if k != "{head_text}" && k != "{tail_text}" {
			pairs = append(pairs, k, v)
		}
	}
	tmpl = strings.NewReplacer(pairs...).Replace(tmpl)
	// The tail first: a head holding "{tail_text}" stays as it is.
	if v, ok := vals["{tail_text}"]; ok {
		tmpl = strings.Replace(tmpl, "{tail_text}", v, 1)
	}
	if v, ok := vals["{head_text}"]; ok {
		tmpl = strings.Replace(tmpl, "{head_text}", v, 1)
	}
	return tmpl
}

// prefixUTF16 is s's first n UTF-16 units, as a JavaScript slice(0, n)
// cuts (a pair split at the end is dropped: Go strings hold no halves).
func prefixUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// suffixUTF16 is s's last n UTF-16 units, as slice(-n) cuts.
func suffixUTF16(s string, n int) string {
	total := utf16Len(s)
	if n >= total {
		return s
	}
	skip := total - n
	units := 0
	for i, r := range s {
		if units >= skip {
			return s[i:]
		}
		units++
		if r > 0xFFFF {
			units++
		}
	}
	return ""
}
