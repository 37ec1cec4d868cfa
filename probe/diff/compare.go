package diff

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/sergi/go-diff/diffmatchpatch"
	"github.com/tidwall/gjson"
)

// Change is one difference between a reference tool and a live one.
type Change struct {
	Tool string
	Path string // "find_orders.inputSchema.properties.limit.maximum"
	// Kind is "added", "removed", "changed", or "order" (same keys or
	// elements, another order).
	Kind     string
	Old, New []byte // raw JSON as each side had it; nil where absent
	Note     string // a known SDK artefact that explains it
	// WordDiff is a word-level diff of a changed description:
	// "[-old words-]{+new words+}".
	WordDiff string
}

// Comparison answers, in order: same bytes? same meaning? and if not, what.
type Comparison struct {
	RefFormat          string
	IdenticalBytes     bool
	BytesComparable    bool // both sides hold bytes a server sent
	IdenticalCanonical bool
	ToolsAdded         []string
	ToolsRemoved       []string
	Changes            []Change
}

// Compare compares a reference with a live (or second) side.
func Compare(ref, live Side) Comparison {
	r := Comparison{RefFormat: ref.Format, BytesComparable: ref.Wire && live.Wire}
	refBy := map[string]Tool{}
	for _, t := range ref.Tools {
		refBy[t.Name] = t
	}
	liveBy := map[string]Tool{}
	for _, t := range live.Tools {
		liveBy[t.Name] = t
	}
	for _, t := range ref.Tools {
		if _, ok := liveBy[t.Name]; !ok {
			r.ToolsRemoved = append(r.ToolsRemoved, t.Name)
		}
	}
	for _, t := range live.Tools {
		l, ok := refBy[t.Name]
		if !ok {
			r.ToolsAdded = append(r.ToolsAdded, t.Name)
			continue
		}
		w := walker{tool: t.Name, refFormat: ref.Format}
		w.walk(t.Name, gjson.ParseBytes(l.Raw), gjson.ParseBytes(t.Raw))
		r.Changes = append(r.Changes, w.changes...)
	}
	if ref.HasMeta && live.HasMeta {
		a, b := ref.Instructions, live.Instructions
		switch {
		case a == nil && b != nil:
			r.Changes = append(r.Changes, Change{Path: "instructions", Kind: "added", New: canon.String(*b)})
		case a != nil && b == nil:
			r.Changes = append(r.Changes, Change{Path: "instructions", Kind: "removed", Old: canon.String(*a)})
		case a != nil && b != nil && *a != *b:
			r.Changes = append(r.Changes, Change{Path: "instructions", Kind: "changed", Old: canon.String(*a), New: canon.String(*b), WordDiff: WordDiff(*a, *b)})
		}
	}
	// A snapshot sorts its tools on purpose: order means nothing there.
	if ref.Format != "mcpprobe-snapshot" && namesOrder(ref.Tools) != namesOrder(live.Tools) && len(r.ToolsAdded) == 0 && len(r.ToolsRemoved) == 0 {
		r.Changes = append(r.Changes, Change{Path: "tools", Kind: "order", Old: names(ref.Tools), New: names(live.Tools),
			Note: "the same tools in another order (a server that sorts, or pages that came back in another order)"})
	}
	r.IdenticalCanonical = len(r.ToolsAdded) == 0 && len(r.ToolsRemoved) == 0
	for _, c := range r.Changes {
		if c.Kind != "order" {
			r.IdenticalCanonical = false
		}
	}
	// Each tool's bytes, matched by name; tool order is reported apart.
	if r.BytesComparable && len(ref.Tools) == len(live.Tools) && len(r.ToolsAdded) == 0 && len(r.ToolsRemoved) == 0 {
		r.IdenticalBytes = true
		for _, t := range live.Tools {
			if !bytes.Equal(refBy[t.Name].Raw, t.Raw) {
				r.IdenticalBytes = false
			}
		}
	}
	return r
}

// Drift reports whether anything changed, order included.
func (r Comparison) Drift() bool {
	return len(r.ToolsAdded) > 0 || len(r.ToolsRemoved) > 0 || len(r.Changes) > 0
}

func namesOrder(ts []Tool) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Name + "\x00")
	}
	return b.String()
}

func names(ts []Tool) []byte {
	var parts [][]byte
	for _, t := range ts {
		parts = append(parts, canon.String(t.Name))
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

type walker struct {
	tool, refFormat string
	changes         []Change
}

func (w *walker) add(c Change) {
	c.Tool = w.tool
	c.Note = explain(c, w.refFormat)
	w.changes = append(w.changes, c)
}

var simpleKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

func child(path, key string) string {
	if simpleKey.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + string(canon.String(key)) + "]"
}

func (w *walker) walk(path string, a, b gjson.Result) {
	switch {
	case a.IsObject() && b.IsObject():
		w.objects(path, a, b)
	case a.IsArray() && b.IsArray():
		w.arrays(path, a, b)
	case bytes.Equal(canon.Of(a), canon.Of(b)):
		// The same value written another way (1.0 and 1, "\u00e9" and "é").
	default:
		c := Change{Path: path, Kind: "changed", Old: []byte(a.Raw), New: []byte(b.Raw)}
		if a.Type == gjson.String && b.Type == gjson.String {
			c.WordDiff = WordDiff(a.String(), b.String())
		}
		w.add(c)
	}
}

func keys(v gjson.Result) ([]string, map[string]gjson.Result) {
	var ks []string
	m := map[string]gjson.Result{}
	v.ForEach(func(k, val gjson.Result) bool {
		if _, dup := m[k.String()]; !dup {
			ks = append(ks, k.String())
		}
		m[k.String()] = val
		return true
	})
	return ks, m
}

func (w *walker) objects(path string, a, b gjson.Result) {
	ak, am := keys(a)
	bk, bm := keys(b)
	var common, commonB []string
	for _, k := range ak {
		if _, ok := bm[k]; ok {
			common = append(common, k)
		} else {
			w.add(Change{Path: child(path, k), Kind: "removed", Old: []byte(am[k].Raw)})
		}
	}
	for _, k := range bk {
		if _, ok := am[k]; ok {
			commonB = append(commonB, k)
		} else {
			w.add(Change{Path: child(path, k), Kind: "added", New: []byte(bm[k].Raw)})
		}
	}
	if strings.Join(common, "\x00") != strings.Join(commonB, "\x00") {
		w.add(Change{Path: path, Kind: "order", Old: keyList(common), New: keyList(commonB)})
	}
	for _, k := range common {
		w.walk(child(path, k), am[k], bm[k])
	}
}

func keyList(ks []string) []byte {
	parts := make([][]byte, len(ks))
	for i, k := range ks {
		parts[i] = canon.String(k)
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

func (w *walker) arrays(path string, a, b gjson.Result) {
	ae, be := a.Array(), b.Array()
	if len(ae) == len(be) && sameMultiset(ae, be) {
		for i := range ae {
			if !bytes.Equal(canon.Of(ae[i]), canon.Of(be[i])) {
				w.add(Change{Path: path, Kind: "order", Old: []byte(a.Raw), New: []byte(b.Raw)})
				return
			}
		}
		for i := range ae {
			w.walk(fmt.Sprintf("%s[%d]", path, i), ae[i], be[i])
		}
		return
	}
	n := min(len(ae), len(be))
	for i := 0; i < n; i++ {
		w.walk(fmt.Sprintf("%s[%d]", path, i), ae[i], be[i])
	}
	for i := n; i < len(ae); i++ {
		w.add(Change{Path: fmt.Sprintf("%s[%d]", path, i), Kind: "removed", Old: []byte(ae[i].Raw)})
	}
	for i := n; i < len(be); i++ {
		w.add(Change{Path: fmt.Sprintf("%s[%d]", path, i), Kind: "added", New: []byte(be[i].Raw)})
	}
}

func sameMultiset(a, b []gjson.Result) bool {
	count := map[string]int{}
	for _, v := range a {
		count[string(canon.Of(v))]++
	}
	for _, v := range b {
		count[string(canon.Of(v))]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// WordDiff shows how two texts differ, word by word.
func WordDiff(a, b string) string {
	dmp := diffmatchpatch.New()
	// Words become single runes so the diff works on whole words.
	wa, wb, vocab := wordsToRunes(a, b)
	diffs := dmp.DiffMain(wa, wb, false)
	var out strings.Builder
	for _, d := range diffs {
		text := runesToWords(d.Text, vocab)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			out.WriteString(text)
		case diffmatchpatch.DiffDelete:
			out.WriteString("[-" + text + "-]")
		case diffmatchpatch.DiffInsert:
			out.WriteString("{+" + text + "+}")
		}
	}
	return out.String()
}

var wordRE = regexp.MustCompile(`\s+|[^\s]+`)

func wordsToRunes(a, b string) (string, string, []string) {
	index := map[string]rune{}
	var vocab []string
	conv := func(s string) string {
		var sb strings.Builder
		for _, w := range wordRE.FindAllString(s, -1) {
			r, ok := index[w]
			if !ok {
				r = rune(0xE000 + len(vocab)) // private use area, then beyond
				if r > 0xF8FF {
					r = rune(0xF0000 + len(vocab))
				}
				index[w] = r
				vocab = append(vocab, w)
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	return conv(a), conv(b), vocab
}

func runesToWords(s string, vocab []string) string {
	var sb strings.Builder
	for _, r := range s {
		i := int(r - 0xE000)
		if r >= 0xF0000 {
			i = int(r - 0xF0000)
		}
		if i >= 0 && i < len(vocab) {
			sb.WriteString(vocab[i])
		}
	}
	return sb.String()
}
