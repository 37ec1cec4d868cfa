// Package vocabhash is the hash that places a token in the vocabulary table.
// The generator that writes the table and the package that reads it must use
// the same function, so it lives here, apart from both.
package vocabhash

const mul = 0x9E3779B97F4A7C15

// Sum hashes a token's bytes. It reads eight bytes at a time because most
// lookups are of short candidate merges and a byte loop would dominate them.
func Sum[T string | []byte](s T) uint64 {
	h := uint64(len(s)) * mul
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w) * mul
		h ^= h >> 32
		s = s[8:]
	}
	if len(s) > 0 {
		var w uint64
		for i := 0; i < len(s); i++ {
			w |= uint64(s[i]) << (8 * i)
		}
		h = (h ^ w) * mul
		h ^= h >> 32
	}
	h *= mul
	return h ^ h>>29
}
