// Package quote bounds what a server sent before a verdict quotes it: the
// judges of check and the skill verifier cite a server's value in their
// reasons, and a server decides how long that value is.
package quote

import (
	"fmt"
	"unicode/utf8"
)

// Bound cuts s to at most n bytes on a rune boundary and says how long it
// was, so that a cut quote is never mistaken for the whole value.
func Bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}
