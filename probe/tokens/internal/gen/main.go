// Command gen writes o200k_base.bin, the vocabulary in the form the tokens
// package reads without parsing: token bytes laid end to end in rank order,
// their offsets, and an open-addressing hash table from bytes to rank, all
// built here once so that a count starts with no work at all.
//
// The source is the o200k_base.tiktoken file shipped inside
// github.com/pkoukk/tiktoken-go-loader (MIT), which is OpenAI's published
// vocabulary (MIT, from tiktoken). Run it through `go generate` in probe/tokens.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"

	"github.com/mcpprobe/mcpprobe/probe/tokens/internal/vocabhash"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Layout constants; probe/tokens/vocab.go reads the same layout.
const (
	magic     = "tokv\x01\x00\x00\x00"
	headerLen = 24
	rankBits  = 18 // rank+1 must fit below the fingerprint
	fpBits    = 32 - rankBits
)

func main() {
	out := flag.String("o", "o200k_base.bin", "output file")
	bits := flag.Uint("bits", 18, "log2 of the hash table's slot count")
	flag.Parse()

	raw, err := assets.Assets.ReadFile("o200k_base.tiktoken")
	if err != nil {
		log.Fatal(err)
	}
	tokens, err := parse(raw)
	if err != nil {
		log.Fatal(err)
	}
	data, err := build(tokens, *bits)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// parse returns the tokens indexed by rank, refusing a file whose ranks are
// not exactly 0..n-1 or whose tokens repeat: the table stores rank+1 and
// offsets by rank, so a gap or a duplicate would silently lose a token.
func parse(raw []byte) ([][]byte, error) {
	var byRank [][]byte
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		b64, num, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("line %q: no rank", line)
		}
		tok, err := base64.StdEncoding.DecodeString(string(b64))
		if err != nil {
			return nil, err
		}
		rank, err := strconv.Atoi(string(num))
		if err != nil {
			return nil, err
		}
		if rank != len(byRank) {
			return nil, fmt.Errorf("rank %d out of order (want %d)", rank, len(byRank))
		}
		if seen[string(tok)] {
			return nil, fmt.Errorf("token %q repeats", tok)
		}
		seen[string(tok)] = true
		byRank = append(byRank, tok)
	}
	return byRank, sc.Err()
}

func build(tokens [][]byte, bits uint) ([]byte, error) {
	n := len(tokens)
	if n+1 >= 1<<rankBits {
		return nil, fmt.Errorf("%d tokens do not fit in %d rank bits", n, rankBits)
	}
	slots := 1 << bits
	if n*8 > slots*7 {
		return nil, fmt.Errorf("table of %d slots too full for %d tokens", slots, n)
	}
	table := make([]uint32, slots)
	var blob []byte
	offsets := make([]uint32, 0, n+1)
	maxLen, probes := 0, 0
	for rank, tok := range tokens {
		offsets = append(offsets, uint32(len(blob)))
		blob = append(blob, tok...)
		maxLen = max(maxLen, len(tok))
		h := vocabhash.Sum(tok)
		fp := uint32(h&(1<<fpBits-1)) << rankBits
		for i := h >> (64 - bits); ; i = (i + 1) & uint64(slots-1) {
			probes++
			if table[i] == 0 {
				table[i] = fp | uint32(rank+1)
				break
			}
		}
	}
	offsets = append(offsets, uint32(len(blob)))

	out := make([]byte, 0, headerLen+4*(n+1+slots)+len(blob))
	out = append(out, magic...)
	for _, v := range []uint32{uint32(n), uint32(bits), uint32(maxLen), uint32(len(blob))} {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	if len(out) != headerLen {
		return nil, fmt.Errorf("header is %d bytes, the reader expects %d", len(out), headerLen)
	}
	for _, v := range offsets {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	for _, v := range table {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	out = append(out, blob...)
	log.Printf("%d tokens, %d bytes of token text, longest %d, %d slots, %.2f probes per hit, %d bytes in all",
		n, len(blob), maxLen, slots, float64(probes)/float64(n), len(out))
	return out, nil
}
