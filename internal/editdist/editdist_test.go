package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 2, 0},
		{"wire", "wire", 2, 0},
		{"timout", "timeout", 2, 1}, // a deletion
		{"wrie", "wire", 2, 1},      // an adjacent swap is one edit
		{"list_tgas", "list_tags", 2, 1},
		{"search-docs", "search_docs", 2, 1}, // a substitution
		{"ab", "ba", 2, 1},
		{"abc", "ca", 5, 3}, // OSA, not Damerau: no edit of a swapped pair
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 2, 3}, // past the limit: limit+1
		{"a", "abcdef", 2, 3},       // lengths alone exceed the limit
		{"", "abc", 2, 3},
		{"", "abc", 3, 3},
		{"café", "cafe", 2, 1}, // runes, not bytes
		{"日本語", "日本", 2, 1},
	} {
		if got := Distance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
		if got := Distance(c.b, c.a, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d (symmetric)", c.b, c.a, c.limit, got, c.want)
		}
	}
}
