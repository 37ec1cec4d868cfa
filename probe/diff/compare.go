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

// Change is one difference between the two sides.
type Change struct {
	Part Part
	// Item names the tool, prompt, resource or template the change is in
	// (its name, uri or uriTemplate); "" for a change to a list's order or
	// to a value of the session. Tool is Item when Part is tools.
	Item, Tool string
	Path       string // "find_orders.inputSchema.properties.limit.maximum", "prompts.summarize.description", "server_info.version"
	// Kind is "added", "removed", "changed", or "order" (same keys or
	// elements, another order).
	Kind     string
	Old, New []byte // raw JSON as each side had it; nil where absent
	Note     string // a known SDK artefact that explains it
	// WordDiff is a word-level diff of a changed description:
	// "[-old words-]{+new words+}".
	WordDiff string
}

// Omission is a part that was not compared, and why.
type Omission struct {
	Part Part
	Why  string
}

// Comparison answers, in order: same bytes? same meaning? and if not,
// what. Each answer has a scope: the bytes and the canonical JSON are
// those of the items of the compared list parts (tools, prompts,
// resources, templates); the session's values (instructions, server
// info, protocol version, capabilities) are compared by value, apart.
type Comparison struct {
	RefFormat string
	// Compared, NotCompared and Ignored partition Parts: what was
	// compared, what one side does not record, what --ignore left out.
	Compared    []Part
	NotCompared []Omission
	Ignored     []Part
	// IdenticalBytes: every item of the compared list parts, matched by
	// its identifier, is byte for byte the same.
	IdenticalBytes  bool
	BytesComparable bool // both sides hold bytes a server sent
	// IdenticalCanonical: the same items, the same in canonical JSON.
	IdenticalCanonical bool
	// IdenticalMetadata: the compared values of the session are equal;
	// true when none was compared (MetadataCompared says which).
	IdenticalMetadata bool
	// Added and Removed list the items of each compared list part that
	// only one side has, in that side's order. ToolsAdded and
	// ToolsRemoved are their tools.
	Added, Removed           map[Part][]string
	ToolsAdded, ToolsRemoved []string
	// Renames pairs tools removed with tools added that are the same tool
	// under a new name (by fingerprint), or possibly so: each stays in
	// ToolsAdded and ToolsRemoved too, and is drift.
	Renames []Rename
	Changes []Change
}

// Compare compares a reference with a live (or second) side, on every
// part both record.
func Compare(ref, live Side) Comparison { return CompareParts(ref, live, nil) }

// CompareParts compares every part both sides record, but those in
// ignore.
func CompareParts(ref, live Side, ignore []Part) Comparison {
	r := Comparison{RefFormat: ref.Format, BytesComparable: ref.Wire && live.Wire,
		Added: map[Part][]string{}, Removed: map[Part][]string{}}
	ignored := PartSet(0).With(ignore...)
	for _, p := range Parts {
		switch {
		case p == PartSkills && !ref.Records.Has(p) && !live.Records.Has(p) && !ignored.Has(p):
			// neither server declares the extension, or a reference
			// written before skills were recorded: nothing to say
		case ignored.Has(p):
			r.Ignored = append(r.Ignored, p)
		case !ref.Records.Has(p) || !live.Records.Has(p):
			r.NotCompared = append(r.NotCompared, Omission{Part: p, Why: notRecorded(ref, live, p)})
		default:
			r.Compared = append(r.Compared, p)
		}
	}
	r.IdenticalBytes, r.IdenticalCanonical, r.IdenticalMetadata = r.BytesComparable, true, true
	for _, p := range r.Compared {
		if p.IsList() {
			r.compareList(p, ref, live)
		} else {
			r.compareValue(p, ref, live)
		}
	}
	if !r.BytesComparable || !r.ListsCompared() {
		r.IdenticalBytes = false
	}
	r.ToolsAdded, r.ToolsRemoved = r.Added[PartTools], r.Removed[PartTools]
	return r
}

// notRecorded says which side does not record p.
func notRecorded(ref, live Side, p Part) string {
	switch {
	case !ref.Records.Has(p) && !live.Records.Has(p):
		return "recorded by neither side"
	case !ref.Records.Has(p):
		return "not recorded by the reference (" + FormatName(ref.Format) + ")"
	}
	return "not recorded by the compared side (" + FormatName(live.Format) + ")"
}

// ListsCompared reports whether any list part was compared: the bytes
// and canonical answers are about them.
func (r Comparison) ListsCompared() bool {
	for _, p := range r.Compared {
		if p.IsList() {
			return true
		}
	}
	return false
}

// MetadataCompared lists the compared parts that are values of the
// session rather than lists.
func (r Comparison) MetadataCompared() []Part {
	var out []Part
	for _, p := range r.Compared {
		if !p.IsList() {
			out = append(out, p)
		}
	}
	return out
}

// ChangedParts lists the compared parts that drifted, in Parts order.
func (r Comparison) ChangedParts() []Part {
	changed := PartSet(0)
	for _, p := range r.Compared {
		if len(r.Added[p])+len(r.Removed[p]) > 0 {
			changed = changed.With(p)
		}
	}
	for _, c := range r.Changes {
		changed = changed.With(c.Part)
	}
	var out []Part
	for _, p := range Parts {
		if changed.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// Drift reports whether anything compared changed, order included.
func (r Comparison) Drift() bool { return len(r.ChangedParts()) > 0 }

// DriftCount is every change, and every item added or removed.
func (r Comparison) DriftCount() int {
	n := len(r.Changes)
	for _, p := range r.Compared {
		n += len(r.Added[p]) + len(r.Removed[p])
	}
	return n
}

// compareList compares one list part item by item, matched by identifier.
func (r *Comparison) compareList(p Part, ref, live Side) {
	_, prefix, noun := p.key()
	refItems, liveItems := ref.Items(p), live.Items(p)
	refBy := map[string]Tool{}
	for _, t := range refItems {
		refBy[t.Name] = t
	}
	liveBy := map[string]Tool{}
	for _, t := range liveItems {
		liveBy[t.Name] = t
	}
	for _, t := range refItems {
		if _, ok := liveBy[t.Name]; !ok {
			r.Removed[p] = append(r.Removed[p], t.Name)
		}
	}
	for _, t := range liveItems {
		l, ok := refBy[t.Name]
		if !ok {
			r.Added[p] = append(r.Added[p], t.Name)
			continue
		}
		w := walker{part: p, item: t.Name, refFormat: ref.Format, explain: true}
		w.walk(itemPath(p, t.Name), gjson.ParseBytes(l.Raw), gjson.ParseBytes(t.Raw), 0)
		r.Changes = append(r.Changes, w.changes...)
		for _, c := range w.changes {
			if c.Kind != "order" {
				r.IdenticalCanonical = false
			}
		}
	}
	if p == PartTools {
		r.Renames = renames(refItems, liveItems, r.Removed[p], r.Added[p])
	}
	sameSet := len(r.Added[p]) == 0 && len(r.Removed[p]) == 0
	if !sameSet {
		r.IdenticalCanonical = false
	}
	// A snapshot sorts its lists on purpose: order means nothing there.
	sorted := ref.Format == "mcpprobe-snapshot" || live.Format == "mcpprobe-snapshot"
	if !sorted && sameSet && namesOrder(refItems) != namesOrder(liveItems) {
		if prefix == "" {
			prefix = "tools"
		}
		r.Changes = append(r.Changes, Change{Part: p, Path: prefix, Kind: "order", Old: names(refItems), New: names(liveItems),
			Note: "the same " + noun + "s in another order (a server that sorts, or pages that came back in another order)"})
	}
	// Each item's bytes, matched by identifier; order is reported apart.
	if !sameSet || len(refItems) != len(liveItems) {
		r.IdenticalBytes = false
		return
	}
	for _, t := range liveItems {
		if !bytes.Equal(refBy[t.Name].Raw, t.Raw) {
			r.IdenticalBytes = false
		}
	}
}

// itemPath is where an item's changes are: a tool by its name (as diff
// has always written them), the others under their list.
func itemPath(p Part, ident string) string {
	if p == PartTools {
		return ident
	}
	_, prefix, _ := p.key()
	return child(prefix, ident)
}

// compareValue compares one value of the session. Server info and
// capabilities are compared without regard to key order: a snapshot
// writes them canonically, a server in its own order.
func (r *Comparison) compareValue(p Part, ref, live Side) {
	w := walker{part: p, unordered: true}
	switch p {
	case PartInstructions:
		a, b := ref.Instructions, live.Instructions
		switch {
		case a == nil && b != nil:
			w.add(Change{Path: "instructions", Kind: "added", New: canon.String(*b)})
		case a != nil && b == nil:
			w.add(Change{Path: "instructions", Kind: "removed", Old: canon.String(*a)})
		case a != nil && b != nil && *a != *b:
			w.add(Change{Path: "instructions", Kind: "changed", Old: canon.String(*a), New: canon.String(*b), WordDiff: WordDiff(*a, *b)})
		}
	case PartServerName, PartServerVersion:
		key := "name"
		if p == PartServerVersion {
			key = "version"
		}
		w.member("server_info."+key, gjson.GetBytes(ref.ServerInfo, key), gjson.GetBytes(live.ServerInfo, key))
	case PartServerInfo:
		a, b := parsed(ref.ServerInfo), parsed(live.ServerInfo)
		if (a.Exists() && !a.IsObject()) || (b.Exists() && !b.IsObject()) {
			w.member("server_info", a, b)
			break
		}
		// Name and version are parts of their own.
		ak, am := keys(a)
		bk, bm := keys(b)
		seen := map[string]bool{"name": true, "version": true}
		for _, k := range append(ak, bk...) {
			if !seen[k] {
				seen[k] = true
				w.member(child("server_info", k), am[k], bm[k])
			}
		}
	case PartProtocol:
		if ref.ProtocolVersion != live.ProtocolVersion {
			w.add(Change{Path: "protocol_version", Kind: "changed", Old: canon.String(ref.ProtocolVersion), New: canon.String(live.ProtocolVersion)})
		}
	case PartCapabilities:
		w.member("capabilities", parsed(ref.Capabilities), parsed(live.Capabilities))
	}
	r.Changes = append(r.Changes, w.changes...)
	if len(w.changes) > 0 {
		r.IdenticalMetadata = false
	}
}

func parsed(raw []byte) gjson.Result {
	if raw == nil {
		return gjson.Result{}
	}
	return gjson.ParseBytes(raw)
}

// member compares a value that either side may lack.
func (w *walker) member(path string, a, b gjson.Result) {
	switch {
	case !a.Exists() && !b.Exists():
	case !a.Exists():
		w.add(Change{Path: path, Kind: "added", New: []byte(b.Raw)})
	case !b.Exists():
		w.add(Change{Path: path, Kind: "removed", Old: []byte(a.Raw)})
	default:
		w.walk(path, a, b, 0)
	}
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

// walker collects the changes between two values of one part. explain
// looks for SDK artefacts (in items only); unordered leaves key order out
// (values a snapshot stores canonically).
type walker struct {
	part               Part
	item, refFormat    string
	explain, unordered bool
	changes            []Change
}

func (w *walker) add(c Change) {
	c.Part, c.Item = w.part, w.item
	if w.part == PartTools {
		c.Tool = w.item
	}
	if w.explain && c.Note == "" {
		c.Note = explain(c, w.refFormat)
	}
	w.changes = append(w.changes, c)
}

var simpleKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

func child(path, key string) string {
	if simpleKey.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + string(canon.String(key)) + "]"
}

// maxPathDepth bounds how deep the walk goes path by path: a server
// decides how deep its definitions nest, and each level reads the values
// below it again (and a path grows by a segment a level). Past it, the
// values are compared whole, by their canonical form, in linear time.
const maxPathDepth = 64

func (w *walker) walk(path string, a, b gjson.Result, depth int) {
	switch {
	case depth >= maxPathDepth && (a.IsObject() || a.IsArray()) && (b.IsObject() || b.IsArray()):
		if !bytes.Equal(canon.Of(a), canon.Of(b)) {
			w.add(Change{Path: path, Kind: "changed", Old: []byte(a.Raw), New: []byte(b.Raw),
				Note: fmt.Sprintf("nested past %d levels: compared whole, not path by path", maxPathDepth)})
		}
	case a.IsObject() && b.IsObject():
		w.objects(path, a, b, depth)
	case a.IsArray() && b.IsArray():
		w.arrays(path, a, b, depth)
	case bytes.Equal(canon.Of(a), canon.Of(b)):
		// The same value written another way (1.0 and 1, "\u00e9" and "é").
	default:
		c := Change{Path: path, Kind: "changed", Old: []byte(a.Raw), New: []byte(b.Raw)}
		// Text gets a word diff; a version or a name is read whole.
		if a.Type == gjson.String && b.Type == gjson.String && w.explain {
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

func (w *walker) objects(path string, a, b gjson.Result, depth int) {
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
	if !w.unordered && strings.Join(common, "\x00") != strings.Join(commonB, "\x00") {
		w.add(Change{Path: path, Kind: "order", Old: keyList(common), New: keyList(commonB)})
	}
	for _, k := range common {
		w.walk(child(path, k), am[k], bm[k], depth+1)
	}
}

func keyList(ks []string) []byte {
	parts := make([][]byte, len(ks))
	for i, k := range ks {
		parts[i] = canon.String(k)
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

func (w *walker) arrays(path string, a, b gjson.Result, depth int) {
	ae, be := a.Array(), b.Array()
	if len(ae) == len(be) && sameMultiset(ae, be) {
		for i := range ae {
			if !bytes.Equal(canon.Of(ae[i]), canon.Of(be[i])) {
				w.add(Change{Path: path, Kind: "order", Old: []byte(a.Raw), New: []byte(b.Raw),
					Note: "element order only: the same elements in another order"})
				return
			}
		}
		for i := range ae {
			w.walk(fmt.Sprintf("%s[%d]", path, i), ae[i], be[i], depth+1)
		}
		return
	}
	n := min(len(ae), len(be))
	for i := 0; i < n; i++ {
		w.walk(fmt.Sprintf("%s[%d]", path, i), ae[i], be[i], depth+1)
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
