package hidden

import (
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// norm is a field's text as the text rules read it: hidden characters
// dropped (so that they cannot break up a phrase), curly quotes made
// straight, letters lowered, each whitespace run one space. runeAt maps
// each byte of s back to the rune offset in the field: it is built only
// when a rule matched, from text.
type norm struct {
	s      string
	text   string
	runeAt []int
}

func normalize(text string) *norm {
	if s, ok := plainNorm(text); ok {
		return &norm{s: s, text: text}
	}
	if s, ok := asciiNorm(text); ok {
		return &norm{s: s, text: text}
	}
	s, _ := normalizeAt(text, false)
	return &norm{s: s, text: text}
}

// asciiNorm is normalizeAt's result for ASCII text, a byte at a time
// without the Unicode tables.
func asciiNorm(text string) (string, bool) { return ASCIIFold(text, false) }

// ASCIIFold folds ASCII text a byte at a time, without the Unicode
// tables: controls but tab and line breaks dropped, those and the space
// runs one space (none at the end; at the start only with lead), letters
// lowered; false for any other text. The probe's two phrase matchers
// (this package's and lint's) fold by it, so that a phrase one finds the
// other cannot miss for a difference in spacing.
func ASCIIFold(text string, lead bool) (string, bool) {
	b := make([]byte, 0, len(text))
	space := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 0x80:
			return "", false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = lead || len(b) > 0
			continue
		case c < 0x20 || c == 0x7f:
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b), true
}

// plainNorm is the common case without a copy: printable ASCII, no
// capital, single spaces inside, none at either end, is its own norm.
func plainNorm(text string) (string, bool) {
	if text == "" || text[0] == ' ' || text[len(text)-1] == ' ' {
		return "", text == ""
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < 0x20 || c >= 0x7f || c >= 'A' && c <= 'Z' || c == ' ' && text[i+1] == ' ' {
			return "", false
		}
	}
	return text, true
}

func normalizeAt(text string, wantAt bool) (string, []int) {
	var b strings.Builder
	b.Grow(len(text))
	var at []int
	if wantAt {
		at = make([]int, 0, len(text))
	}
	space := false
	i := 0
	for _, r := range text {
		here := i
		i++
		switch {
		case charRule(r) != "":
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			if wantAt {
				at = append(at, here)
			}
			space = false
		}
		switch r {
		case '\u2018', '\u2019', '\u02bc':
			r = '\''
		case '\u201c', '\u201d':
			r = '"'
		}
		r = unicode.ToLower(r)
		n := utf8.RuneLen(r)
		if n < 0 {
			n = 3 // utf8.RuneError as written
		}
		b.WriteRune(r)
		if wantAt {
			for k := 0; k < n; k++ {
				at = append(at, here)
			}
		}
	}
	return b.String(), at
}

func (n *norm) at(byteOff int) int {
	if n.runeAt == nil {
		_, n.runeAt = normalizeAt(n.text, true)
	}
	if byteOff < len(n.runeAt) {
		return n.runeAt[byteOff]
	}
	if len(n.runeAt) == 0 {
		return 0
	}
	return n.runeAt[len(n.runeAt)-1] + 1
}

// excerpt is the matched span of the original text, with a little
// context, whitespace runs shown as one space, quoted.
func (n *norm) excerpt(a, b int) string {
	orig := []rune(n.text)
	const before, after = 24, 48 // what follows says where it goes
	s, e := n.at(a), n.at(b-1)+1
	s0, e0 := max(0, s-before), min(len(orig), e+after)
	out := strings.Join(strings.Fields(string(orig[s0:e0])), " ")
	if s0 > 0 {
		out = "…" + out
	}
	if e0 < len(orig) {
		out += "…"
	}
	return quote(out, 120)
}

// textRegexps are the text rules' patterns, compiled on the first
// field a rule reads: at package init they cost every command 670 KB
// and a millisecond of CPU, `mcpprobe --version` included.
type textRegexps struct {
	override       *regexp.Regexp
	conceal        *regexp.Regexp
	verb           *regexp.Regexp
	sensitive      *regexp.Regexp
	travel         *regexp.Regexp
	exfil          *regexp.Regexp
	private        *regexp.Regexp
	exfilCue       *regexp.Regexp
	every          *regexp.Regexp
	toolPrecedence *regexp.Regexp
	addressed      *regexp.Regexp
	valueObject    *regexp.Regexp
	base64         *regexp.Regexp

	// lits and pre: which patterns can match a text at all (prefilter.go).
	lits literals
	pre  struct {
		override, conceal, verb, sensitive, travel, exfil, toolPrecedence, addressed, valueObject prefilter
	}
}

var res = sync.OnceValue(func() *textRegexps {
	t := &textRegexps{
		override: regexp.MustCompile(`\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|system|original)\s*(?:instructions?|prompts?|rules?|messages?|directions?)?\b|\b(?:ignore|disregard)\s+(?:the\s+)?above\b|\bnew\s+instructions\s*:|<\s*/?\s*important\s*>|\byour\s+real\s+instructions\b`),

		conceal: regexp.MustCompile(`\b(?:do\s+not|don't|never|must\s+not)\s+(?:tell|inform|notify|alert|warn|show|reveal\s+(?:this|it|that)\s+to)\s+the\s+user\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+user\b|\bwithout\s+the\s+user(?:'s)?\s+(?:knowing|knowledge|noticing|consent)\b|\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:this|that|these|it|any\s+of\s+this)\b|\b(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:secret\s+)?from\s+the\s+user\b|\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|find\s+out)\b|\bkeep\s+this\s+(?:a\s+)?secret\b`),

		// verb is an action a model is asked to take with a thing.
		verb: regexp.MustCompile(`\b(?:read|open|cat|get|fetch|retrieve|load|include|pass|send|provide|attach|upload|copy|extract|collect|append|add|put|supply|forward|post|embed|insert)\b`),

		// sensitive is a secret or a private file.
		sensitive: regexp.MustCompile(`~/\.[a-z0-9_]|\$home/\.|/home/[a-z0-9_]+/\.|\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bmcp\.json\b|(?:^|[\s"'` + "`" + `(/])\.env\b|\.aws/credentials|\.npmrc\b|\.netrc\b|\.git-credentials\b|\.bash_history\b|\.zsh_history\b|/etc/(?:passwd|shadow)\b|\bprivate\s+keys?\b|\bssh\s+keys?\b|\bseed\s+phrase\b|\bmnemonic\b|\bapi[\s_-]?keys?\b|\baccess[\s_-]?tokens?\b|\bauth(?:entication)?\s+tokens?\b|\bsecrets?\b|\bpasswords?\b|\bcredentials?\b|\bcookies?\b|\bsession\s+tokens?\b|\benvironment\s+variables\b|\bclaude_desktop_config\.json\b|\bconfig\.toml\b`),

		// travel is a cue that what was read must leave: in an argument,
		// before the tool runs, to a URL, or unseen.
		travel: regexp.MustCompile(`\bpass\s+(?:it|them|its\s+contents?|their\s+contents?|the\s+contents?|this|that)\b|\b(?:as|in|into|inside)\s+(?:the\s+)?[` + "`" + `'"]?[a-z_][a-z0-9_]*[` + "`" + `'"]?\s+(?:parameter|argument|field|param)\b|\bas\s+[` + "`" + `'"][a-z_][a-z0-9_]*[` + "`" + `'"]|\bbefore\s+(?:using|calling|invoking|running|you\s+use|you\s+call)\b|\b(?:first|otherwise\s+the\s+tool)\b|https?://|\bsidenote\b`),

		exfil: regexp.MustCompile(`\b(?:send|post|upload|forward|transmit|exfiltrate|submit|report|copy|mirror|beacon)\s+(?:(?:all|the|a|any|every|each|this|your|its|their|full|complete|entire|whole|current|user's|file)\s+){0,3}(conversations?|chat(?:\s+history)?|history|contents?|files?|data|results?|outputs?|responses?|keys?|tokens?|credentials?|secrets?|messages?|environment|env|passwords?|documents?|context|prompts?|arguments?|inputs?|queries|query)\b[^.]{0,80}?\bto\s+(?:https?://|[a-z0-9-]+(?:\.[a-z0-9-]+)+/)`),

		// private are the things a model holds that are the user's, not the
		// tool's input: sending them anywhere is exfiltration.
		private: regexp.MustCompile(`^(?:conversations?|chat(?:\s+history)?|history|keys?|tokens?|credentials?|secrets?|messages?|environment|env|passwords?|documents?|context|prompts?)$`),

		// exfilCue makes sending the tool's own data suspicious: done
		// always, quietly, or besides the tool's job.
		exfilCue: regexp.MustCompile(`\b(?:also|first|silently|quietly|secretly|always|whenever|automatically|in\s+the\s+background|after\s+(?:each|every)|before\s+(?:answering|responding|returning|replying))\b`),

		// every is "all", "every" or "each" as the determiner of what is sent.
		every: regexp.MustCompile(`\b(?:all|every|each|entire|whole)\b`),

		toolPrecedence: regexp.MustCompile(`\b(?:do\s+not|don't|never)\s+(?:use|call|invoke)\s+(?:any\s+)?other\s+tools?\b|\b(?:must|always|should\s+always)\s+(?:use|call)\s+this\s+tool\s+instead\b|\bbefore\s+(?:using|calling)\s+any\s+other\s+tool\b|\balways\s+call\s+this\s+tool\s+(?:first|before)\b|\bcall\s+this\s+tool\s+before\s+(?:any|every|each)\s+other\b|\b(?:whenever|every\s+time|each\s+time)\s+(?:you\s+)?(?:call|use|invoke)\s+(?:the\s+)?[` + "`" + `'"]?[a-z_][a-z0-9_.-]*[` + "`" + `'"]?(?:\s+tool)?\s*,?\s*(?:you\s+must\s+)?(?:first|also|always)\s+(?:call|send|pass|include|read|add|set|change|bcc|cc)\b|\b(?:the\s+)?[` + "`" + `'"]?[a-z_][a-z0-9_.-]*[` + "`" + `'"]?\s+tool\s+(?:is|has\s+been)\s+(?:deprecated|disabled|broken|unsafe|compromised)\b[^.]{0,40}\buse\s+this\b|\b(?:change|modify|redirect|override|replace)\s+the\s+(?:behaviou?r|recipients?|destination|arguments?|parameters?)\s+of\s+(?:the\s+|all\s+|any\s+)?(?:other\s+)?[a-z_` + "`" + `'"]*\s*tools?\b`),

		// addressed marks a sentence addressed to the model, for values.
		addressed: regexp.MustCompile(`\b(?:ignore|disregard|you\s+must|you\s+should|you\s+are|always|never|do\s+not|don't|other\s+tools?|the\s+assistant|the\s+model)\b`),

		// valueObject is what an instruction in a value is about, beyond
		// the value's own job: the user, other tools, files, secrets, URLs,
		// the model's instructions or the user's approval.
		valueObject: regexp.MustCompile(`\b(?:the\s+user|user's|other\s+tools?|this\s+tool|tools?|conversation|files?|secrets?|keys?|tokens?|passwords?|credentials?|instructions?|system\s+prompt|confirm(?:ation)?|approval|permission)\b|https?://|~/`),

		base64: regexp.MustCompile(`[A-Za-z0-9+/_-]{24,}={0,2}`),
	}
	for _, p := range []struct {
		re *regexp.Regexp
		pf *prefilter
	}{
		{t.override, &t.pre.override}, {t.conceal, &t.pre.conceal}, {t.verb, &t.pre.verb},
		{t.sensitive, &t.pre.sensitive}, {t.travel, &t.pre.travel}, {t.exfil, &t.pre.exfil},
		{t.toolPrecedence, &t.pre.toolPrecedence}, {t.addressed, &t.pre.addressed}, {t.valueObject, &t.pre.valueObject},
	} {
		*p.pf = t.lits.add(p.re.String())
	}
	return t
})

// text runs the text rules over one field. One pass over the field's
// text notes which patterns' literals it holds; a pattern runs only
// where it can match (prefilter.go).
func text(f Field) []Match {
	re := res()
	if f.Kind == KindName || f.Kind == KindTitle && len(f.Text) < 8 {
		return nil
	}
	var out []Match
	if f.Kind == KindParamName {
		if loc, why := nameInstruction(f.Text); why != "" {
			out = append(out, Match{Rule: NameInstruction, Path: f.Path, At: loc, Matched: why})
		}
		return out
	}
	n := normalize(f.Text)
	add := func(rule string, loc []int, what string) {
		if loc == nil {
			return
		}
		if what == "" {
			what = n.excerpt(loc[0], loc[1])
		}
		out = append(out, Match{Rule: rule, Path: f.Path, At: n.at(loc[0]), Matched: what})
	}
	scanned := re.lits.scan(n.s)
	found := &scanned
	pre := &re.pre
	if pre.override.may(found) {
		add(OverridePhrase, re.override.FindStringIndex(n.s), "")
	}
	if pre.conceal.may(found) {
		add(Concealment, re.conceal.FindStringIndex(n.s), "")
	}
	if pre.travel.may(found) && pre.verb.may(found) && pre.sensitive.may(found) {
		add(SecretRequest, secretRequest(n.s), "")
	}
	if pre.exfil.may(found) {
		add(ExfilURL, exfil(n.s), "")
	}
	if pre.toolPrecedence.may(found) {
		add(ToolPrecedence, re.toolPrecedence.FindStringIndex(n.s), "")
	}
	if f.Kind == KindValue && pre.valueObject.may(found) && pre.addressed.may(found) {
		if words := len(strings.Fields(n.s)); words >= 6 && re.valueObject.MatchString(n.s) {
			add(ValueInstruction, re.addressed.FindStringIndex(n.s), "")
		}
	}
	if loc, decoded := encoded(f.Text); loc != nil {
		out = append(out, Match{Rule: EncodedText, Path: f.Path, At: utf8.RuneCountInString(f.Text[:loc[0]]),
			Matched: quote(f.Text[loc[0]:loc[1]], 40) + " decodes to " + quote(decoded, 100)})
	}
	return out
}

// exfil is an imperative to send something to a URL: the user's things
// (the conversation, keys, messages) at once; the tool's own data (a
// file, results, the input) only when it is all of it, or with a cue
// near it (150 bytes either side) that it is done always, quietly or
// besides the tool's job.
func exfil(s string) []int {
	re := res()
	m := re.exfil.FindStringSubmatchIndex(s)
	if m == nil {
		return nil
	}
	near := s[max(0, m[0]-150):min(len(s), m[1]+150)]
	if re.private.MatchString(s[m[2]:m[3]]) || re.every.MatchString(s[m[0]:m[2]]) || re.exfilCue.MatchString(near) || re.conceal.MatchString(near) {
		return m[:2]
	}
	return nil
}

// secretRequest is an action verb, followed in its sentence (within 100
// bytes) by a sensitive object, with a cue that the thing must travel
// near it (within 150 bytes either side): the span is from the verb to
// the object.
func secretRequest(s string) []int {
	re := res()
	if !re.travel.MatchString(s) {
		return nil
	}
	for _, v := range re.verb.FindAllStringIndex(s, -1) {
		end := min(len(s), v[1]+100)
		window := s[v[1]:end]
		if dot := strings.Index(window, ". "); dot >= 0 {
			window = window[:dot]
		}
		o := re.sensitive.FindStringIndex(window)
		if o == nil {
			continue
		}
		span := []int{v[0], v[1] + o[1]}
		if re.travel.MatchString(s[max(0, span[0]-150):min(len(s), span[1]+150)]) {
			return span
		}
	}
	return nil
}

// nameWords are words that make a long parameter name an instruction.
var nameWords = map[string]bool{
	"ignore": true, "instruction": true, "instructions": true, "must": true, "always": true, "never": true,
	"before": true, "secret": true, "secrets": true, "password": true, "ssh": true, "credentials": true,
	"tell": true, "reveal": true, "mention": true, "prompt": true, "assistant": true,
}

// nameInstruction: a parameter name of spaces and several words, or of
// five words and more with one of nameWords.
func nameInstruction(name string) (int, string) {
	words := SplitWords(name)
	if len(strings.Fields(name)) >= 3 {
		return 0, quote(name, 100) + " is a sentence of " + strconv.Itoa(len(words)) + " words, not a name"
	}
	if len(words) >= 5 {
		for _, w := range words {
			if nameWords[w] {
				return 0, quote(name, 100) + " is " + strconv.Itoa(len(words)) + " words with " + quote(w, 20) + " among them"
			}
		}
	}
	return 0, ""
}

// SplitWords splits an identifier into lower-case words: separators
// _ - . space, and camelCase.
func SplitWords(s string) []string {
	var words []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && len(cur) > 0:
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// encoded finds a base64 run that decodes to readable text of four words
// or more; it returns the run's byte span and the text.
func encoded(s string) ([]int, string) {
	if !hasRun(s, 24) && !noPrefilter {
		return nil, ""
	}
	re := res()
	for _, loc := range re.base64.FindAllStringIndex(s, 20) {
		run := s[loc[0]:loc[1]]
		var dec []byte
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if d, err := enc.DecodeString(run); err == nil {
				dec = d
				break
			}
		}
		if len(dec) < 16 || !utf8.Valid(dec) {
			continue
		}
		t := string(dec)
		printable, letters := 0, 0
		for _, r := range t {
			if unicode.IsPrint(r) || r == '\n' {
				printable++
			}
			if unicode.IsLetter(r) {
				letters++
			}
		}
		total := utf8.RuneCountInString(t)
		if printable*10 < total*9 || letters*2 < total || len(strings.Fields(t)) < 4 {
			continue
		}
		return loc, t
	}
	return nil, ""
}

// hasRun reports whether s holds n bytes in a row that the base64
// pattern's run is made of: without one it cannot match.
func hasRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
