// Package wire summarises what a server put on the wire: per tool, the
// sizes a host pays for, measured on the bytes as received.
package wire

import (
	"sort"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// Tool is one tool's definition, measured.
type Tool struct {
	Name  string
	Title string // title, or annotations.title
	// Description length in UTF-16 code units (what JavaScript hosts
	// count), in Unicode code points and in UTF-8 bytes.
	DescUTF16, DescRunes, DescBytes int
	HasDescription                  bool
	InputSchemaBytes                int // raw bytes as received; 0 if absent
	OutputSchemaBytes               int // -1 if absent
	Annotations                     []string
	DefinitionBytes                 int // the whole tool object as received
}

// Tools measures every tool of the capture, in wire order.
func Tools(c *probe.Capture) []Tool {
	out := make([]Tool, 0, len(c.Tools.Items))
	for _, raw := range c.Tools.Items {
		// One pass over the members, not a Get each: each Get scans from
		// the start, past every description before its key. The first of
		// duplicate keys wins, as with Get.
		var name, title, d, in, outSchema, ann gjson.Result
		gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
			var to *gjson.Result
			switch k.String() {
			case "name":
				to = &name
			case "title":
				to = &title
			case "description":
				to = &d
			case "inputSchema":
				to = &in
			case "outputSchema":
				to = &outSchema
			case "annotations":
				to = &ann
			default:
				return true
			}
			if !to.Exists() {
				*to = v
			}
			return true
		})
		t := Tool{
			Name:              name.String(),
			Title:             title.String(),
			HasDescription:    d.Exists(),
			OutputSchemaBytes: -1,
			DefinitionBytes:   len(raw),
		}
		if t.Title == "" {
			t.Title = ann.Get("title").String()
		}
		desc := d.String()
		t.DescBytes = len(desc)
		t.DescRunes = utf8.RuneCountInString(desc)
		t.DescUTF16 = UTF16Len(desc)
		if in.Exists() {
			t.InputSchemaBytes = len(in.Raw)
		}
		if outSchema.Exists() {
			t.OutputSchemaBytes = len(outSchema.Raw)
		}
		t.Annotations = annotations(ann)
		out = append(out, t)
	}
	return out
}

var hints = []struct{ key, label string }{
	{"readOnlyHint", "readOnly"},
	{"destructiveHint", "destructive"},
	{"idempotentHint", "idempotent"},
	{"openWorldHint", "openWorld"},
}

// annotations lists the hints a tool sets; a hint set to false is shown
// negated, since false differs from the spec's default for some of them.
func annotations(a gjson.Result) []string {
	var out []string
	for _, h := range hints {
		switch v := a.Get(h.key); v.Type {
		case gjson.True:
			out = append(out, h.label)
		case gjson.False:
			out = append(out, "!"+h.label)
		}
	}
	var other []string
	a.ForEach(func(k, _ gjson.Result) bool {
		switch k.String() {
		case "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title":
		default:
			other = append(other, k.String())
		}
		return true
	})
	sort.Strings(other)
	return append(out, other...)
}

// ListTotals is what one list cost on the wire.
type ListTotals struct {
	Pages, Items, Bytes int
}

// Totals adds up a list's pages: Bytes is the raw responses' size.
func Totals(l probe.List) ListTotals {
	t := ListTotals{Pages: len(l.Pages), Items: len(l.Items)}
	for _, p := range l.Pages {
		t.Bytes += len(p.Raw)
	}
	return t
}

// UTF16Len is a string's length in UTF-16 code units, the unit JavaScript
// hosts cut in.
//
// It counts without building the units: two for a rune past the Basic
// Multilingual Plane, one for any other (an invalid byte becomes U+FFFD,
// one unit, as utf16.Encode would make it). Encoding 10,000 tools' texts
// just to count them cost budget a tenth of its time.
func UTF16Len(s string) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return len(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// InputSchema returns a tool's input schema as received, or nil.
func InputSchema(raw []byte) []byte { return member(raw, "inputSchema") }

// OutputSchema returns a tool's output schema as received, or nil.
func OutputSchema(raw []byte) []byte { return member(raw, "outputSchema") }

func member(raw []byte, key string) []byte {
	v := gjson.GetBytes(raw, key)
	if !v.Exists() {
		return nil
	}
	return []byte(v.Raw)
}
