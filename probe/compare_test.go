package probe

import (
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/canon"
)

var canonString = canon.String

func TestCompareItems(t *testing.T) {
	a := []byte(`{"name":"a","description":"x"}`)
	aSpaced := []byte(`{ "description": "x", "name": "a" }`)
	b := []byte(`{"name":"b"}`)
	bChanged := []byte(`{"name":"b","description":"y"}`)
	for _, c := range []struct {
		name string
		x, y [][]byte
		want string
	}{
		{"same bytes", [][]byte{a, b}, [][]byte{a, b}, ""},
		{"same meaning, other bytes", [][]byte{a}, [][]byte{aSpaced}, ""},
		{"changed", [][]byte{a, b}, [][]byte{a, bChanged}, `"b" changed`},
		{"gone and new", [][]byte{a}, [][]byte{b}, `"a" gone, "b" new`},
		{"reordered", [][]byte{a, b}, [][]byte{b, a}, "same tools in another order"},
		{"both empty", nil, nil, ""},
	} {
		if got := compareItems(c.x, c.y); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestQuoteMatchesCanon(t *testing.T) {
	for _, s := range []string{"", "tools/call", "echo", `a"b`, `a\b`, "tab\there", "é", "<&>", "\u2028", "\xff", "~ !"} {
		if got, want := string(quote(s)), string(canonString(s)); got != want {
			t.Errorf("quote(%q) = %s, canon.String %s", s, got, want)
		}
		if got := string(appendQuote([]byte("x"), s)); got != "x"+string(canonString(s)) {
			t.Errorf("appendQuote(x, %q) = %s", s, got)
		}
	}
}
