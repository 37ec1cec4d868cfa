package inputfile

import (
	"math"
	"testing"
)

// The sizes the messages print, as go-humanize's IBytes printed them
// before it went (checked against it over 5,000 sizes and every power of
// two with its neighbours).
func TestIBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0 B"}, {9, "9 B"}, {10, "10 B"}, {100, "100 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"},
		{1536, "1.5 KiB"}, {10 << 10, "10 KiB"}, {10239, "10 KiB"}, {1023 << 10, "1023 KiB"},
		{16 << 20, "16 MiB"}, {1 << 30, "1.0 GiB"}, {math.MaxUint64, "16 EiB"},
	}
	for _, tc := range tests {
		if got := ibytes(tc.n); got != tc.want {
			t.Errorf("ibytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
