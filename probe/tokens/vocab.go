package tokens

import (
	_ "embed"
	"errors"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/tokens/internal/vocabhash"
)

//go:generate go run ./internal/gen -o o200k_base.bin

// o200kBase is the vocabulary as internal/gen lays it out. It is a string so
// that it stays in the binary's read-only data: the pages a count touches are
// mapped in on demand and nothing is parsed or copied at start.
//
//go:embed o200k_base.bin
var o200kBase string

// Layout written by internal/gen: an 8-byte magic, four little-endian words
// (token count, log2 of table slots, longest token, bytes of token text),
// then offsets by rank (count+1 words), the table, and the token text.
const (
	vocabMagic = "tokv\x01\x00\x00\x00"
	headerLen  = 24
	rankBits   = 18
	rankMask   = 1<<rankBits - 1
	fpBits     = 32 - rankBits
)

// vocab maps a token's bytes to its rank by probing the generated table.
type vocab struct {
	n       int
	bits    uint
	maxLen  int
	offsets string
	table   string
	text    string
}

var (
	vocabOnce sync.Once
	theVocab  *vocab
	vocabErr  error
)

// loadVocab reads the header and slices the embedded data; it costs
// microseconds, which is why it can wait for the first count.
func loadVocab() (*vocab, error) {
	vocabOnce.Do(func() { theVocab, vocabErr = parseVocab(o200kBase) })
	return theVocab, vocabErr
}

func parseVocab(d string) (*vocab, error) {
	if len(d) < headerLen || d[:8] != vocabMagic {
		return nil, errors.New("tokens: embedded vocabulary has no valid header")
	}
	n, bits, maxLen, textLen := int(u32(d, 8)), uint(u32(d, 12)), int(u32(d, 16)), int(u32(d, 20))
	if bits > 30 || n >= rankMask || len(d) != headerLen+4*(n+1)+4<<bits+textLen {
		return nil, errors.New("tokens: embedded vocabulary is truncated or malformed")
	}
	v := &vocab{n: n, bits: bits, maxLen: maxLen}
	off := headerLen
	v.offsets, off = d[off:off+4*(n+1)], off+4*(n+1)
	v.table, off = d[off:off+4<<bits], off+4<<bits
	v.text = d[off:]
	return v, nil
}

func u32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// token returns the bytes of rank r.
func (v *vocab) token(r int) string {
	return v.text[u32(v.offsets, 4*r):u32(v.offsets, 4*r+4)]
}

// noRank marks a pair that is not a token; it sorts after every real rank.
const noRank = ^uint32(0)

// rank returns the rank of s, or noRank. The fingerprint kept beside each
// rank rejects almost every non-matching slot without touching token text.
func (v *vocab) rank(s string) uint32 {
	if len(s) > v.maxLen || len(s) == 0 {
		return noRank
	}
	h := vocabhash.Sum(s)
	fp := uint32(h&(1<<fpBits-1)) << rankBits
	mask := uint64(1)<<v.bits - 1
	for i := h >> (64 - v.bits); ; i = (i + 1) & mask {
		slot := u32(v.table, int(4*i))
		if slot == 0 {
			return noRank
		}
		if slot&^rankMask != fp {
			continue
		}
		r := int(slot&rankMask) - 1
		if v.token(r) == s {
			return uint32(r)
		}
	}
}
