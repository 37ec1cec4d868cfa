// Package lint checks what a server tells a model: tool names,
// descriptions and input schemas, prompt descriptions and the server
// instructions, read from the bytes as received.
//
// Server text is untrusted. Whatever of it a message repeats is quoted
// with strconv.Quote, which escapes control and format characters, and
// cut to a short excerpt.
package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hidden"
	"github.com/tidwall/gjson"
)

// BlockNames are the description blocks a model relies on, as headings.
var BlockNames = []string{"RETURNS", "WHEN TO USE", "WHEN NOT TO USE", "QUERY STRATEGY", "INTERPRETATION", "RELATED TOOLS", "FEEDBACK", "ALERTS"}

// Block is one description block heading.
type Block struct {
	Name   string
	Offset int // of the heading's name, in UTF-16 code units from the start of the text
}

// Blocks finds the description blocks a model relies on, in order of
// appearance. A heading is one of BlockNames, in upper case, at the start
// of a line (after optional whitespace and markdown markers such as '#',
// '*', '-', '_', '>' or "**"), followed by ':' (or "**:" / ":**").
func Blocks(text string) []Block {
	var out []Block
	u := 0 // UTF-16 units before byte i
	atLine := true
	for i, r := range text {
		if atLine {
			if name, at, ok := heading(text[i:]); ok {
				out = append(out, Block{Name: name, Offset: u + at}) // the prefix before the name is ASCII
			}
			atLine = false
		}
		u += utf16.RuneLen(r)
		if r == '\n' || r == '\r' {
			atLine = true
		}
	}
	return out
}

// heading reports whether line starts with a block heading, and where
// (in bytes, all ASCII) its name starts.
func heading(line string) (name string, at int, ok bool) {
	i := 0
	for i < len(line) && strings.IndexByte(" \t#*-_>", line[i]) >= 0 {
		i++
	}
	rest := line[i:]
	for _, n := range BlockNames {
		// The longest name wins, so that no shorter name can shadow a longer one.
		if n != "" && len(n) > len(name) && strings.HasPrefix(rest, n) {
			name = n
		}
	}
	if name == "" {
		return "", 0, false
	}
	j := len(name)
	for k := 0; k < 2 && j < len(rest) && (rest[j] == '*' || rest[j] == '_'); k++ {
		j++
	}
	if j < len(rest) && rest[j] == ':' {
		return name, i, true
	}
	return "", 0, false
}

// Check lints what a server delivers: every rule, over every tool, then
// every prompt, then the server instructions. Findings come in wire
// order of tools, and in rule order within a tool.
func Check(c *probe.Capture) []probe.Finding {
	if c == nil {
		return nil
	}
	l := &linter{}
	tools := make([]gjson.Result, len(c.Tools.Items))
	counts := map[string]int{}
	for i, raw := range c.Tools.Items {
		tools[i] = gjson.ParseBytes(raw)
		if n := tools[i].Get("name"); n.Type == gjson.String && n.String() != "" {
			counts[n.String()]++
		}
	}
	reported := map[string]bool{}
	for i, t := range tools {
		l.tool(i, t, counts, reported)
		l.secure(t.Get("name").String(), c.Tools.Items[i])
	}
	for _, raw := range c.Prompts.Items {
		l.prompt(gjson.ParseBytes(raw))
	}
	if c.Instructions != nil {
		f := []field{{"instructions", *c.Instructions}}
		l.hiddenChars("", f)
		l.injection("", f)
		l.hiddenContent("", hidden.ScanText("instructions", *c.Instructions))
	}
	return l.out
}

type linter struct {
	out []probe.Finding
	// fired are the (code, tool, path) the classic hidden-chars and
	// injection rules reported, so that the hidden-content rules do not
	// say it twice.
	fired map[string]bool
}

func (l *linter) add(code findings.Code, tool, format string, args ...any) {
	l.out = append(l.out, findings.New(code, format, args...).About(tool))
}

func (l *linter) fire(code findings.Code, tool, path string) {
	if l.fired == nil {
		l.fired = map[string]bool{}
	}
	l.fired[fmt.Sprint(code, "\x00", tool, "\x00", path)] = true
}

func (l *linter) hasFired(code findings.Code, tool, path string) bool {
	return l.fired[fmt.Sprint(code, "\x00", tool, "\x00", path)]
}

// addAt is add at a severity other than the code's own, one the registry
// allows for it.
func (l *linter) addAt(sev findings.Severity, code findings.Code, tool, format string, args ...any) {
	l.out = append(l.out, findings.NewAt(sev, code, format, args...).About(tool))
}

// field is a piece of server text and where it sits.
type field struct {
	path, text string
}

// stringAt appends v to fs if it is a string.
func stringAt(fs []field, path string, v gjson.Result) []field {
	if v.Type == gjson.String {
		fs = append(fs, field{path, v.String()})
	}
	return fs
}

func (l *linter) tool(i int, t gjson.Result, counts map[string]int, reported map[string]bool) {
	nameV := t.Get("name")
	name := ""
	if nameV.Type == gjson.String {
		name = nameV.String()
	}
	sw := newSchemaWalk(t.Get("inputSchema"))
	if probe.Walkable([]byte(sw.root.Raw)) {
		// A schema that is not is a deep-nesting finding of the capture.
		sw.walk(sw.root, where{s: "inputSchema"}, false, "", "", 0)
	}
	nodes := sw.out

	// 1. param-no-description
	var missing []string
	for _, n := range nodes {
		if n.prop && !sw.described(n.v) {
			missing = append(missing, n.path)
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		l.add(findings.ParamNoDescription, name, "%s has no description; a model has only the parameter's name to go on.", missing[0])
	default:
		l.add(findings.ParamNoDescription, name, "%d parameters have no description: %s; a model has only their names to go on.", len(missing), capList(missing, 10))
	}

	// 2. sdk-bounds
	for _, n := range nodes {
		if msg := sdkBounds(n); msg != "" {
			l.add(findings.SDKBounds, name, "%s", msg)
		}
	}

	// 3. credential-param
	for _, n := range nodes {
		if n.prop && isCredential(n.name, n.v) {
			l.add(findings.CredentialParam, name, "%s looks like a credential; credentials belong in the server's configuration, not in arguments a model fills in.", n.path)
		}
	}

	// 4. hidden-chars and 5. injection
	var fs []field
	fs = stringAt(fs, "title", t.Get("title"))
	fs = stringAt(fs, "annotations.title", t.Get("annotations.title"))
	fs = stringAt(fs, "description", t.Get("description"))
	for _, n := range nodes {
		fs = stringAt(fs, n.path+".description", n.v.Get("description"))
	}
	l.hiddenChars(name, stringAt(nil, "name", nameV), fs)
	l.injection(name, fs)
	l.hiddenContent(name, hidden.Scan(t))

	// 6. bad-name, duplicate-name
	if why := badName(nameV); why != "" {
		if nameV.Type == gjson.String && name != "" {
			l.add(findings.BadName, name, "tool name %s %s; hosts reject or rename tools whose names fall outside ^[A-Za-z0-9_.-]{1,128}$.", quote(name), why)
		} else {
			l.add(findings.BadName, name, "tool #%d (in wire order) %s; hosts cannot call a tool without a name.", i+1, why)
		}
	}
	if n := counts[name]; n > 1 && !reported[name] {
		reported[name] = true
		l.add(findings.DuplicateName, name, "tool name %s appears %d times; hosts keep one of them or reject the server.", quote(name), n)
	}

	// 7. empty-description
	if why := emptyText(t.Get("description")); why != "" {
		l.add(findings.EmptyDescription, name, "%s; a model chooses tools by their descriptions.", why)
	}
}

func (l *linter) prompt(p gjson.Result) {
	name := p.Get("name").String()
	tool := "prompt:" + name
	var fs []field
	fs = stringAt(fs, "title", p.Get("title"))
	fs = stringAt(fs, "description", p.Get("description"))
	if args := p.Get("arguments"); args.IsArray() {
		for j, a := range args.Array() {
			fs = stringAt(fs, fmt.Sprintf("arguments[%d].description", j), a.Get("description"))
		}
	}
	l.hiddenChars(tool, stringAt(nil, "name", p.Get("name")), fs)
	l.injection(tool, fs)
	for _, f := range fs {
		l.hiddenContent(tool, hidden.ScanText(f.path, f.text))
	}
	if why := emptyText(p.Get("description")); why != "" {
		l.addAt(findings.Info, findings.EmptyDescription, tool, "%s; a person picking a prompt sees only its name.", why)
	}
}

// emptyText says why a description is missing or empty, or "".
func emptyText(v gjson.Result) string {
	switch {
	case !v.Exists():
		return "there is no description"
	case v.Type == gjson.Null:
		return "description is null"
	case v.Type != gjson.String:
		return "description is " + typeName(v) + ", not a string"
	case v.String() == "":
		return "description is empty"
	case strings.TrimSpace(v.String()) == "":
		return "description is only whitespace"
	}
	return ""
}

func typeName(v gjson.Result) string {
	switch {
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	case v.IsArray():
		return "an array"
	case v.IsObject():
		return "an object"
	}
	return "not a string"
}

// --- schemas

func nonBlank(v gjson.Result) bool {
	return v.Type == gjson.String && strings.TrimSpace(v.String()) != ""
}

// capList joins up to n items and says how many more there are.
func capList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", and %d more", len(items)-n)
}

// hasType reports whether a schema's type is one of names; an absent
// type counts as any.
func hasType(v gjson.Result, names ...string) bool {
	t := v.Get("type")
	if !t.Exists() {
		return true
	}
	var ts []string
	if t.IsArray() {
		for _, x := range t.Array() {
			ts = append(ts, x.String())
		}
	} else {
		ts = []string{t.String()}
	}
	for _, x := range ts {
		for _, n := range names {
			if x == n {
				return true
			}
		}
	}
	return false
}

// --- sdk-bounds

const maxSafeInt = 9007199254740991 // Number.MAX_SAFE_INTEGER

func sdkBounds(n node) string {
	if !n.v.IsObject() || !hasType(n.v, "integer", "number") {
		return ""
	}
	lo := n.v.Get("minimum")
	hi := n.v.Get("maximum")
	isLo := lo.Type == gjson.Number && lo.Num == -maxSafeInt
	isHi := hi.Type == gjson.Number && hi.Num == maxSafeInt
	var b string
	switch {
	case isLo && isHi:
		b = "is bounded only by ±9007199254740991"
	case isLo:
		b = "is bounded below only by -9007199254740991"
	case isHi:
		b = "is bounded above only by 9007199254740991"
	default:
		return ""
	}
	msg := n.path + " " + b + " (the zod default for z.number().int()), not a real bound"
	if r := documentedRange(n.ctxDesc); r != "" {
		return msg + ", though it is documented as " + r + "; put that in minimum and maximum, where a model and a validator read it."
	}
	return msg + "; a model learns no real limit from the schema."
}

var (
	reBetween = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bbetween\s+(-?\d{1,15})\s+and\s+(-?\d{1,15})\b`)
	})
	reFromTo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(-?\b\d{1,15})\s*(?:to|-|–|—|\.\.\.?)\s*(-?\d{1,15})\b`)
	})
	reAtMost = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\b(?:at\s+most|up\s+to|no\s+more\s+than|max(?:imum)?(?:\s+of|\s+is|\s*[:=])?)|<=|≤)\s*(\d{1,15})\b`)
	})
	reAtLeast = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\b(?:at\s+least|no\s+less\s+than|min(?:imum)?(?:\s+of|\s+is|\s*[:=])?)|>=|≥)\s*(-?\d{1,15})\b`)
	})
)

// documentedRange finds a numeric range a description states: "1–20",
// "at most 20", "at least 1", or "".
func documentedRange(d string) string {
	if d == "" {
		return ""
	}
	if len(d) > 4096 { // a range is stated early, if at all
		d = d[:4096]
	}
	if m := reBetween().FindStringSubmatch(d); m != nil {
		return m[1] + "–" + m[2]
	}
	if m := reFromTo().FindStringSubmatch(d); m != nil {
		return m[1] + "–" + m[2]
	}
	hi := reAtMost().FindStringSubmatch(d)
	lo := reAtLeast().FindStringSubmatch(d)
	switch {
	case hi != nil && lo != nil:
		return lo[1] + "–" + hi[1]
	case hi != nil:
		return "at most " + hi[1]
	case lo != nil:
		return "at least " + lo[1]
	}
	return ""
}

// --- credential-param

var credentialNames = map[string]bool{
	"apikey": true, "token": true, "accesstoken": true, "password": true, "passwd": true,
	"secret": true, "clientsecret": true, "credential": true, "credentials": true, "privatekey": true,
}

// notCredentialToken are words before "token" that make it a cursor.
var notCredentialToken = map[string]bool{
	"page": true, "next": true, "prev": true, "previous": true, "continuation": true,
	"cursor": true, "sync": true, "resume": true, "pagination": true,
}

// isCredential reports whether a property looks like a credential: its
// name, split into words (separators _ - . space, or camelCase), ends
// in one of credentialNames, and it may be a string.
func isCredential(name string, v gjson.Result) bool {
	if v.IsObject() && !hasType(v, "string") {
		return false
	}
	words := hidden.SplitWords(name)
	for j := range words {
		if !credentialNames[strings.Join(words[j:], "")] {
			continue
		}
		if j == len(words)-1 && words[j] == "token" && j > 0 && notCredentialToken[words[j-1]] {
			return false
		}
		return true
	}
	return false
}

// --- hidden-chars

// hiddenKind names a character a person does not see but a model reads,
// or returns "" for any other.
func hiddenKind(r rune) string {
	switch {
	case r == '\n' || r == '\r' || r == '\t':
		return ""
	case r < 0x20:
		return "control character"
	case r == 0x7F:
		return "DEL"
	case r >= 0x80 && r <= 0x9F:
		return "C1 control character"
	case r >= 0xE0000 && r <= 0xE007F:
		return "tag character"
	}
	switch r {
	case 0x202A, 0x202B:
		return "bidi embedding"
	case 0x202C:
		return "bidi pop"
	case 0x202D, 0x202E:
		return "bidi override"
	case 0x2066, 0x2067, 0x2068:
		return "bidi isolate"
	case 0x2069:
		return "bidi pop isolate"
	case 0x200E, 0x200F, 0x061C:
		return "bidi mark"
	case 0x200B:
		return "zero-width space"
	case 0x200C:
		return "zero-width non-joiner"
	case 0x200D:
		return "zero-width joiner"
	case 0x2060:
		return "word joiner"
	case 0xFEFF:
		return "zero-width no-break space"
	}
	return ""
}

// joinerInPlace reports whether a zero-width (non-)joiner does the job
// it exists for: joining an emoji sequence, or shaping letters of a
// script that needs it (Persian, Indic scripts).
func joinerInPlace(r, prev, next rune) bool {
	if r == 0x200D && isEmoji(prev) && isEmoji(next) {
		return true
	}
	return (r == 0x200C || r == 0x200D) && shaped(prev) && shaped(next)
}

func isEmoji(r rune) bool {
	return (r >= 0x1F000 && r <= 0x1FAFF) || (r >= 0x2600 && r <= 0x27BF) || (r >= 0x2B00 && r <= 0x2BFF) || r == 0xFE0F
}

func shaped(r rune) bool {
	return r >= 0x0600 && (unicode.IsLetter(r) || unicode.IsMark(r)) && !unicode.Is(unicode.Latin, r)
}

// occurrence is one hidden character, or one run of tag characters.
type occurrence struct {
	at   int // rune offset
	n    int // characters
	what string
}

// hiddenIn lists the hidden characters of s.
func hiddenIn(s string) (occs []occurrence, total int) {
	if plainText(s) {
		return nil, 0
	}
	var prev rune = -1
	at := 0
	var tags []rune
	tagAt := 0
	endTags := func() {
		if len(tags) == 0 {
			return
		}
		var b strings.Builder
		for _, t := range tags {
			if t >= 0xE0020 && t <= 0xE007E {
				b.WriteRune(t - 0xE0000)
			}
		}
		what := fmt.Sprintf("U+E0000–U+E007F (Unicode tag characters, invisible text spelling %s)", quote(b.String()))
		occs = append(occs, occurrence{at: tagAt, n: len(tags), what: what})
		total += len(tags)
		tags = tags[:0]
	}
	for i, r := range s {
		kind := hiddenKind(r)
		if kind == "tag character" {
			if len(tags) == 0 {
				tagAt = at
			}
			tags = append(tags, r)
		} else {
			endTags()
		}
		if kind != "" && kind != "tag character" {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			switch {
			case (r == 0x200C || r == 0x200D) && joinerInPlace(r, prev, next):
			case r == 0x1B && (next == '[' || next == ']'):
				occs = append(occs, occurrence{at: at, n: 1, what: "U+001B (ESC, starting an ANSI escape sequence)"})
				total++
			case r == 0x1B:
				occs = append(occs, occurrence{at: at, n: 1, what: "U+001B (ESC)"})
				total++
			default:
				occs = append(occs, occurrence{at: at, n: 1, what: fmt.Sprintf("U+%04X (%s)", r, kind)})
				total++
			}
		}
		prev = r
		at++
	}
	endTags()
	return occs, total
}

// hiddenChars reports, per field, the characters a person reviewing the
// server does not see; fields come in groups, checked in order.
func (l *linter) hiddenChars(tool string, groups ...[]field) {
	for _, fs := range groups {
		for _, f := range fs {
			occs, total := hiddenIn(f.text)
			if len(occs) == 0 {
				continue
			}
			l.fire(findings.HiddenChars, tool, f.path)
			const why = "a model reads them, a person reviewing the server does not see them."
			if len(occs) == 1 && occs[0].n == 1 {
				l.add(findings.HiddenChars, tool, "%s contains %s at char %d; a model reads it, a person reviewing the server does not see it.", f.path, occs[0].what, occs[0].at)
				continue
			}
			shown := make([]string, len(occs))
			for j, o := range occs {
				shown[j] = fmt.Sprintf("%s at char %d", o.what, o.at)
			}
			l.add(findings.HiddenChars, tool, "%s contains %d hidden characters: %s; %s", f.path, total, capList(shown, 3), why)
		}
	}
}

// --- injection

// injectionPhrases address the model to override its instructions or to
// hide things from the user. They are matched in normalized text (see
// normalize); "<important>" and "</important>" are matched by
// importantTags, spaces allowed.
var injectionPhrases = []string{
	"ignore previous instructions", "ignore all previous", "ignore the above",
	"disregard previous", "disregard all previous",
	"do not tell the user", "don't tell the user", "don’t tell the user",
	"do not mention this", "don't mention this", "don’t mention this",
	"without telling the user", "before using any other tool",
	"always call this tool first", "you must use this tool instead", "system prompt",
}

// normalize drops the hidden characters from s, so that they cannot
// break up a phrase, and makes each run of whitespace one space. It
// returns the result, and the same with ASCII letters lowered.
func normalize(s string) (text, low string) {
	var t, lo strings.Builder
	t.Grow(len(s))
	lo.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case hiddenKind(r) != "":
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space {
			t.WriteByte(' ')
			lo.WriteByte(' ')
			space = false
		}
		t.WriteRune(r)
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		lo.WriteRune(r)
	}
	return t.String(), lo.String()
}

// asciiLow is normalize's low for ASCII text; false for any other text.
// Most fields are ASCII and match no phrase.
func asciiLow(s string) (string, bool) { return hidden.ASCIIFold(s, true) }

// plainText: printable ASCII, tabs and line breaks, where hiddenIn finds
// nothing; most fields are, and a byte loop says so.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// injectionMatches finds the injection phrases in low, in order,
// as byte spans; overlapping matches count once.
func injectionMatches(low string) [][2]int {
	var ms [][2]int
	for _, p := range injectionPhrases {
		for from := 0; ; {
			i := strings.Index(low[from:], p)
			if i < 0 {
				break
			}
			ms = append(ms, [2]int{from + i, from + i + len(p)})
			from += i + len(p)
		}
	}
	ms = append(ms, importantTags(low)...)
	sort.Slice(ms, func(i, j int) bool { return ms[i][0] < ms[j][0] || ms[i][0] == ms[j][0] && ms[i][1] > ms[j][1] })
	out := ms[:0]
	for _, m := range ms {
		if len(out) == 0 || m[0] >= out[len(out)-1][1] {
			out = append(out, m)
		}
	}
	return out
}

// importantTags finds "<important>" and "</important>" in low, with
// optional spaces: < / important >.
func importantTags(low string) [][2]int {
	var ms [][2]int
	for from := 0; ; {
		i := strings.Index(low[from:], "important")
		if i < 0 {
			return ms
		}
		p := from + i
		from = p + len("important")
		a := p
		if a > 0 && low[a-1] == ' ' {
			a--
		}
		if a > 0 && low[a-1] == '/' {
			a--
			if a > 0 && low[a-1] == ' ' {
				a--
			}
		}
		b := from
		if b < len(low) && low[b] == ' ' {
			b++
		}
		if a > 0 && low[a-1] == '<' && b < len(low) && low[b] == '>' {
			ms = append(ms, [2]int{a - 1, b + 1})
		}
	}
}

// injection reports text that addresses the model to override its
// instructions or to hide things from the user.
func (l *linter) injection(tool string, fs []field) {
	for _, f := range fs {
		low, ok := asciiLow(f.text)
		if ok && len(injectionMatches(low)) == 0 {
			continue
		}
		text, low := normalize(f.text)
		ms := injectionMatches(low)
		if len(ms) == 0 {
			continue
		}
		l.fire(findings.Injection, tool, f.path)
		more := ""
		switch len(ms) {
		case 1:
		case 2:
			more = " (and 1 more such phrase)"
		default:
			more = fmt.Sprintf(" (and %d more such phrases)", len(ms)-1)
		}
		l.add(findings.Injection, tool, "%s addresses the model to override or hide: %s%s; that is prompt injection, whatever it intends.", f.path, excerpt(text, ms[0][0], ms[0][1]), more)
	}
}

// excerptRunes bounds an excerpt of server text.
const excerptRunes = 60

// excerpt quotes text[s:e] with some context around it, whitespace runs
// shown as one space, at most excerptRunes runes in all.
func excerpt(text string, s, e int) string {
	m := utf8.RuneCountInString(text[s:e])
	room := excerptRunes - 2 - m // two for the ellipses
	if room <= 0 {
		return quote(text[s:e])
	}
	a := s
	for k := 0; k < room/2 && a > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:a])
		a -= size
	}
	b := e
	for k := utf8.RuneCountInString(text[a:s]); k < room && b < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[b:])
		b += size
	}
	out := strings.Join(strings.Fields(text[a:b]), " ")
	if a > 0 {
		out = "…" + out
	}
	if b < len(text) {
		out += "…"
	}
	return strconv.Quote(out)
}

// quote quotes server text, cut to at most excerptRunes runes.
func quote(s string) string {
	n := 0
	for i := range s {
		if n == excerptRunes-1 && utf8.RuneCountInString(s[i:]) > 1 {
			return strconv.Quote(s[:i] + "…")
		}
		n++
	}
	return strconv.Quote(s)
}

// --- names

var nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

// badName says what is wrong with a tool name, or "".
func badName(v gjson.Result) string {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return "has no name"
	case v.Type != gjson.String:
		return "has a name that is " + typeName(v) + ", not a string"
	case v.String() == "":
		return "has an empty name"
	}
	name := v.String()
	if nameRe().MatchString(name) {
		return ""
	}
	var why []string
	if n := utf8.RuneCountInString(name); n > 128 {
		why = append(why, fmt.Sprintf("is too long (%d chars, the limit is 128)", n))
	}
	at := 0
	for _, r := range name {
		if !(r == '_' || r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			why = append(why, fmt.Sprintf("contains %s (U+%04X) at char %d", strconv.QuoteRune(r), r, at))
			break
		}
		at++
	}
	return strings.Join(why, " and ")
}

// --- hidden content (probe/hidden)

// hiddenContent reports the hidden-content rules' matches: one finding
// per code and field, naming every rule that matched there, except where
// the classic hidden-chars or injection rule has said it of that field.
func (l *linter) hiddenContent(tool string, ms []hidden.Match) {
	type key struct {
		code findings.Code
		path string
	}
	var order []key
	by := map[key][]hidden.Match{}
	for _, m := range ms {
		r, _ := hidden.RuleByName(m.Rule)
		k := key{r.Code, m.Path}
		// The classic injection phrases include the strongest
		// tool-precedence ones: a field they fired on is said once.
		if l.hasFired(r.Code, tool, m.Path) || m.Rule == hidden.ToolPrecedence && l.hasFired(findings.Injection, tool, m.Path) {
			continue
		}
		// A description in $defs is the classic rules' where it is
		// referenced, under the path through the reference.
		if (r.Code == findings.HiddenChars || r.Code == findings.Injection) && inDefs(m.Path) && strings.HasSuffix(m.Path, ".description") {
			continue
		}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], m)
	}
	for _, k := range order {
		group := by[k]
		msgs := make([]string, 0, 3)
		for j, m := range group {
			if j == 3 {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(group)-3))
				break
			}
			msgs = append(msgs, m.Message())
		}
		l.add(k.code, tool, "%s.", strings.Join(msgs, "; "))
	}
}

func inDefs(path string) bool {
	return strings.Contains(path, ".$defs") || strings.Contains(path, ".definitions")
}
