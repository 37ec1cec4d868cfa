package transport

import (
	"github.com/tidwall/gjson"
	"strings"
	"testing"
)

func TestShape(t *testing.T) {
	tests := []struct {
		in    string
		depth int
		walk  int64
	}{
		{`1`, 0, 0},
		{`[]`, 1, 1},
		{`{"a":[1]}`, 2, 1 + 6 + 1 + 1 + 1},
		{`"[[[{"`, 0, 0},
		{`["\"[", "]"]`, 1, 11},
		{strings.Repeat("[", 5) + strings.Repeat("]", 5), 5, 1 + 2 + 3 + 4 + 5 + 4 + 3 + 2 + 1},
	}
	for _, tc := range tests {
		d, w := Shape([]byte(tc.in))
		if d != tc.depth || w != tc.walk {
			t.Errorf("Shape(%s) = %d, %d; want %d, %d", tc.in, d, w, tc.depth, tc.walk)
		}
	}
}

// A message nested 8 million levels (a 16 MiB line) is read, in time and
// memory linear in its size: gjson's validity check, which recurses once
// per level, would need a gigabyte of stack and end the process.
func TestDeepMessage(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 8<<20) + strings.Repeat("]", 8<<20) + `}`
	if !IsJSONRPC([]byte(deep)) {
		t.Errorf("a message nested 8 million levels was not read")
	}
	if IsJSONRPC([]byte(deep[:len(deep)-2])) {
		t.Errorf("a deep message missing its last brackets was read")
	}
}

// Valid accepts what gjson.Valid accepts, and only that.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,-0.5e+3,"x\u00e9\n",true,false,null,{}]}`, ` 1 `, `01`, `1.`, `-`, `"\x"`,
		`{"a" 1}`, `[1,]`, `{,}`, `[[[]]]`, `"` + "\x01" + `"`, `1e`, `tru`, `nulll`, `{"a":1}x`, `[1 2]`, ``, `"\u12g4"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, _ := Shape(b); d > 100 {
			return
		}
		if got, want := Valid(b), gjson.ValidBytes(b); got != want {
			t.Fatalf("Valid(%q) = %v, gjson says %v", b, got, want)
		}
	})
}
