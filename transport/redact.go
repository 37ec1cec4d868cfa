package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MinSecretLen is the shortest value hidden by a Redactor: hiding every
// "1" or "on" in a report would wreck it and protect nothing.
const MinSecretLen = 3

// minEncodedLen is the shortest encoded form (a base64 run, a hex run)
// that is hidden: the base64 middle of a three-byte secret is two
// characters, which turn up everywhere and give nothing away.
const minEncodedLen = 6

// maxDepth bounds how many layers of escaping are undone looking for a
// secret: a server's JSON string (one), inside a trace line or a --json
// string (two), inside a string the server itself quoted (three), and one
// more for a percent-encoding among them.
const maxDepth = 4

// Redactor hides secret values wherever they turn up in output, in every
// form a reader of that output would turn back into the secret:
//   - as is, and as any JSON encoder writes it inside a string;
//   - behind escapes of any kind, however mixed: JSON's ("\u005a" for
//     "Z", one character at a time) and URLs' (%5A or %5a; + for a space).
//     Every text is also searched with its escapes undone, layer by layer
//     (a frame inside a trace line is two), up to maxDepth layers;
//   - base64, standard and URL alphabets, padded or not, the secret
//     starting at any of the three offsets of a 3-byte group (the
//     characters that depend on the secret alone are matched);
//   - hex, lower and upper case;
//   - the base64 of its form-encoded form, as in an HTTP Basic header.
//
// What matched is replaced by ***, whole escapes included, so that the
// result stays valid JSON where the input was. Not covered: base64 cut
// into lines (MIME's 76 columns), and encodings layered on one another
// (base64 of hex).
type Redactor struct {
	needles [][]byte
	// head has bit b[0]<<8|b[1] set for every needle's first two bytes:
	// a position whose two bytes are not in it starts no match.
	head []uint64
	// byHead lists, for each two-byte head, the needles starting with it.
	byHead map[uint16][]int
}

// NewRedactor hides each of secrets that is at least MinSecretLen long.
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	add := func(n string, min int) {
		if len(n) >= min && !seen[n] {
			seen[n] = true
			r.needles = append(r.needles, []byte(n))
		}
	}
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		for _, n := range jsonForms(s) {
			add(n, MinSecretLen)
		}
		add(url.QueryEscape(s), MinSecretLen)
		add(strings.ReplaceAll(s, " ", "+"), MinSecretLen) // a form's + for a space, once %XX are decoded
		for _, n := range encodedForms([]byte(s)) {
			add(n, minEncodedLen)
		}
		// HTTP Basic credentials are base64 of "id:secret" with each part
		// form-encoded first (RFC 6749 §2.3.1, what golang.org/x/oauth2
		// sends): a secret with any character a form escapes is in the
		// header as the base64 of its escaped form, which a decoder turns
		// back into the escaped form, not into the secret.
		if q := url.QueryEscape(s); q != s {
			for _, n := range encodedForms([]byte(q)) {
				add(n, minEncodedLen)
			}
		}
	}
	if len(r.needles) == 0 {
		return r
	}
	r.head = make([]uint64, 1<<16/64)
	r.byHead = map[uint16][]int{}
	for i, n := range r.needles {
		h := uint16(n[0])<<8 | uint16(n[1])
		r.head[h/64] |= 1 << (h % 64)
		r.byHead[h] = append(r.byHead[h], i)
	}
	return r
}

// jsonForms lists the ways a server's JSON encoder may write s inside a
// string: as is, Go's (HTML-safe), JavaScript's, ASCII-only (Python's
// default), each also with "/" escaped (PHP's default). Other mixes of
// escapes are found by decoding them (Bytes).
func jsonForms(s string) []string {
	forms := []string{s, jsonString(s, true), jsonString(s, false), asciiJSON(s)}
	for _, f := range forms[1:] {
		forms = append(forms, strings.ReplaceAll(f, "/", `\/`))
	}
	return forms
}

// encodedForms are the base64 and hex forms of s that a decoder turns
// back into s. A secret inside a longer base64 text starts at byte 0, 1
// or 2 of a 3-byte group; for each, the characters that hold only the
// secret's bits are the same whatever surrounds it, and those are the
// needle: the one or two characters at each end that mix in a neighbour's
// bits carry at most 4 bits of the secret.
func encodedForms(s []byte) []string {
	var out []string
	for off := 0; off < 3; off++ {
		buf := make([]byte, off+len(s))
		copy(buf[off:], s)
		enc := base64.RawStdEncoding.EncodeToString(buf)
		first := (8*off + 5) / 6       // first character all of whose bits are the secret's
		last := 8 * (off + len(s)) / 6 // one past the last such character
		if last-first < 1 {
			continue
		}
		mid := enc[first:last]
		out = append(out, mid, strings.NewReplacer("+", "-", "/", "_").Replace(mid))
	}
	h := hex.EncodeToString(s)
	return append(out, h, strings.ToUpper(h))
}

func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range jsonString(s, false) {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// Bytes returns b with every secret, in every form above, replaced by ***,
// and whether anything was replaced. b itself is never modified.
func (r *Redactor) Bytes(b []byte) ([]byte, bool) {
	if r == nil || len(r.needles) == 0 {
		return b, false
	}
	out, changed := b, false
	// The text as is, then with one layer of JSON escapes and percent
	// escapes undone, then another, while there is one to undo. A view is
	// searched without its offsets; they are worked out only when it
	// holds a secret, which is rare.
	view := out
	for depth := 0; ; depth++ {
		spans := r.find(view)
		if depth == maxDepth || !decodable(view) {
			if len(spans) > 0 {
				out, changed = replaceSpans(out, mapSpans(out, depth, spans)), true
			}
			break
		}
		if len(spans) > 0 {
			out, changed = replaceSpans(out, mapSpans(out, depth, spans)), true
			view = decodeDepth(out, depth)
		}
		view = unescape(view, nil)
	}
	return out, changed
}

// String is Bytes for strings.
func (r *Redactor) String(s string) string {
	b, _ := r.Bytes([]byte(s))
	return string(b)
}

// span is a half-open byte range.
type span struct{ lo, hi int }

// find returns every range of b a needle matches, in order, overlapping
// ranges merged: two secrets that overlap are hidden as one.
func (r *Redactor) find(b []byte) []span {
	var out []span
	for i := 0; i+1 < len(b); i++ {
		h := uint16(b[i])<<8 | uint16(b[i+1])
		if r.head[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		end := -1
		for _, n := range r.byHead[h] {
			needle := r.needles[n]
			k := commonPrefix(b[i:], needle)
			switch {
			case k == len(needle):
				end = max(end, i+k)
			case k >= minCutLen && bytes.HasPrefix(b[i+k:], ellipsis):
				// A display limit cut the secret ("sk-live-ab…"): what
				// it left of it is hidden too.
				end = max(end, i+k)
			}
		}
		if end < 0 {
			continue
		}
		if k := len(out) - 1; k >= 0 && i < out[k].hi {
			out[k].hi = max(out[k].hi, end)
		} else {
			out = append(out, span{i, end})
		}
	}
	return out
}

// minCutLen is the shortest head of a secret, left before the "…" a
// display limit appends, that is hidden: shorter heads say too little of
// the secret, and would hide ordinary words.
const minCutLen = 4

var ellipsis = []byte("…")

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func replaceSpans(b []byte, spans []span) []byte {
	out := make([]byte, 0, len(b))
	at := 0
	for _, s := range spans {
		if s.lo < at {
			s.lo = at // two views' tokens that overlap once mapped back
		}
		if s.hi <= s.lo {
			continue
		}
		out = append(out, b[at:s.lo]...)
		out = append(out, "***"...)
		at = s.hi
	}
	return append(out, b[at:]...)
}

// offsets records the escapes a decoder undid, in order: every byte
// between two of them is copied one for one.
type offsets struct{ escapes []escapeAt }

type escapeAt struct{ dst, dn, src, sn int }

func (m *offsets) add(dst, dn, src, sn int) {
	if m != nil {
		m.escapes = append(m.escapes, escapeAt{dst, dn, src, sn})
	}
}

// source maps byte p of the output to the range of src it came from: the
// whole escape when p is part of one.
func (m *offsets) source(p int) (lo, hi int) {
	i := sort.Search(len(m.escapes), func(i int) bool { return m.escapes[i].dst > p }) - 1
	if i < 0 {
		return p, p + 1
	}
	e := m.escapes[i]
	if p < e.dst+e.dn {
		return e.src, e.src + e.sn
	}
	at := e.src + e.sn + p - (e.dst + e.dn)
	return at, at + 1
}

// decodable says whether b holds something unescape would undo.
func decodable(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || bytes.IndexByte(b, '%') >= 0
}

// decodeDepth is the view at depth: b with depth layers undone.
func decodeDepth(b []byte, depth int) []byte {
	for range depth {
		b = unescape(b, nil)
	}
	return b
}

// mapSpans maps ranges of the view at depth back to ranges of b, each
// widened to whole escapes at every layer.
func mapSpans(b []byte, depth int, spans []span) []span {
	maps := make([]offsets, depth)
	view := b
	for i := range maps {
		view = unescape(view, &maps[i])
	}
	out := make([]span, 0, len(spans))
	for _, s := range spans {
		lo, hi := s.lo, s.hi
		for i := len(maps) - 1; i >= 0; i-- {
			lo, _ = maps[i].source(lo)
			_, hi = maps[i].source(hi - 1)
		}
		out = append(out, span{lo, hi})
	}
	return out
}

// unescape undoes one layer of escapes, wherever they stand: JSON's
// (\" \\ \/ \b \f \n \r \t and \uXXXX, a surrogate pair as one character,
// a lone half as U+FFFD) and URLs' (%XX in either case; + is left alone,
// and NewRedactor registers the + form of a secret with spaces). Anything
// else is kept as is. One layer of each at once: a text that mixes them
// or escapes one inside the other is undone in as many layers.
func unescape(src []byte, m *offsets) []byte {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); {
		j := indexEscape(src[i:])
		if j < 0 {
			return append(out, src[i:]...)
		}
		out = append(out, src[i:i+j]...)
		i += j
		before, w := len(out), 1
		if src[i] == '%' {
			if i+2 < len(src) {
				hi, ok1 := unhex(src[i+1])
				lo, ok2 := unhex(src[i+2])
				if ok1 && ok2 {
					out, w = append(out, hi<<4|lo), 3
				}
			}
			if w == 1 {
				out = append(out, '%')
			}
		} else if i+1 >= len(src) {
			out = append(out, '\\')
		} else {
			w = 2
			switch c := src[i+1]; c {
			case '"', '\\', '/':
				out = append(out, c)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(src[i+2:])
				if !ok {
					out, w = append(out, '\\'), 1
					break
				}
				w = 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if i+7 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
						r2, ok = hex4(src[i+8:])
					}
					if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
						r, w = d, 12
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				out, w = append(out, '\\'), 1
			}
		}
		if w > 1 {
			m.add(before, len(out)-before, i, w)
		}
		i += w
	}
	return out
}

// indexEscape is the index of the first \ or % in b, or -1.
func indexEscape(b []byte) int {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return bytes.IndexByte(b, '%')
	}
	if j := bytes.IndexByte(b[:i], '%'); j >= 0 {
		return j
	}
	return i
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		v, ok := unhex(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
