// Package tokens counts what a server's definitions cost in tokens, offline,
// with a real tokenizer. Every count is an estimate in one encoding: each
// host's model has its own tokenizer and wraps definitions its own way.
//
// The counts are o200k_base's, token for token, from code of our own: the
// vocabulary is embedded in a form read in place (see internal/gen), the
// pre-tokenizer is a scanner for o200k_base's pattern, and byte-pair merging
// takes O(n log n) in the length of a piece, so the cost of a count follows
// the text's length and not its shape.
package tokens

import (
	"context"
	"errors"
	"math"
	"strings"
	"unicode/utf8"
)

// Encoding is the tokenizer used: OpenAI's o200k_base, shipped inside the
// binary so that counting needs no network.
const Encoding = "o200k_base"

// Count returns the number of tokens in text.
func Count(text string) (int, error) {
	return CountContext(context.Background(), text)
}

// CountContext is Count that stops with ctx's error once ctx is done.
//
// Special tokens such as <|endoftext|> are counted as the text they are.
// Bytes that are not UTF-8 count as U+FFFD each, as in tiktoken-go, which
// reads the text as runes.
func CountContext(ctx context.Context, text string) (int, error) {
	c, err := newCounter(ctx)
	if err != nil {
		return 0, err
	}
	if len(text) > math.MaxInt32 {
		return 0, errTooLong
	}
	text = validUTF8(text)
	sc := scanner{s: text}
	n := 0
	for p := 0; p < len(text); {
		e := sc.next(p)
		n += c.piece(text[p:e])
		if c.spend(e - p) {
			return 0, c.err
		}
		p = e
	}
	return n, nil
}

var errTooLong = errors.New("tokens: text longer than 2 GiB")

func newCounter(ctx context.Context) (*counter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := loadVocab()
	if err != nil {
		return nil, err
	}
	return &counter{ctx: ctx, v: v}, nil
}

// validUTF8 replaces each byte that is not part of a UTF-8 sequence with
// U+FFFD, one per byte, as Go's conversion to runes does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// Tool is one tool definition's cost.
type Tool struct {
	Name   string
	Tokens int
}

// Definitions is what a server's tool definitions cost on every request.
type Definitions struct {
	Encoding string
	Tools    []Tool
	// Total counts the tools array as sent, which every request carries.
	Total int
}

// OfTools counts each raw tool definition and the whole array.
func OfTools(names []string, items [][]byte) (Definitions, error) {
	return OfToolsContext(context.Background(), names, items)
}

// OfToolsContext counts each raw tool definition and the array
// "[" + items joined by "," + "]", and stops with ctx's error once ctx is
// done.
//
// The array is not counted over again. Where the array's pre-tokenizer is at
// the start of a tool's piece and that piece's match never looked past the
// tool's last byte, the array has the very same piece (a match depends only
// on the characters it reads), so its count is taken from the tool. Only the
// pieces around the joins, where "[", "," and "]" meet a tool's first and
// last characters, are scanned and counted in the array itself.
func OfToolsContext(ctx context.Context, names []string, items [][]byte) (Definitions, error) {
	d, _, err := ofTools(ctx, names, items)
	return d, err
}

// ofTools is OfToolsContext that also returns how many bytes of the array
// were scanned and counted apart from the tools, which tests keep small.
func ofTools(ctx context.Context, names []string, items [][]byte) (d Definitions, own int, err error) {
	d = Definitions{Encoding: Encoding}
	c, err := newCounter(ctx)
	if err != nil {
		return d, 0, err
	}
	// Converting each tool to valid UTF-8 alone gives the same text as
	// converting the array: "[", "," and "]" can neither finish nor begin a
	// multi-byte sequence.
	size := 2 + len(items)
	for _, raw := range items {
		size += len(raw)
	}
	if size > math.MaxInt32 {
		return d, 0, errTooLong
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('[')
	bases := make([]int, len(items))
	for i, raw := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		bases[i] = b.Len()
		if utf8.Valid(raw) {
			b.Write(raw)
		} else {
			b.WriteString(string([]rune(string(raw))))
		}
	}
	b.WriteByte(']')
	whole := b.String()

	d.Tools = make([]Tool, 0, len(items))
	all := scanner{s: whole}
	at := 0 // where the array's next piece starts
	// arrayUpTo counts the array's own pieces until it reaches offset a.
	arrayUpTo := func(a int) {
		for at < a && c.err == nil {
			e := all.next(at)
			d.Total += c.piece(whole[at:e])
			c.spend(e - at)
			own += e - at
			at = e
		}
	}
	for i := range items {
		base := bases[i]
		end := len(whole) - 1
		if i+1 < len(items) {
			end = bases[i+1] - 1
		}
		tool := scanner{s: whole[base:end]}
		n := 0
		for p := 0; p < len(tool.s); {
			arrayUpTo(base + p)
			tool.touched = false
			e := tool.next(p)
			k := c.piece(tool.s[p:e])
			n += k
			if at == base+p && !tool.touched {
				d.Total += k
				at = base + e
			}
			if c.spend(e - p) {
				return d, own, c.err
			}
			p = e
		}
		name := ""
		if i < len(names) {
			name = names[i]
		}
		d.Tools = append(d.Tools, Tool{Name: name, Tokens: n})
	}
	arrayUpTo(len(whole))
	return d, own, c.err
}
