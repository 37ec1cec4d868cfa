package bench

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/tidwall/gjson"
)

// MinimalArgs builds the smallest arguments an input schema accepts: every
// required property and nothing else, each at its smallest valid value.
func MinimalArgs(schema []byte) []byte {
	v := gjson.ParseBytes(schema)
	if !v.Exists() {
		return []byte("{}")
	}
	var b bytes.Buffer
	minimal(&b, v, 0)
	return b.Bytes()
}

func minimal(b *bytes.Buffer, s gjson.Result, depth int) {
	if depth > 16 {
		b.WriteString("null")
		return
	}
	switch {
	case s.Get("const").Exists():
		b.WriteString(s.Get("const").Raw)
		return
	case s.Get("enum").IsArray() && len(s.Get("enum").Array()) > 0:
		b.WriteString(s.Get("enum.0").Raw)
		return
	case s.Get("default").Exists():
		b.WriteString(s.Get("default").Raw)
		return
	}
	for _, alt := range []string{"anyOf", "oneOf", "allOf"} {
		if a := s.Get(alt); a.IsArray() && len(a.Array()) > 0 && !s.Get("type").Exists() {
			minimal(b, a.Array()[0], depth+1)
			return
		}
	}
	switch typeOf(s) {
	case "object":
		b.WriteByte('{')
		props := s.Get("properties")
		for i, r := range s.Get("required").Array() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(canon.String(r.String()))
			b.WriteByte(':')
			minimal(b, props.Get(gjson.Escape(r.String())), depth+1)
		}
		b.WriteByte('}')
	case "array":
		b.WriteByte('[')
		n := int(s.Get("minItems").Int())
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			minimal(b, s.Get("items"), depth+1)
		}
		b.WriteByte(']')
	case "string":
		n := int(math.Max(1, float64(s.Get("minLength").Int())))
		if m := s.Get("maxLength"); m.Exists() && int(m.Int()) < n {
			n = int(m.Int())
		}
		b.Write(canon.String(strings.Repeat("a", n)))
	case "integer", "number":
		b.WriteString(number(s, typeOf(s) == "integer"))
	case "boolean":
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
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
	if s.Get("properties").Exists() {
		return "object"
	}
	return ""
}

// number picks 1 (a count or a limit is rarely valid at 0), moved into
// [minimum, maximum].
func number(s gjson.Result, integer bool) string {
	x := 1.0
	if m := s.Get("minimum"); m.Exists() && x < m.Float() {
		x = m.Float()
	}
	if m := s.Get("exclusiveMinimum"); m.Type == gjson.Number && x <= m.Float() {
		x = m.Float() + 1
	}
	if m := s.Get("maximum"); m.Exists() && x > m.Float() {
		x = m.Float()
	}
	if m := s.Get("exclusiveMaximum"); m.Type == gjson.Number && x >= m.Float() {
		x = m.Float() - 1
	}
	if integer {
		x = math.Ceil(x)
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
