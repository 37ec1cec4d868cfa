// Package tokens counts what a server's definitions cost in tokens, offline,
// with a real tokenizer. Every count is an estimate in one encoding: each
// host's model has its own tokenizer and wraps definitions its own way.
package tokens

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer used: OpenAI's o200k_base, shipped inside the
// binary so that counting needs no network.
const Encoding = "o200k_base"

var (
	once sync.Once
	enc  *tiktoken.Tiktoken
	err  error
)

func load() {
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	enc, err = tiktoken.GetEncoding(Encoding)
}

// Count returns the number of tokens in text.
func Count(text string) (int, error) {
	once.Do(load)
	if err != nil {
		return 0, err
	}
	return len(enc.EncodeOrdinary(text)), nil
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
	d := Definitions{Encoding: Encoding}
	whole := []byte{'['}
	for i, raw := range items {
		n, err := Count(string(raw))
		if err != nil {
			return d, err
		}
		d.Tools = append(d.Tools, Tool{Name: names[i], Tokens: n})
		if i > 0 {
			whole = append(whole, ',')
		}
		whole = append(whole, raw...)
	}
	total, err := Count(string(append(whole, ']')))
	d.Total = total
	return d, err
}
