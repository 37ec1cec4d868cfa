package inputfile

import (
	"bytes"
	"fmt"
)

// MaxDepth is how deep an input file may nest: the limit probe.MaxDepth
// puts on what a server sends, for the same reason. Parsers of nested data
// recurse, or walk a level at a time, so a file of 300,000 brackets took a
// minute and half a gigabyte; no host config, reference or host profile
// nests past a few dozen levels. Depth scans for it in one pass, before
// any parser sees the file.
const MaxDepth = 1000

// Syntax says how a file's strings and comments are written, so that a
// bracket inside one is not counted.
type Syntax int

const (
	// JSON is RFC 8259 JSON (a reference, a host profiles file).
	JSON Syntax = iota
	// JSONC is JSON with // and /* */ comments (VS Code's and most hosts'
	// config files).
	JSONC
	// TOML is TOML 1.0 (Codex's config.toml): # comments, and basic and
	// literal strings, on one line or (in three quotes) on several.
	TOML
)

// Depth returns how deep b nests its arrays and objects (TOML: arrays and
// inline tables; a table header counts as the brackets it is written with)
// in syntax s, in one pass with no recursion, stopping as soon as it passes
// MaxDepth.
func Depth(b []byte, s Syntax) int {
	d, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '[', '{':
			d++
			if d > deepest {
				deepest = d
				if deepest > MaxDepth {
					return deepest
				}
			}
		case ']', '}':
			d--
		case '"':
			i = stringEnd(b, i, s)
		case '\'':
			if s == TOML {
				i = literalEnd(b, i)
			}
		case '/':
			if s == JSONC && i+1 < len(b) {
				switch b[i+1] {
				case '/':
					i = lineEnd(b, i)
				case '*':
					if e := bytes.Index(b[i+2:], []byte("*/")); e >= 0 {
						i += 2 + e + 1
					} else {
						i = len(b)
					}
				}
			}
		case '#':
			if s == TOML {
				i = lineEnd(b, i)
			}
		}
	}
	return deepest
}

// CheckDepth refuses b, read from path, past MaxDepth.
func CheckDepth(path string, b []byte, s Syntax) error {
	if d := Depth(b, s); d > MaxDepth {
		return &Error{Path: path, Why: fmt.Sprintf("nests more than %d levels deep: mcpprobe refuses it before parsing, since parsers of deep nesting recurse (a file of 300,000 brackets took a minute), and no honest file of its kind nests past a few dozen", MaxDepth)}
	}
	return nil
}

// ReadJSON reads path as Read does and refuses it past MaxDepth.
func ReadJSON(path string, max int64, s Syntax) ([]byte, error) {
	b, err := Read(path, max)
	if err != nil {
		return nil, err
	}
	if err := CheckDepth(path, b, s); err != nil {
		return nil, err
	}
	return b, nil
}

// stringEnd returns the index of the quote that ends the string whose
// opening quote is at i (TOML: a """ string ends at """, with up to two
// more quotes its content; a basic string ends at its line's end at the
// latest, as TOML allows no newline in one).
func stringEnd(b []byte, i int, s Syntax) int {
	if s == TOML && bytes.HasPrefix(b[i:], []byte(`"""`)) {
		for j := i + 3; j < len(b); j++ {
			switch {
			case b[j] == '\\':
				j++
			case bytes.HasPrefix(b[j:], []byte(`"""`)):
				j += 2
				for k := 0; k < 2 && j+1 < len(b) && b[j+1] == '"'; k++ {
					j++
				}
				return j
			}
		}
		return len(b)
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		case '\n':
			if s == TOML {
				return j
			}
		}
	}
	return len(b)
}

// literalEnd is stringEnd for TOML's literal strings, in single quotes
// or three of them, which have no escapes.
func literalEnd(b []byte, i int) int {
	if bytes.HasPrefix(b[i:], []byte("'''")) {
		e := bytes.Index(b[i+3:], []byte("'''"))
		if e < 0 {
			return len(b)
		}
		j := i + 3 + e + 2
		for k := 0; k < 2 && j+1 < len(b) && b[j+1] == '\''; k++ {
			j++
		}
		return j
	}
	for j := i + 1; j < len(b); j++ {
		if b[j] == '\'' || b[j] == '\n' {
			return j
		}
	}
	return len(b)
}

func lineEnd(b []byte, i int) int {
	if e := bytes.IndexByte(b[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(b)
}
