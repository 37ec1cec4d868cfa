// Package hidden finds content a tool definition hides from the person
// who installs the server but hands to the model: invisible and
// bidirectional code points, terminal escape sequences, instructions
// addressed to the model (in descriptions, defaults, enum values and
// parameter names), text hidden in base64, and a title that says
// something else than the description.
//
// Every rule is offline and deterministic, and built to stay quiet: an
// imperative alone is never a finding; a rule about instructions needs an
// imperative, a sensitive object (a secret, a dotfile, another tool, a
// URL to send to) and a cue of concealment, exfiltration or precedence
// together. Each match says what it matched and where (a path into the
// definition and a character offset), quoting the words or naming the
// code points.
package hidden

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// Rule is one rule of the lint.
type Rule struct {
	Name     string
	Code     findings.Code
	Severity findings.Severity
	// What says in one line what the rule finds.
	What string
}

// The rule names.
const (
	TagSmuggling     = "tag-smuggling"
	ZeroWidth        = "zero-width"
	BidiControl      = "bidi-control"
	EscapeSequence   = "escape-sequence"
	ControlChar      = "control-char"
	OverridePhrase   = "override-phrase"
	Concealment      = "concealment"
	SecretRequest    = "secret-request"
	ExfilURL         = "exfil-url"
	ToolPrecedence   = "tool-precedence"
	ValueInstruction = "value-instruction"
	NameInstruction  = "name-instruction"
	EncodedText      = "encoded-text"
	TitleMismatch    = "title-mismatch"
)

// Rules are every rule, in the order a tool's matches are given.
var Rules = []Rule{
	{TagSmuggling, findings.HiddenChars, findings.Error, "Unicode tag characters (U+E0000–U+E007F): invisible text a model reads as letters; the match spells it"},
	{ZeroWidth, findings.HiddenChars, findings.Error, "zero-width characters (U+200B ZERO WIDTH SPACE, U+200C ZWNJ, U+200D ZWJ, U+2060 WORD JOINER, U+FEFF ZERO WIDTH NO-BREAK SPACE) outside an emoji sequence or a script that needs them"},
	{BidiControl, findings.HiddenChars, findings.Error, "bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks outside right-to-left text: text shown in another order than a model reads it"},
	{EscapeSequence, findings.HiddenChars, findings.Error, "terminal escape sequences (ESC [ CSI, ESC ] OSC, C1 CSI U+009B, OSC U+009D): what a terminal shows differs from what a model reads"},
	{ControlChar, findings.HiddenChars, findings.Error, "other C0 and C1 control characters (besides tab, newline, carriage return)"},
	{OverridePhrase, findings.Injection, findings.Error, "text telling the model to drop its instructions: \"ignore previous instructions\", \"disregard the above\", \"new instructions\", `<IMPORTANT>` tags"},
	{Concealment, findings.Injection, findings.Error, "text telling the model to keep something from the user: \"do not tell the user\", \"without telling the user\", \"do not mention this\""},
	{SecretRequest, findings.ModelInstruction, findings.Error, "an imperative to read, pass or send a secret or a private file (~/.ssh, id_rsa, mcp.json, .env, a dotfile, credentials, tokens, keys), with a cue that it must travel: pass it as a parameter, before using the tool, or send it"},
	{ExfilURL, findings.ModelInstruction, findings.Error, "an imperative to send, post or upload data (the conversation, a file, results, keys) to a URL"},
	{ToolPrecedence, findings.ModelInstruction, findings.Error, "text about other tools that takes their place or changes their behaviour: \"instead of the X tool\", \"do not use any other tool\", \"whenever you call X, first …\""},
	{ValueInstruction, findings.ModelInstruction, findings.Error, "a default, enum, const or example value that is a sentence addressed to the model (an imperative aimed at it), not a value"},
	{NameInstruction, findings.ModelInstruction, findings.Error, "a parameter name that is a sentence: five words or more, or spaces, with an imperative or a sensitive word in it"},
	{EncodedText, findings.ModelInstruction, findings.Error, "a base64 run that decodes to readable words with an instruction cue: text a reviewer cannot read and a model can"},
	{TitleMismatch, findings.TitleMismatch, findings.Warning, "a title (what a host shows the user) that shares no word with the tool's name and description (what the model gets), while the description does something the title does not say"},
}

// RuleByName finds a rule.
func RuleByName(name string) (Rule, bool) {
	for _, r := range Rules {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}

// Kind is what a field of a definition is.
type Kind int

// The kinds of field.
const (
	KindName        Kind = iota // the tool's name
	KindTitle                   // title, annotations.title
	KindDescription             // the tool's or a property's description
	KindParamName               // a property name
	KindValue                   // default, enum, const, examples
)

// Field is one string of a definition, and where it sits.
type Field struct {
	Path string // "description", "inputSchema.properties.path.default", …
	Kind Kind
	Text string
}

// Match is one rule matched in one field.
type Match struct {
	Rule string
	Path string
	At   int // the rune offset of the match in the field
	// Matched is what matched, as a person reads it: quoted words, or the
	// code points named.
	Matched string
}

// Message is the match in words, for a finding.
func (m Match) Message() string {
	r, _ := RuleByName(m.Rule)
	return fmt.Sprintf("%s at char %d: %s (rule %s: %s)", m.Path, m.At, m.Matched, m.Rule, firstClause(r.What))
}

func firstClause(s string) string {
	if i := strings.Index(s, ":"); i > 0 {
		return s[:i]
	}
	return s
}

// Bounds on what a server controls.
const (
	maxFields    = 2000
	maxFieldText = 64 << 10
	maxDepth     = 32
)

// Fields lists the strings of a tool definition the model reads: name,
// titles, description, and through the input schema (its properties,
// items, additionalProperties, anyOf/oneOf/allOf and $defs/definitions,
// referenced or not: the model gets them all) each property's name,
// description, default, enum values, const and examples.
func Fields(tool gjson.Result) []Field {
	var fs []Field
	add := func(path string, k Kind, v gjson.Result) {
		if v.Type == gjson.String && len(fs) < maxFields {
			s := v.String()
			if len(s) > maxFieldText {
				s = s[:maxFieldText]
			}
			fs = append(fs, Field{path, k, s})
		}
	}
	// One pass over each object for the members the walk reads (the
	// first of each, as a lookup finds it), not a lookup per member: the
	// lookups were most of the scan's cost on a plain tool.
	var top struct{ name, title, annotations, description, inputSchema gjson.Result }
	members(tool, func(k string, v gjson.Result) {
		switch k {
		case "name":
			setOnce(&top.name, v)
		case "title":
			setOnce(&top.title, v)
		case "annotations":
			setOnce(&top.annotations, v)
		case "description":
			setOnce(&top.description, v)
		case "inputSchema":
			setOnce(&top.inputSchema, v)
		}
	})
	add("name", KindName, top.name)
	add("title", KindTitle, top.title)
	if top.annotations.IsObject() {
		add("annotations.title", KindTitle, top.annotations.Get("title"))
	}
	add("description", KindDescription, top.description)
	var walk func(path string, s gjson.Result, depth int)
	walk = func(path string, s gjson.Result, depth int) {
		if !s.IsObject() || depth > maxDepth || len(fs) >= maxFields {
			return
		}
		var m struct {
			description, def, cnst, enum, examples, properties, items, additional,
			defs, definitions, anyOf, oneOf, allOf gjson.Result
		}
		members(s, func(k string, v gjson.Result) {
			switch k {
			case "description":
				setOnce(&m.description, v)
			case "default":
				setOnce(&m.def, v)
			case "const":
				setOnce(&m.cnst, v)
			case "enum":
				setOnce(&m.enum, v)
			case "examples":
				setOnce(&m.examples, v)
			case "properties":
				setOnce(&m.properties, v)
			case "items":
				setOnce(&m.items, v)
			case "additionalProperties":
				setOnce(&m.additional, v)
			case "$defs":
				setOnce(&m.defs, v)
			case "definitions":
				setOnce(&m.definitions, v)
			case "anyOf":
				setOnce(&m.anyOf, v)
			case "oneOf":
				setOnce(&m.oneOf, v)
			case "allOf":
				setOnce(&m.allOf, v)
			}
		})
		if depth > 0 {
			add(path+".description", KindDescription, m.description)
		}
		add(path+".default", KindValue, m.def)
		add(path+".const", KindValue, m.cnst)
		for _, a := range []struct {
			key string
			v   gjson.Result
		}{{"enum", m.enum}, {"examples", m.examples}} {
			if a.v.IsArray() {
				for i, v := range a.v.Array() {
					add(fmt.Sprintf("%s.%s[%d]", path, a.key, i), KindValue, v)
				}
			}
		}
		m.properties.ForEach(func(k, v gjson.Result) bool {
			p := path + ".properties" + seg(k.String())
			fs = append(fs, Field{p, KindParamName, k.String()})
			walk(p, v, depth+1)
			return len(fs) < maxFields
		})
		walk(path+".items", m.items, depth+1)
		walk(path+".additionalProperties", m.additional, depth+1)
		for _, d := range []struct {
			key string
			v   gjson.Result
		}{{"$defs", m.defs}, {"definitions", m.definitions}} {
			d.v.ForEach(func(k, v gjson.Result) bool {
				walk(path+"."+d.key+seg(k.String()), v, depth+1)
				return len(fs) < maxFields
			})
		}
		for _, a := range []struct {
			key string
			v   gjson.Result
		}{{"anyOf", m.anyOf}, {"oneOf", m.oneOf}, {"allOf", m.allOf}} {
			if a.v.IsArray() {
				for i, v := range a.v.Array() {
					walk(fmt.Sprintf("%s.%s[%d]", path, a.key, i), v, depth+1)
				}
			}
		}
	}
	walk("inputSchema", top.inputSchema, 0)
	return fs
}

// members calls f with each member of an object, in order.
func members(obj gjson.Result, f func(k string, v gjson.Result)) {
	if !obj.IsObject() {
		return
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		f(k.String(), v)
		return true
	})
}

// setOnce keeps the first of a key's members, as a lookup does.
func setOnce(dst *gjson.Result, v gjson.Result) {
	if !dst.Exists() {
		*dst = v
	}
}

func seg(k string) string {
	plain := k != "" && len(k) <= 60
	for _, r := range k {
		if !(r == '_' || r == '-' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// Scan runs every rule over one tool definition. Matches come in field
// order, and in rule order within a field; a rule matches a field once
// (its first place), except the character rules, which say every place.
func Scan(tool gjson.Result) []Match {
	fs := Fields(tool)
	var out []Match
	for _, f := range fs {
		out = append(out, chars(f)...)
		out = append(out, text(f)...)
	}
	if m, ok := titleMismatch(tool, fs); ok {
		out = append(out, m)
	}
	return out
}

// ScanText runs the rules that read text over one string that is not a
// tool definition (server instructions, a prompt's description).
func ScanText(path, s string) []Match {
	f := Field{Path: path, Kind: KindDescription, Text: s}
	return append(chars(f), text(f)...)
}

// Sort orders matches by path, then offset, then rule: a stable order
// for goldens that do not care about the field walk.
func Sort(ms []Match) {
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Path != ms[j].Path {
			return ms[i].Path < ms[j].Path
		}
		if ms[i].At != ms[j].At {
			return ms[i].At < ms[j].At
		}
		return ms[i].Rule < ms[j].Rule
	})
}

// quote quotes server text, cut to at most n runes.
func quote(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		k := 0
		for i := range s {
			if k == n-1 {
				s = s[:i] + "…"
				break
			}
			k++
		}
	}
	return strconv.Quote(s)
}
