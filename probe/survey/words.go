package survey

import (
	"errors"
	"strings"
)

// ParseSandbox reads --sandbox: a command line split in words (spaces
// separate, single and double quotes group, a backslash escapes the next
// character). No shell runs it: nothing is expanded.
func ParseSandbox(s string) ([]string, error) {
	words, err := splitWords(s)
	if err != nil || len(words) == 0 {
		return nil, usage("--sandbox %q: want a command, such as 'docker run --rm -i IMAGE'", s)
	}
	return words, nil
}

func splitWords(s string) ([]string, error) {
	var w words
	for _, r := range s {
		w.next(r)
	}
	if w.quote != 0 || w.esc {
		return nil, errors.New("unterminated quote or escape")
	}
	w.end()
	return w.done, nil
}

// words is splitWords' state: the words done, and the one being read.
type words struct {
	done  []string
	cur   strings.Builder
	in    bool // a word has begun: "" is a word
	quote rune // the quote open, or 0
	esc   bool // the last rune was a backslash
}

func (w *words) next(r rune) {
	switch {
	case w.esc:
		w.esc = false
		w.add(r)
	case r == '\\' && w.quote != '\'':
		w.esc = true
	case w.quote != 0 && r == w.quote:
		w.quote = 0
	case w.quote != 0:
		w.add(r)
	case r == '\'' || r == '"':
		w.quote, w.in = r, true
	case r == ' ' || r == '\t' || r == '\n':
		w.end()
	default:
		w.add(r)
	}
}

func (w *words) add(r rune) {
	w.cur.WriteRune(r)
	w.in = true
}

func (w *words) end() {
	if w.in {
		w.done = append(w.done, w.cur.String())
		w.cur.Reset()
		w.in = false
	}
}
