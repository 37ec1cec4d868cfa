// Package editdist measures how far apart two short names are, for the
// places that ask whether one is a slip of the other: a mistyped flag or
// command (cmd/mcpprobe) and tool names one edit apart across servers
// (probe/budget). One definition, so that a typo the CLI forgives and a
// name budget calls a near twin are measured alike.
package editdist

// Distance is the optimal-string-alignment distance between a and b, in
// runes: insertions, deletions, substitutions and swaps of two adjacent
// runes, each one edit. Past limit it stops counting and returns
// limit+1, so a caller asking "within 2?" pays nothing for two long
// names that differ in length by more.
func Distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(rb)], limit+1)
}
