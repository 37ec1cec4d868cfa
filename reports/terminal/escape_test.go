package terminal

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"héllo — ok ✓", "héllo — ok ✓"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"\u202eevil\u202c", `\u202eevil\u202c`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"\u2066iso\u2069", `\u2066iso\u2069`},
		{"bom\ufeff", `bom\ufeff`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"del\x7f", `del\x7f`},
		{"emoji 😀 stays", "emoji 😀 stays"},
	}
	for _, tc := range tests {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCellAndCode(t *testing.T) {
	tests := []struct{ in, cell, code string }{
		{"a|b", `a\|b`, "`a\\|b`"},
		{"x`y", "x`y", "``x`y``"},
		{"`lead", "`lead", "`` `lead ``"},
	}
	for _, tc := range tests {
		if got := Cell(tc.in); got != tc.cell {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.cell)
		}
		if got := Code(tc.in); got != tc.code {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.code)
		}
	}
}

func TestClip(t *testing.T) {
	if got := Clip("abcdef", 3); got != "abc…" {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip("añb", 5); got != "añb" {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip("ññññ", 2); got != "ññ…" {
		t.Errorf("Clip = %q", got)
	}
}
