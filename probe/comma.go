package probe

import "strconv"

// Comma is n in decimal with a comma between each group of three digits
// (12,345), as the tables and messages print counts. Written here rather
// than taken from go-humanize, whose init compiled a regular expression
// and built big.Int tables in every run for two ten-line functions.
func Comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	head := len(s) % 3
	if head == 0 {
		head = 3
	}
	b := make([]byte, 0, len(sign)+len(s)+len(s)/3)
	b = append(b, sign...)
	b = append(b, s[:head]...)
	for i := head; i < len(s); i += 3 {
		b = append(b, ',')
		b = append(b, s[i:i+3]...)
	}
	return string(b)
}
