package tokens

import "testing"

func TestCount(t *testing.T) {
	// Known o200k_base counts.
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // special tokens are text here, never control
	}
	for _, tc := range tests {
		got, err := Count(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}
