package hidden

import (
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// titleStop are words too common to tie a title to a description.
var titleStop = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "this": true,
	"that": true, "tool": true, "tools": true, "your": true, "all": true, "new": true, "mcp": true,
}

// stems are a text's content words cut to their first five letters (a
// light stem: "echoes" and "echo", "searching" and "search" meet).
func stems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, p := range SplitWords(w) {
			if len([]rune(p)) < 3 || titleStop[p] {
				continue
			}
			if r := []rune(p); len(r) > 5 {
				p = string(r[:5])
			}
			out[p] = true
		}
	}
	return out
}

// titleMismatch: a title a host shows the user that shares no content
// word with what the model gets (the description and the name), where
// both say something (a title of one content word or more, a description
// of five or more).
func titleMismatch(tool gjson.Result, fs []Field) (Match, bool) {
	titled := false
	for _, f := range fs {
		titled = titled || f.Kind == KindTitle
	}
	if !titled {
		return Match{}, false
	}
	desc := tool.Get("description").String()
	name := tool.Get("name").String()
	model := stems(desc + " " + strings.Join(SplitWords(name), " "))
	if len(stems(desc)) < 5 {
		return Match{}, false
	}
	for _, f := range fs {
		if f.Kind != KindTitle {
			continue
		}
		ts := stems(f.Text)
		if len(ts) == 0 {
			continue
		}
		shared := false
		for s := range ts {
			shared = shared || model[s]
		}
		if !shared {
			return Match{Rule: TitleMismatch, Path: f.Path, At: 0,
				Matched: "the user is shown " + quote(f.Text, 60) + ", the model reads " + quote(desc, 80) + " (no content word in common)"}, true
		}
	}
	return Match{}, false
}
