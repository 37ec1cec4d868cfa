package quote

import "testing"

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefghij… (11 bytes)"},
		// "é" is two bytes: a cut inside it moves back to its start
		{"aaaaaaaaaé", 10, "aaaaaaaaa… (11 bytes)"},
		{"", 0, ""},
		{"x", 0, "… (1 bytes)"},
	} {
		if got := Bound(tc.s, tc.n); got != tc.want {
			t.Errorf("Bound(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
