package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/tidwall/gjson"
)

// The fingerprints are derived, not what a server sent: each is a SHA-256
// over a normalised form of a tool's definition, so that a tool that
// comes back under another name is recognised. FingerprintVersion names
// the normalisation; a lock written with another one has its
// fingerprints derived again from its definitions.
const (
	FingerprintVersion = "fp1"
	// FingerprintNormalisation is written into the lock beside the
	// fingerprints, to say what they are a hash of.
	FingerprintNormalisation = "fp1 (derived): fingerprint = SHA-256 of the definition's canonical JSON without its name, " +
		"every description and title string with its whitespace runs made one space and trimmed; " +
		"schema_fingerprint = SHA-256 of the canonical input schema without any description, title or examples member"
)

// Fingerprint is a tool's content fingerprint: everything but its name,
// its texts with whitespace normalised (FingerprintNormalisation).
func Fingerprint(raw []byte) string {
	v, ok := decode(raw)
	if !ok {
		return ""
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "name")
	}
	return hashValue(normaliseTexts(v))
}

// SchemaFingerprint is the fingerprint of a tool's input schema's shape:
// its properties, types and constraints, without the words that describe
// them. "" when the schema has no properties: an empty schema is shared
// by too many tools to match one.
func SchemaFingerprint(raw []byte) string {
	s := gjson.GetBytes(raw, "inputSchema")
	if !s.Get("properties").IsObject() || len(s.Get("properties").Map()) == 0 {
		return ""
	}
	v, ok := decode([]byte(s.Raw))
	if !ok {
		return ""
	}
	return hashValue(stripWords(v))
}

func decode(raw []byte) (any, bool) {
	if !gjson.ValidBytes(raw) {
		return nil, false
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

func hashValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(canon.JSON(b))
	return hex.EncodeToString(sum[:])
}

// normaliseTexts collapses whitespace in every description and title.
func normaliseTexts(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if s, ok := x.(string); ok && (k == "description" || k == "title") {
				t[k] = strings.Join(strings.Fields(s), " ")
				continue
			}
			t[k] = normaliseTexts(x)
		}
	case []any:
		for i, x := range t {
			t[i] = normaliseTexts(x)
		}
	}
	return v
}

// stripWords drops description, title and examples members everywhere.
func stripWords(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if k == "description" || k == "title" || k == "examples" {
				delete(t, k)
				continue
			}
			t[k] = stripWords(x)
		}
	case []any:
		for i, x := range t {
			t[i] = stripWords(x)
		}
	}
	return v
}

// Rename is a tool that one side has under one name and the other under
// another.
type Rename struct {
	From, To string
	// Kind is "renamed" (the same content fingerprint: only the name
	// changed) or "renamed_and_changed" (a possible rename: the same
	// schema shape, or most of the description's words, but changed
	// content).
	Kind string
	// Basis says what matched, for people.
	Basis string
}

// minWordOverlap is the share of description words (Jaccard, on
// lower-cased words) two tools must share to be a possible rename when
// their schema shapes differ.
const minWordOverlap = 0.6

// maxRenamePairs bounds the possible-rename pass, which compares every
// tool removed with every tool added: past it only exact renames (one
// map lookup each) are looked for.
const maxRenamePairs = 10_000

// renames pairs the tools removed from ref with those added to live: first
// by equal content fingerprints, then, among the rest, by equal schema
// shape or overlapping description words. Each tool is paired once; the
// order is ref's.
func renames(refItems, liveItems []Tool, removed, added []string) []Rename {
	if len(removed) == 0 || len(added) == 0 {
		return nil
	}
	type facts struct {
		fp, schema string
		words      map[string]bool
	}
	read := func(items []Tool, names []string, words bool) map[string]facts {
		want := map[string]bool{}
		for _, n := range names {
			want[n] = true
		}
		m := map[string]facts{}
		for _, t := range items {
			if want[t.Name] {
				f := facts{fp: t.fingerprint(), schema: t.schemaFingerprint()}
				if words {
					f.words = wordSet(gjson.GetBytes(t.Raw, "description").String())
				}
				m[t.Name] = f
			}
		}
		return m
	}
	possible := len(removed)*len(added) <= maxRenamePairs
	ref, live := read(refItems, removed, possible), read(liveItems, added, possible)
	byFP := map[string][]string{}
	for _, a := range added {
		if fp := live[a].fp; fp != "" {
			byFP[fp] = append(byFP[fp], a)
		}
	}
	used := map[string]bool{}
	paired := map[string]bool{}
	var out []Rename
	for _, r := range removed {
		for _, a := range byFP[ref[r].fp] {
			if !used[a] && ref[r].fp != "" {
				out = append(out, Rename{From: r, To: a, Kind: "renamed", Basis: "the same content fingerprint"})
				used[a], paired[r] = true, true
				break
			}
		}
	}
	if possible {
		for _, r := range removed {
			if paired[r] {
				continue
			}
			for _, a := range added {
				if used[a] {
					continue
				}
				basis := ""
				switch {
				case ref[r].schema != "" && ref[r].schema == live[a].schema:
					basis = "the same input schema shape, changed text"
				case jaccard(ref[r].words, live[a].words) >= minWordOverlap:
					basis = "most of the description's words"
				default:
					continue
				}
				out = append(out, Rename{From: r, To: a, Kind: "renamed_and_changed", Basis: basis})
				used[a], paired[r] = true, true
				break
			}
		}
	}
	// The reference's order, whichever pass found them.
	pos := map[string]int{}
	for i, r := range removed {
		pos[r] = i
	}
	sort.SliceStable(out, func(i, j int) bool { return pos[out[i].From] < pos[out[j].From] })
	return out
}

func (t Tool) fingerprint() string {
	if t.FP != "" {
		return t.FP
	}
	return Fingerprint(t.Raw)
}

func (t Tool) schemaFingerprint() string {
	if t.SchemaFP != "" {
		return t.SchemaFP
	}
	return SchemaFingerprint(t.Raw)
}

// wordSet is a text's lower-cased words (bounded: the first 2,000).
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for i, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if i >= 2000 {
			break
		}
		m[w] = true
	}
	return m
}

// jaccard is the Jaccard index of two word sets; 0 when either is empty.
func jaccard(sa, sb map[string]bool) float64 {
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
