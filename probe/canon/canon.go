// Package canon renders JSON in one canonical form, so that two
// definitions can be compared for meaning while the bytes they came in stay
// untouched: keys sorted, insignificant space gone, numbers and strings
// written one way (1.0, 1 and 1e0 are one number; "\u00e9" and "é" one
// string).
//
// A server decides the shape of what it sends, so the work is linear in
// the input's size whatever its depth: the input is read once, iteratively,
// noting each object's members, then written once, each object's members
// in key order. (Walking it with gjson, level by level, read a value again
// at every level above it: a schema nested 100,000 levels took minutes.)
package canon

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// JSON returns the canonical form of raw, which must be valid JSON. Input
// that is not is returned as it is.
func JSON(raw []byte) []byte {
	var p parser
	if !p.parse(raw) {
		return raw
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	p.write(&b)
	return b.Bytes()
}

// Of returns the canonical form of a parsed value.
func Of(v gjson.Result) []byte { return JSON([]byte(v.Raw)) }

// object is one object of the input: where it starts and ends, and its
// members, in key order, in parser.members[lo:hi].
type object struct{ start, end, lo, hi int }

// member is a key and where its value stands in the input.
type member struct {
	key    string
	vs, ve int
}

type parser struct {
	raw     []byte
	objects []object // in the order of their start
	members []member
}

// parse reads raw once, keeping each object's members sorted by key (the
// last of equal keys kept, as JSON parsers do). It reports whether raw is
// one JSON value.
func (p *parser) parse(raw []byte) bool {
	p.raw = raw
	type frame struct {
		obj  int // index in p.objects, -1 for an array
		base int // len(pending) when it opened
		key  string
		vs   int // where the current member's value starts
	}
	var stack []frame
	var pending []member // members of the open objects, innermost last
	i := ws(raw, 0)
	for {
		// A value starts at i.
		if i >= len(raw) {
			return false
		}
		closing := false
		switch raw[i] {
		case '{':
			p.objects = append(p.objects, object{start: i})
			stack = append(stack, frame{obj: len(p.objects) - 1, base: len(pending)})
			i = ws(raw, i+1)
			if i < len(raw) && raw[i] == '}' {
				closing = true
				break
			}
			var ok bool
			if i, ok = p.key(&stack[len(stack)-1].key, i); !ok {
				return false
			}
			stack[len(stack)-1].vs = i
			continue
		case '[':
			stack = append(stack, frame{obj: -1})
			i = ws(raw, i+1)
			if i < len(raw) && raw[i] == ']' {
				closing = true
				break
			}
			continue
		case '"':
			j, ok := stringEnd(raw, i)
			if !ok {
				return false
			}
			i = j
		default:
			j := scalarEnd(raw, i)
			if j == i {
				return false
			}
			i = j
		}
		// A value ended at i (or a container opened empty, closing at i).
		for {
			if len(stack) == 0 {
				return ws(raw, i) == len(raw)
			}
			top := &stack[len(stack)-1]
			if !closing {
				if top.obj >= 0 {
					pending = append(pending, member{top.key, top.vs, i})
				}
				if i = ws(raw, i); i >= len(raw) {
					return false
				}
				if raw[i] == ',' {
					i = ws(raw, i+1)
					if top.obj >= 0 {
						var ok bool
						if i, ok = p.key(&top.key, i); !ok {
							return false
						}
						top.vs = i
					}
					break // the next value
				}
			}
			closing = false
			want := byte(']')
			if top.obj >= 0 {
				want = '}'
			}
			if i >= len(raw) || raw[i] != want {
				return false
			}
			i++
			if top.obj >= 0 {
				ms := pending[top.base:]
				o := &p.objects[top.obj]
				o.end, o.lo = i, len(p.members)
				p.members = appendSorted(p.members, ms)
				o.hi = len(p.members)
				pending = pending[:top.base]
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// appendSorted appends ms sorted by key, keeping the last of equal keys.
func appendSorted(dst, ms []member) []member {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		dst = append(dst, m)
	}
	return dst
}

// key reads a member's key at i and the colon after it, and returns where
// its value starts.
func (p *parser) key(dst *string, i int) (int, bool) {
	if i >= len(p.raw) || p.raw[i] != '"' {
		return i, false
	}
	j, ok := stringEnd(p.raw, i)
	if !ok {
		return i, false
	}
	*dst = unquote(p.raw[i:j])
	if j = ws(p.raw, j); j >= len(p.raw) || p.raw[j] != ':' {
		return j, false
	}
	return ws(p.raw, j+1), true
}

// write writes the canonical form: each stretch of the input is copied
// token by token, an object's members in key order. A stack of stretches
// stands for the recursion, so depth costs no stack.
func (p *parser) write(b *bytes.Buffer) {
	type frame struct {
		obj  int // ≥ 0: writing this object's members, next is the next one
		next int
		i, e int // otherwise: the stretch raw[i:e] still to write
	}
	raw := p.raw
	stack := []frame{{obj: -1, i: 0, e: len(raw)}}
	for len(stack) > 0 {
		top := len(stack) - 1
		if f := &stack[top]; f.obj >= 0 {
			o := p.objects[f.obj]
			if f.next == o.hi-o.lo {
				b.WriteByte('}')
				stack = stack[:top]
				continue
			}
			m := p.members[o.lo+f.next]
			if f.next > 0 {
				b.WriteByte(',')
			}
			f.next++
			b.Write(String(m.key))
			b.WriteByte(':')
			stack = append(stack, frame{obj: -1, i: m.vs, e: m.ve})
			continue
		}
		f := &stack[top]
		i := ws(raw, f.i)
		if i >= f.e {
			stack = stack[:top]
			continue
		}
		switch c := raw[i]; c {
		case '[', ']', ',':
			b.WriteByte(c)
			f.i = i + 1
		case '{':
			k := p.objectAt(i)
			f.i = p.objects[k].end
			b.WriteByte('{')
			stack = append(stack, frame{obj: k})
		case '"':
			j, _ := stringEnd(raw, i)
			b.Write(String(unquote(raw[i:j])))
			f.i = j
		default:
			j := scalarEnd(raw, i)
			if tok := raw[i:j]; c == '-' || c >= '0' && c <= '9' {
				b.WriteString(Number(string(tok)))
			} else {
				b.Write(tok) // true, false, null
			}
			f.i = j
		}
	}
}

// objectAt is the index of the object starting at i.
func (p *parser) objectAt(i int) int {
	return sort.Search(len(p.objects), func(k int) bool { return p.objects[k].start >= i })
}

func ws(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the end of the string whose quote is at i.
func stringEnd(raw []byte, i int) (int, bool) {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(raw), false
}

// scalarEnd is the end of the number or literal at i.
func scalarEnd(raw []byte, i int) int {
	j := i
	for j < len(raw) {
		switch raw[j] {
		case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
			return j
		}
		j++
	}
	return j
}

// unquote decodes a JSON string token as gjson does (the canonical form
// has always been what gjson reads).
func unquote(tok []byte) string {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	return gjson.ParseBytes(tok).String()
}

// String encodes s as a JSON string: no HTML escaping, non-ASCII as is. A
// byte that is not UTF-8 is written as U+FFFD, the character a decoder
// reads it as, so that a definition holding one compares equal to itself
// written back by any JSON tool (its exact bytes are kept apart, where
// they are: a snapshot's raw_b64).
func String(s string) []byte {
	if plainASCII(s) {
		// What encoding/json writes for it, without its cost.
		b := make([]byte, 0, len(s)+2)
		return append(append(append(b, '"'), s...), '"')
	}
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// replaceInvalid writes each byte of s that is not UTF-8 as U+FFFD, one
// for each byte, as encoding/json decodes them.
func replaceInvalid(s string) string {
	var b []byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// Bounds on Number: a server decides how long a number is and how large
// its exponent, and writing 1e999999999 out as an integer is a gigabyte.
const (
	maxNumberLen = 64   // a longer literal is kept as written
	maxNumberExp = 1100 // binary exponent past which a value is kept as written (float64 ends at 1024)
)

// Number writes a JSON number one way: an integral value as an integer
// (1.0 and 1e3 become 1 and 1000), anything else in shortest form. Big
// integers keep every digit. A literal longer than 64 characters, or one
// whose magnitude is far outside float64's range either way, is kept as
// written: canonical forms of such numbers would cost more than they tell.
func Number(raw string) string {
	if len(raw) > maxNumberLen {
		return raw
	}
	f, _, err := big.ParseFloat(raw, 10, 256, big.ToNearestEven)
	if err != nil || f.IsInf() {
		return raw
	}
	if exp := f.MantExp(nil); f.Sign() != 0 && (exp > maxNumberExp || exp < -maxNumberExp) {
		return raw
	}
	if mant, _, _ := strings.Cut(strings.ToLower(raw), "e"); f.Sign() == 0 && strings.ContainsAny(mant, "123456789") {
		return raw // so small it reads as 0, which it is not
	}
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	if x, acc := f.Float64(); acc == big.Exact {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return f.Text('g', -1)
}

// plainASCII is true for printable ASCII that needs no escape.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
