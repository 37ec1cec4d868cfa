// Package canon renders JSON in one canonical form, so that two
// definitions can be compared for meaning while the bytes they came in stay
// untouched: keys sorted, insignificant space gone, numbers and strings
// written one way (1.0, 1 and 1e0 are one number; "\u00e9" and "é" one
// string).
package canon

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
	"strconv"

	"github.com/tidwall/gjson"
)

// JSON returns the canonical form of raw, which must be valid JSON.
func JSON(raw []byte) []byte {
	var b bytes.Buffer
	write(&b, gjson.ParseBytes(raw))
	return b.Bytes()
}

// Of returns the canonical form of a parsed value.
func Of(v gjson.Result) []byte {
	var b bytes.Buffer
	write(&b, v)
	return b.Bytes()
}

func write(b *bytes.Buffer, v gjson.Result) {
	switch {
	case v.IsObject():
		type member struct {
			k string
			v gjson.Result
		}
		var ms []member
		v.ForEach(func(k, val gjson.Result) bool {
			ms = append(ms, member{k.String(), val})
			return true
		})
		// A duplicate key keeps its last value, as JSON parsers do.
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].k < ms[j].k })
		b.WriteByte('{')
		n := 0
		for i, m := range ms {
			if i+1 < len(ms) && ms[i+1].k == m.k {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.Write(String(m.k))
			b.WriteByte(':')
			write(b, m.v)
		}
		b.WriteByte('}')
	case v.IsArray():
		b.WriteByte('[')
		i := 0
		v.ForEach(func(_, el gjson.Result) bool {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			write(b, el)
			return true
		})
		b.WriteByte(']')
	case v.Type == gjson.String:
		b.Write(String(v.String()))
	case v.Type == gjson.Number:
		b.WriteString(Number(v.Raw))
	default:
		b.WriteString(v.Raw) // true, false, null
	}
}

// String encodes s as a JSON string: no HTML escaping, non-ASCII as is.
func String(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Number writes a JSON number one way: an integral value as an integer
// (1.0 and 1e3 become 1 and 1000), anything else in shortest form. Big
// integers keep every digit.
func Number(raw string) string {
	f, _, err := big.ParseFloat(raw, 10, 256, big.ToNearestEven)
	if err != nil {
		return raw
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
