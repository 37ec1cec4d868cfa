package wire

import (
	"testing"
	"unicode/utf16"
)

func TestUTF16LenMatchesEncode(t *testing.T) {
	for _, s := range []string{"", "abc", "é", "日本", "😀", "a😀b", "\xff", "a\xed\xa0\x80b", "\U0010FFFF", "\xf4\x90\x80\x80"} {
		want := len(utf16.Encode([]rune(s)))
		if got := UTF16Len(s); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", s, got, want)
		}
	}
}
