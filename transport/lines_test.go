package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t testing.TB, in []byte, max int) []Line {
	t.Helper()
	lr := NewLineReader(bytes.NewReader(in), max)
	var out []Line
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, l)
		if len(out) > len(in)+1 {
			t.Fatalf("more lines than bytes: reader does not advance")
		}
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		in   string
		max  int
		want []Line
	}{
		{"empty", "", 10, nil},
		{"one", "abc\n", 10, []Line{{Bytes: []byte("abc"), Len: 3}}},
		{"blank lines kept", "\n\n", 10, []Line{{Bytes: []byte{}}, {Bytes: []byte{}}}},
		{"crlf keeps cr", "a\r\n", 10, []Line{{Bytes: []byte("a\r"), Len: 2}}},
		{"no final newline", "ab\ncd", 10, []Line{{Bytes: []byte("ab"), Len: 2}, {Bytes: []byte("cd"), Len: 2, EOF: true}}},
		{"exactly max", "0123456789\n", 10, []Line{{Bytes: []byte("0123456789"), Len: 10}}},
		{"one over max is cut", "0123456789A\nok\n", 10, []Line{{Bytes: []byte("0123456789"), Len: 11, Cut: true}, {Bytes: []byte("ok"), Len: 2}}},
		{"long line over buffer", long + "\nz\n", 20, []Line{{Bytes: []byte(long[:20]), Len: 100, Cut: true}, {Bytes: []byte("z"), Len: 1}}},
		{"long line unbounded", long + "\n", 1000, []Line{{Bytes: []byte(long), Len: 100}}},
		{"invalid utf8 kept", "\xff\xfe\n", 10, []Line{{Bytes: []byte("\xff\xfe"), Len: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readAll(t, []byte(tc.in), tc.max)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if !bytes.Equal(g.Bytes, w.Bytes) || g.Len != w.Len || g.Cut != w.Cut || g.EOF != w.EOF {
					t.Errorf("line %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// FuzzLineReader checks the framer's invariants on any input: it never
// holds more than max bytes, and when nothing was cut the lines put back
// together are exactly the input.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\nnoise\npartial"), 8)
	f.Add([]byte("\n\n\r\n"), 1)
	f.Add([]byte(strings.Repeat("a", 70000)+"\n"), 65536)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<20 {
			max = 1 + (max&0xffff+0xffff)%0xffff
		}
		lines := readAll(t, in, max)
		var rebuilt []byte
		cut := false
		for i, l := range lines {
			if len(l.Bytes) > max {
				t.Fatalf("line %d holds %d bytes, max %d", i, len(l.Bytes), max)
			}
			if l.EOF && i != len(lines)-1 {
				t.Fatalf("EOF line %d is not last", i)
			}
			if l.Cut != (l.Len > max) {
				t.Fatalf("line %d: Cut=%v Len=%d max=%d", i, l.Cut, l.Len, max)
			}
			cut = cut || l.Cut
			rebuilt = append(rebuilt, l.Bytes...)
			if !l.EOF {
				rebuilt = append(rebuilt, '\n')
			}
		}
		if !cut && !bytes.Equal(rebuilt, in) {
			t.Fatalf("rebuilt %q, want %q", rebuilt, in)
		}
	})
}
