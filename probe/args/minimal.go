package args

import (
	"bytes"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/tidwall/gjson"
)

// Bounds on what MinimalArgs builds: the schema is the server's, and a
// minItems of a million or a chain of required objects must not make a
// call that size.
const (
	maxArgDepth  = 16
	maxArgBytes  = 64 << 10
	maxArgItems  = 16
	maxArgString = 4096
	maxRefHops   = 8
	// maxArgReads bounds how many times the schema is read over, as a
	// multiple of its size: each value reads its schema, and references
	// (to the root, say) can make a megabyte schema read for every item.
	maxArgReads = 16
)

// MinimalArgs builds the smallest arguments an input schema accepts: every
// required property and nothing else, each at its smallest valid value.
// Strings satisfy a known format or a pattern, numbers their bounds and
// multipleOf; "$ref" into "$defs" or "definitions" is followed. It is a
// best effort, bounded in size and depth: a call made with it shows
// whether the server agrees.
func MinimalArgs(schema []byte) []byte {
	v := gjson.ParseBytes(schema)
	if !v.IsObject() {
		return []byte("{}")
	}
	a := &argBuilder{root: v, work: maxArgReads*len(schema) + 1<<20}
	a.value(v, 0, 0)
	if out := a.b.Bytes(); len(out) > 0 && out[0] == '{' {
		return out
	}
	// A root schema of another type ({"type":"string"}) still gets an
	// object: arguments are one, whatever the schema says.
	return []byte("{}")
}

type argBuilder struct {
	root gjson.Result
	b    bytes.Buffer
	work int // bytes of schema left to read
}

// spent says whether the builder is done: past its size or its work.
func (a *argBuilder) spent() bool { return a.b.Len() > maxArgBytes || a.work < 0 }

// raw writes a value the schema gives (a const, an enum member, a
// default), or null when it would take the arguments past their bound.
func (a *argBuilder) raw(v string) {
	if a.b.Len()+len(v) > maxArgBytes {
		a.b.WriteString("null")
		return
	}
	a.b.WriteString(v)
}

// resolve follows a local "$ref" ("#", "#/$defs/x", "#/definitions/x").
func (a *argBuilder) resolve(s gjson.Result) gjson.Result {
	for hop := 0; hop < maxRefHops; hop++ {
		ref := s.Get(`\$ref`)
		if ref.Type != gjson.String {
			return s
		}
		p := ref.String()
		if p == "#" {
			s = a.root
			continue
		}
		if !strings.HasPrefix(p, "#/") {
			return s
		}
		t := a.root
		for _, part := range strings.Split(p[2:], "/") {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			t = t.Get(gjson.Escape(part))
		}
		if !t.Exists() {
			return s
		}
		s = t
	}
	return s
}

// value writes a value of schema s; variant > 0 asks for another one than
// variant 0 where it can (the items of uniqueItems).
func (a *argBuilder) value(s gjson.Result, depth, variant int) {
	a.work -= len(s.Raw)
	if depth > maxArgDepth || a.spent() {
		a.b.WriteString("null")
		return
	}
	s = a.resolve(s)
	if a.work -= len(s.Raw); a.work < 0 {
		a.b.WriteString("null")
		return
	}
	if c := s.Get("const"); c.Exists() {
		a.raw(c.Raw)
		return
	}
	if e := s.Get("enum"); e.IsArray() && len(e.Array()) > 0 {
		vals := e.Array()
		a.raw(vals[variant%len(vals)].Raw)
		return
	}
	switch {
	case s.Get("default").Exists() && variant == 0:
		a.raw(s.Get("default").Raw)
		return
	}
	if typeOf(s) == "" {
		for _, alt := range []string{"anyOf", "oneOf", "allOf"} {
			if alts := s.Get(alt); alts.IsArray() && len(alts.Array()) > 0 {
				a.value(firstNonNull(alts.Array()), depth+1, variant)
				return
			}
		}
	}
	switch typeOf(s) {
	case "object":
		a.object(s, depth)
	case "array":
		a.array(s, depth)
	case "string":
		a.b.Write(canon.String(stringValue(s, variant)))
	case "integer", "number":
		a.b.WriteString(number(s, typeOf(s) == "integer", variant))
	case "boolean":
		a.b.WriteString(strconv.FormatBool(variant%2 == 1))
	default:
		a.b.WriteString("null")
	}
}

func firstNonNull(alts []gjson.Result) gjson.Result {
	for _, x := range alts {
		if x.Get("type").String() != "null" {
			return x
		}
	}
	return alts[0]
}

func (a *argBuilder) object(s gjson.Result, depth int) {
	a.b.WriteByte('{')
	props := s.Get("properties")
	for i, r := range s.Get("required").Array() {
		if a.spent() {
			break // a million required names still make a bounded object
		}
		if i > 0 {
			a.b.WriteByte(',')
		}
		a.b.Write(canon.String(r.String()))
		a.b.WriteByte(':')
		p := props.Get(gjson.Escape(r.String()))
		if !p.Exists() && s.Get("additionalProperties").IsObject() {
			p = s.Get("additionalProperties")
		}
		a.value(p, depth+1, 0)
	}
	a.b.WriteByte('}')
}

func (a *argBuilder) array(s gjson.Result, depth int) {
	a.b.WriteByte('[')
	prefix := s.Get("prefixItems").Array()
	n := min(int(max(0, s.Get("minItems").Int())), maxArgItems)
	unique := s.Get("uniqueItems").Bool()
	for i := 0; i < n; i++ {
		if i > 0 {
			a.b.WriteByte(',')
		}
		item := s.Get("items")
		if i < len(prefix) {
			item = prefix[i]
		}
		variant := 0
		if unique {
			variant = i
		}
		a.value(item, depth+1, variant)
	}
	a.b.WriteByte(']')
}

// typeOf is a schema's type: the first non-null one of a list, "object"
// when it has properties, "" when nothing says.
func typeOf(s gjson.Result) string {
	t := s.Get("type")
	if t.IsArray() {
		for _, x := range t.Array() {
			if x.String() != "null" {
				return x.String()
			}
		}
		return "null"
	}
	if t.Exists() {
		return t.String()
	}
	switch {
	case s.Get("properties").Exists():
		return "object"
	case s.Get("items").Exists() || s.Get("prefixItems").Exists():
		return "array"
	}
	return ""
}

// formats are values each format of JSON Schema accepts, chosen to do no
// harm if a tool acts on them (documentation addresses, example.com).
var formats = map[string]string{
	"date-time": "2025-01-01T00:00:00Z", "date": "2025-01-01", "time": "00:00:00Z", "duration": "PT1S",
	"email": "user@example.com", "idn-email": "user@example.com",
	"hostname": "example.com", "idn-hostname": "example.com",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
	"uri": "https://example.com/", "iri": "https://example.com/", "url": "https://example.com/",
	"uri-reference": "https://example.com/", "iri-reference": "https://example.com/", "uri-template": "https://example.com/",
	"uuid":         "00000000-0000-4000-8000-000000000000",
	"json-pointer": "/a", "relative-json-pointer": "0", "regex": "a",
}

// stringValue is the shortest string that meets the schema's format or
// pattern and its length bounds, as far as can be built.
func stringValue(s gjson.Result, variant int) string {
	minLen := int(min(max(1, s.Get("minLength").Int()), maxArgString))
	maxLen := -1
	if m := s.Get("maxLength"); m.Exists() {
		maxLen = int(max(0, m.Int()))
	}
	if f, ok := formats[s.Get("format").String()]; ok {
		return f
	}
	if p := s.Get("pattern"); p.Type == gjson.String {
		if v, ok := fromPattern(p.String(), minLen, variant); ok {
			return v
		}
	}
	v := strings.Repeat("a", minLen)
	if variant > 0 {
		v += strconv.Itoa(variant)
	}
	if maxLen >= 0 && len(v) > maxLen {
		v = v[:maxLen]
	}
	return v
}

// fromPattern builds a string the pattern matches: the shortest expansion
// of each part, repeated parts stretched to reach minLen. JSON Schema
// patterns are ECMA-262; what RE2 cannot parse is given up on.
func fromPattern(pattern string, minLen, variant int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	check, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	for _, rep := range []int{0, 1, minLen} {
		var b strings.Builder
		if !genRegexp(&b, re, rep, 0) {
			return "", false
		}
		v := b.String()
		if variant > 0 {
			// Another repetition count gives another string, where there is one.
			var vb strings.Builder
			if genRegexp(&vb, re, rep+variant, 0) && check.MatchString(vb.String()) && vb.String() != v {
				v = vb.String()
			}
		}
		if len(v) >= minLen && check.MatchString(v) {
			return v, true
		}
	}
	return "", false
}

// genRegexp writes the shortest match of re, repeating each unbounded part
// rep times at least; false if re can match nothing or the string grows
// past maxArgString.
func genRegexp(b *strings.Builder, re *syntax.Regexp, rep, depth int) bool {
	if depth > 64 || b.Len() > maxArgString {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return genRegexp(b, re.Sub[0], rep, depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 1
		switch re.Op {
		case syntax.OpStar:
			hi = -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		n := max(lo, rep)
		if hi >= 0 {
			n = min(n, hi)
		}
		n = min(n, maxArgString)
		for i := 0; i < n; i++ {
			before := b.Len()
			if !genRegexp(b, re.Sub[0], rep, depth+1) {
				return false
			}
			if b.Len() == before {
				// It writes nothing (an anchor, \B), and would write
				// nothing again: nested, 4096 turns of it were 4096^depth.
				break
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !genRegexp(b, sub, rep, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return genRegexp(b, re.Sub[0], rep, depth+1)
	}
	// Anchors, word boundaries and the empty match write nothing.
	return true
}

// classRune picks a rune of a character class (pairs of lo, hi), a
// letter or digit when the class has one.
func classRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	for _, want := range []rune{'a', 'A', '0'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want, true
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] >= 0x21 && ranges[i] < 0x7f {
			return ranges[i], true
		}
	}
	return ranges[0], true
}

// number picks 1 (a count or a limit is rarely valid at 0), plus variant,
// moved into [minimum, maximum] and onto a multiple of multipleOf.
func number(s gjson.Result, integer bool, variant int) string {
	x := 1.0 + float64(variant)
	lo, hi := math.Inf(-1), math.Inf(1)
	if m := s.Get("minimum"); m.Type == gjson.Number {
		lo = m.Float()
		if s.Get("exclusiveMinimum").Type == gjson.True { // draft 4
			lo = nextAbove(lo, integer)
		}
	}
	if m := s.Get("exclusiveMinimum"); m.Type == gjson.Number {
		lo = max(lo, nextAbove(m.Float(), integer))
	}
	if m := s.Get("maximum"); m.Type == gjson.Number {
		hi = m.Float()
		if s.Get("exclusiveMaximum").Type == gjson.True {
			hi = nextBelow(hi, integer)
		}
	}
	if m := s.Get("exclusiveMaximum"); m.Type == gjson.Number {
		hi = min(hi, nextBelow(m.Float(), integer))
	}
	x = min(max(x, lo), hi)
	if integer {
		x = math.Ceil(x)
		if x > hi {
			x = math.Floor(hi)
		}
	}
	if m := s.Get("multipleOf"); m.Type == gjson.Number && m.Float() > 0 {
		step := m.Float()
		x = math.Ceil(x/step) * step
		if x > hi {
			x = math.Floor(hi/step) * step
		}
	}
	switch {
	case math.IsInf(x, 0) || math.IsNaN(x):
		// A bound past float64 (1e999) or a multipleOf too small to
		// divide by: no number here is JSON, so the plainest one.
		return "0"
	case x == 0:
		return "0" // not -0
	case integer:
		// 'f' keeps every digit of an integer past int64's range.
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// nextAbove is the smallest value past an exclusive lower bound: the next
// integer, or for a number the bound plus one (the old choice, kept).
func nextAbove(x float64, integer bool) float64 {
	if integer {
		return math.Floor(x) + 1
	}
	return x + 1
}

func nextBelow(x float64, integer bool) float64 {
	if integer {
		return math.Ceil(x) - 1
	}
	return x - 1
}
