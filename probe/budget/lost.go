package budget

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Lost is one thing a cut hides from the model that the text or the
// schema marks as important. Every rule is a fixed list of words matched
// in the lost text; no model reads it.
type Lost struct {
	// Rule is one of LostRules' names.
	Rule string
	// Words are the words matched, as the text writes them.
	Words string
	// Sentence is the lost sentence they are in (shortened past
	// maxLostSentence code points); it begins mid-sentence when the cut
	// falls inside it.
	Sentence string
}

// LostRule is one rule of the lost-after-the-cut analysis, for the docs.
type LostRule struct{ Name, Matches string }

// LostRules are the rules, in the order a finding lists what they match.
var LostRules = []LostRule{
	{"required-param", "a property the input schema lists in `required`, named in the lost text and nowhere in the delivered text"},
	{"enum-value", "a value of a property's `enum` (a string of 2 characters or more), named in the lost text and nowhere in the delivered text"},
	{"default", "a lost sentence with \"default\", \"defaults\" or \"by default\""},
	{"warning", "a lost sentence with \"do not\", \"don't\", \"never\", \"must\", \"required\", \"destructive\", \"irreversible\", \"cannot be undone\", \"permanently\", \"warning\" or \"caution\""},
	{"example", "a lost sentence with \"example\", \"e.g.\" or \"for instance\", or a call written out (`name(` or `{\"`)"},
}

var (
	warningWords = []string{"do not", "don't", "never", "must", "required", "destructive", "irreversible", "cannot be undone", "permanently", "warning", "caution"}
	defaultWords = []string{"by default", "defaults", "default"}
	exampleWords = []string{"example", "e.g.", "for instance"}
)

// Bounds: what a server sends is bounded here, not trusted.
const (
	maxLost         = 20  // items per cut text
	maxEnumValues   = 200 // enum values looked for per schema
	maxLostSentence = 160 // code points of a sentence shown
)

// LostAfterCut lists what a cut text no longer shows that its words, or
// the tool's input schema, mark as important: required parameters and
// enum values named only after the cut, and lost sentences that state a
// default, a warning or an example. schema is the tool's input schema
// (absent for server instructions). The order is the lost text's, each
// sentence's names first.
func LostAfterCut(t Text, schema gjson.Result) []Lost {
	if t.Mode != "cut" || t.Tail == "" {
		return nil
	}
	head := t.Head
	required, enums := schemaNames(schema)
	var out []Lost
	seen := map[string]bool{}
	add := func(l Lost) {
		key := l.Rule + "\x00" + strings.ToLower(l.Words)
		if len(out) < maxLost && !seen[key] {
			seen[key] = true
			out = append(out, l)
		}
	}
	// What the delivered text names already, looked up once per name.
	inHead := map[string]bool{}
	for _, n := range append(append([]string(nil), required...), enums...) {
		inHead[n] = hasWord(head, n, false)
	}
	for _, s := range sentences(t.Tail) {
		if len(out) >= maxLost {
			break
		}
		param := false
		for _, name := range required {
			if w, ok := findWord(s, name, false); ok && !inHead[name] {
				add(Lost{Rule: "required-param", Words: w, Sentence: short(s)})
				param = true
			}
		}
		for _, v := range enums {
			if w, ok := findWord(s, v, false); ok && !inHead[v] {
				add(Lost{Rule: "enum-value", Words: w, Sentence: short(s)})
			}
		}
		example := false
		for _, r := range []struct {
			rule  string
			words []string
		}{{"default", defaultWords}, {"warning", warningWords}, {"example", exampleWords}} {
			for _, word := range r.words {
				if word == "required" && param {
					continue // the required parameter says it already
				}
				if w, ok := findWord(s, word, true); ok {
					add(Lost{Rule: r.rule, Words: w, Sentence: short(s)})
					example = example || r.rule == "example"
					break
				}
			}
		}
		if w, ok := callWritten(s); ok && !example {
			add(Lost{Rule: "example", Words: w, Sentence: short(s)})
		}
	}
	return out
}

// schemaNames are the input schema's required property names and its
// properties' string enum values, in the schema's order.
func schemaNames(schema gjson.Result) (required, enums []string) {
	if !schema.IsObject() {
		return nil, nil
	}
	schema.Get("required").ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String && v.String() != "" {
			required = append(required, v.String())
		}
		return len(required) < maxEnumValues
	})
	schema.Get("properties").ForEach(func(_, p gjson.Result) bool {
		p.Get("enum").ForEach(func(_, v gjson.Result) bool {
			if v.Type == gjson.String && utf8.RuneCountInString(v.String()) >= 2 {
				enums = append(enums, v.String())
			}
			return len(enums) < maxEnumValues
		})
		return len(enums) < maxEnumValues
	})
	return required, enums
}

// sentences splits text after ".", "!" or "?" followed by a space, and at
// line breaks; empty pieces are dropped.
func sentences(text string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			flush(i + 1)
		case (c == '.' || c == '!' || c == '?') && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n'):
			// "e.g. " is an abbreviation, not a sentence's end.
			if c == '.' && i >= 3 && strings.EqualFold(text[i-3:i+1], "e.g.") {
				continue
			}
			flush(i + 1)
		}
	}
	flush(len(text))
	return out
}

// findWord finds word in s as a whole word (not inside a longer one),
// case-insensitively when fold is set, and returns it as s writes it.
func findWord(s, word string, fold bool) (string, bool) {
	hay, needle := s, word
	if fold {
		hay, needle = strings.ToLower(s), strings.ToLower(word)
		if len(hay) != len(s) {
			// Lowering changed byte offsets (rare scripts): match without
			// showing the original spelling.
			return word, wordAt(hay, needle) >= 0
		}
	}
	if i := wordAt(hay, needle); i >= 0 {
		return s[i : i+len(needle)], true
	}
	return "", false
}

func hasWord(s, word string, fold bool) bool {
	_, ok := findWord(s, word, fold)
	return ok
}

// wordAt is the offset of needle in hay where neither neighbour is a
// letter, digit or underscore, or -1.
func wordAt(hay, needle string) int {
	if needle == "" {
		return -1
	}
	for off := 0; off < len(hay); {
		i := strings.Index(hay[off:], needle)
		if i < 0 {
			return -1
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		after, _ := utf8.DecodeRuneInString(hay[i+len(needle):])
		if !isNameRune(before) && !isNameRune(after) {
			return i
		}
		off = i + 1
	}
	return -1
}

func isNameRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// callWritten finds a call written out in s: an identifier followed by
// "(" (with no space), or a JSON object opening with a quoted key.
func callWritten(s string) (string, bool) {
	if i := strings.Index(s, `{"`); i >= 0 {
		return `{"`, true
	}
	for i := 1; i < len(s); i++ {
		if s[i] != '(' {
			continue
		}
		j := i
		for j > 0 && (s[j-1] == '_' || s[j-1] >= 'a' && s[j-1] <= 'z' || s[j-1] >= 'A' && s[j-1] <= 'Z' || s[j-1] >= '0' && s[j-1] <= '9' || s[j-1] == '.') {
			j--
		}
		// A name of 3 characters or more with an underscore or a dot
		// looks like a call: "read_file(", "client.call(".
		if name := s[j:i]; len(name) >= 3 && strings.ContainsAny(name, "_.") && !strings.HasSuffix(name, ".") {
			return name + "(", true
		}
	}
	return "", false
}

// short bounds a sentence for a message.
func short(s string) string {
	if utf8.RuneCountInString(s) <= maxLostSentence {
		return s
	}
	n := 0
	for i := range s {
		if n == maxLostSentence-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
