package lint

import "testing"

// The ASCII fast paths say what the full ones say.
func checkFast(t *testing.T, s string) {
	_, low := normalize(s)
	if a, ok := asciiLow(s); ok && a != low {
		t.Errorf("%q: asciiLow %q, normalize %q", s, a, low)
	}
	if plainText(s) {
		// hiddenIn's own loop, without its fast path.
		for _, r := range s {
			if hiddenKind(r) != "" {
				t.Errorf("%q: plain text holds %U", s, r)
			}
		}
	}
}

func TestASCIIFastPaths(t *testing.T) {
	for _, s := range []string{"", " ", " Ignore  Previous\tInstructions ", "a\r\nb", "x\x00y\x7f", "\x1b[31m", "tab\v\fend ", "caf\u00e9", "Don\u2019t tell the user", "a\u200bb"} {
		checkFast(t, s)
	}
}

func FuzzASCIIFastPaths(f *testing.F) {
	for _, s := range []string{"", " A\tB\r\n", "x\x00y\x7f", "Do not tell the user"} {
		f.Add(s)
	}
	f.Fuzz(checkFast)
}
