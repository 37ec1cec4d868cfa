package canon

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/tidwall/gjson"
)

func TestJSON(t *testing.T) {
	tests := []struct{ a, b string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{`{ "a" : [ 1 , 2 ] }`, `{"a":[1,2]}`},
		{`1.0`, `1`},
		{`1e3`, `1000`},
		{`-0.50`, `-0.5`},
		{`9007199254740993`, `9007199254740993`},
		{`"\u00e9"`, `"é"`},
		{`"\/"`, `"/"`},
		{`"<&>"`, `"<&>"`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`[true,null,false]`, `[true,null,false]`},
	}
	for _, tc := range tests {
		if got := string(JSON([]byte(tc.a))); got != tc.b {
			t.Errorf("JSON(%s) = %s, want %s", tc.a, got, tc.b)
		}
	}
	if string(JSON([]byte(`[2,1]`))) == string(JSON([]byte(`[1,2]`))) {
		t.Errorf("array order is meaning, not form")
	}
}

// reference is the canonical form as gjson's walk wrote it before the
// single pass: the single pass must write the same bytes (bar invalid
// UTF-8, which String now writes as U+FFFD).
func reference(b *bytes.Buffer, v gjson.Result) {
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
			reference(b, m.v)
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
			reference(b, el)
			return true
		})
		b.WriteByte(']')
	case v.Type == gjson.String:
		b.Write(String(v.String()))
	case v.Type == gjson.Number:
		b.WriteString(Number(v.Raw))
	default:
		b.WriteString(v.Raw)
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":2}`, `{ "a" : [ 1 , 2 ] }`, `[{"z":{},"a":[]},{"a":1,"a":{"c":[1.50,"\u00e9"]}}]`,
		`{"":0,"\\"":[true,false,null],"a\"b":-0.0e1}`, `"x"`, `1e3`, ` [ ] `, `{"a":{"b":{"c":[[{"d":1}]]}}}`,
		"{\"bad\":\"\xff\"}", `{"a":1,}`, `[1 2]`, `{"a"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := JSON(raw)
		if !gjson.ValidBytes(raw) {
			return
		}
		var want bytes.Buffer
		reference(&want, gjson.ParseBytes(raw))
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("JSON(%q)\n= %q\nwant %q", raw, got, want.Bytes())
		}
		if !utf8.Valid(got) {
			t.Fatalf("JSON(%q) is not UTF-8: %q", raw, got)
		}
	})
}

// Depth costs no more than size: a schema nested 100,000 levels (and as
// many arrays) is written in linear time, where the walk level by level
// took minutes.
func TestDeepIsLinear(t *testing.T) {
	const depth = 100000
	var b bytes.Buffer
	for i := 0; i < depth; i++ {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth))
	for i := 0; i < depth; i++ {
		b.WriteString(`}}`)
	}
	start := time.Now()
	out := JSON(b.Bytes())
	if took := time.Since(start); took > loadfactor.Scale(5*time.Second) {
		t.Errorf("%d levels took %v", depth, took)
	}
	if !bytes.HasPrefix(out, []byte(`{"properties":{"a":{"properties":`)) || !bytes.Contains(out, []byte(`]]]},"type":"object"}},"type":"object"}`)) {
		t.Errorf("wrong form: %.80s … %.80s", out, out[len(out)-80:])
	}
}

func TestNumberBounds(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1e3", "1000"},
		{"1e50", "1" + strings.Repeat("0", 50)},
		{"-0.0", "0"},
		{"0e5", "0"},
		{"1e999999999", "1e999999999"},                     // not a gigabyte of zeros
		{"1e-999999999", "1e-999999999"},                   // nor a slow shortest form
		{strings.Repeat("7", 65), strings.Repeat("7", 65)}, // nor a slow parse
		{"123456789012345678901234567890", "123456789012345678901234567890"},
	}
	for _, tc := range tests {
		start := time.Now()
		if got := Number(tc.in); got != tc.want {
			t.Errorf("Number(%.20s…) = %.40s…, want %.40s…", tc.in, got, tc.want)
		}
		if took := time.Since(start); took > loadfactor.Scale(time.Second) {
			t.Errorf("Number(%.20s…) took %v", tc.in, took)
		}
	}
}

func TestInvalidUTF8IsReplacement(t *testing.T) {
	// A byte that is not UTF-8 means what a decoder makes of it: U+FFFD.
	a := JSON([]byte("{\"d\":\"caf\xe9 \xff\"}"))
	b := JSON([]byte(`{"d":"caf\ufffd \ufffd"}`))
	if !bytes.Equal(a, b) || !utf8.Valid(a) {
		t.Errorf("%q != %q", a, b)
	}
}
