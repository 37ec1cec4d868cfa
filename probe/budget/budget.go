// Package budget works out what each AI host delivers to the model of what
// a server sends: where descriptions and instructions are cut, which
// schema parts are dropped, and what is lost. The hosts' rules are data
// it reads from probe/hosts, never code here.
package budget

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/tidwall/gjson"
)

// Cut says where a text was cut.
type Cut struct {
	At     int // in the host's unit: the delivered length
	Line   int // 1-based line of the text the cut falls on
	Column int // 1-based, in code points, of the first character lost
	// SplitsWord: the characters either side of the cut are both letters
	// or digits.
	SplitsWord bool
	// SplitsChar: the cut falls inside one character: between the halves
	// of a UTF-16 surrogate pair, or inside a UTF-8 sequence.
	SplitsChar bool
}

// Text is what a host delivers of one text.
type Text struct {
	// Mode is "whole", "cut", "not_delivered", "prepended" or "missing".
	Mode            string
	Unit            string
	Len             int // in Unit
	Bytes           int // UTF-8 bytes
	Runes           int // code points
	Delivered, Lost int
	LostPct         float64
	Deferred        bool
	Cut             *Cut
	Head, Tail      string // what is delivered and what is lost
	Marker          string // appended by the host at the cut
	// Omits is what the cut hides that the text or the schema marks as
	// important (LostAfterCut); nil when nothing is cut.
	Omits []Lost
}

// Schema is what a host does to one input schema.
type Schema struct {
	Rule          string // as the host's profile says
	Serialized    int    // compact JSON size in Unit
	Unit          string
	Over          int
	Dropped       bool // every property description is dropped
	Unknown       bool // the host drops on large schemas, at a threshold nobody measured
	Descriptions  int  // property descriptions in the schema
	DroppedChars  int  // code points of the descriptions dropped
	DroppedSchema []byte
}

// Tool is one tool on one host.
type Tool struct {
	Name        string
	Description Text
	Schema      Schema
	// OutputSchema is "delivered", "not_delivered", "sometimes" or "" (none).
	OutputSchema string
}

// AsSent reports whether the host delivers the tool as the server sent
// it: the description whole (deferred or not), the input schema not
// dropped nor at risk of a drop at a threshold nobody measured, and any
// output schema delivered. The JSON section lists under each host only
// the tools for which this is false, unless asked for every one.
func (t Tool) AsSent() bool {
	return t.Description.Mode == "whole" && !t.Schema.Dropped &&
		!(t.Schema.Unknown && t.Schema.Descriptions > 0) &&
		(t.OutputSchema == "" || t.OutputSchema == "delivered")
}

// HostResult is one host's view of the server.
type HostResult struct {
	Host         hosts.Host
	Tools        []Tool
	Instructions Text
}

// Delivery is every host's view, plus what no host of the set delivers.
type Delivery struct {
	Hosts []HostResult
	// OutputLost lists tools whose output schema carries descriptions that
	// no host of the set delivers.
	OutputLost []OutputLoss
}

// OutputLoss is output-schema text no host delivers.
type OutputLoss struct {
	Tool         string
	Descriptions int
	Chars        int
}

// Compute works out every host's view of the capture.
func Compute(c *probe.Capture, hs []hosts.Host) Delivery {
	var r Delivery
	// Each tool is read once, not once per host: with six hosts and
	// 10,000 tools the lookups and unescaping were a third of budget.
	parsed := make([]parsedTool, len(c.Tools.Items))
	for i, raw := range c.Tools.Items {
		parsed[i] = parseTool(raw)
	}
	for _, h := range hs {
		hr := HostResult{Host: h}
		if len(parsed) > 0 {
			hr.Tools = make([]Tool, 0, len(parsed))
		}
		for i := range parsed {
			hr.Tools = append(hr.Tools, tool(&parsed[i], &h))
		}
		hr.Instructions = instructions(c.Instructions, h.Instructions)
		r.Hosts = append(r.Hosts, hr)
	}
	anyDelivers := false
	for _, h := range hs {
		if h.OutputSchema == "delivered" || h.OutputSchema == "sometimes" {
			anyDelivers = true
		}
	}
	if !anyDelivers {
		for _, raw := range c.Tools.Items {
			v := gjson.ParseBytes(raw)
			if os := v.Get("outputSchema"); os.Exists() {
				n, chars := countDescriptions(os, false)
				if n > 0 {
					r.OutputLost = append(r.OutputLost, OutputLoss{Tool: v.Get("name").String(), Descriptions: n, Chars: chars})
				}
			}
		}
	}
	return r
}

// parsedTool is what every host's rules read of one tool.
type parsedTool struct {
	name, desc      string
	hasDesc, hasOut bool
	input           gjson.Result
	facts           *schemaFacts // the input schema's, once one host asked
}

// schemaFacts are what every host's schema rule reads of one input
// schema, worked out once per tool: serializing it was done once per
// host, half of budget's CPU.
type schemaFacts struct {
	walkable     bool
	compact      string // as a host sends it (Serialize), or json.Compact's when too deep to walk
	descriptions int
	chars        int
}

func (p *parsedTool) schemaFacts() *schemaFacts {
	if p.facts != nil {
		return p.facts
	}
	v := p.input
	f := &schemaFacts{walkable: probe.Walkable([]byte(v.Raw))}
	if !f.walkable {
		// Too deep to walk in bounded time (a deep-nesting finding says
		// so): its size is measured, its descriptions are not.
		var b bytes.Buffer
		_ = json.Compact(&b, []byte(v.Raw))
		f.compact = b.String()
	} else {
		f.descriptions, f.chars = countDescriptions(v, true)
		f.compact = string(Serialize([]byte(v.Raw)))
	}
	p.facts = f
	return f
}

func parseTool(raw []byte) parsedTool {
	r := gjson.GetManyBytes(raw, "name", "description", "inputSchema", "outputSchema")
	return parsedTool{name: r[0].String(), desc: r[1].String(), hasDesc: r[1].Exists(), input: r[2], hasOut: r[3].Exists()}
}

// tool takes the host by pointer: a Host is large, and it was copied for
// each of a host's tools, a tenth of budget's CPU at 10,000 tools.
func tool(p *parsedTool, h *hosts.Host) Tool {
	t := Tool{Name: p.name}
	if p.hasDesc {
		t.Description = Deliver(p.desc, h.Description)
		t.Description.Omits = LostAfterCut(t.Description, p.input)
	} else {
		t.Description = Text{Mode: "missing", Unit: unitOf(h.Description)}
	}
	t.Description.Deferred = h.Description.Deferred
	t.Schema = schema(p, h.InputSchema)
	if p.hasOut {
		t.OutputSchema = h.OutputSchema
	}
	return t
}

func instructions(in *string, r hosts.Rule) Text {
	if in == nil {
		return Text{Mode: "missing", Unit: unitOf(r)}
	}
	t := Deliver(*in, r)
	t.Omits = LostAfterCut(t, gjson.Result{})
	switch r.Rule {
	case "not_delivered":
		t.Mode, t.Delivered, t.Lost, t.Head, t.Tail = "not_delivered", 0, t.Len, "", *in
		if t.Len > 0 {
			t.LostPct = 100
		}
	case "prepended":
		t.Mode = "prepended"
	}
	return t
}

func unitOf(r hosts.Rule) string {
	if r.Unit == "" {
		return "utf16"
	}
	return r.Unit
}

// Length measures s in a unit.
func Length(s, unit string) int {
	switch unit {
	case "byte":
		return len(s)
	case "codepoint":
		return utf8.RuneCountInString(s)
	}
	return wire.UTF16Len(s)
}

// Deliver applies a host's rule to a text.
func Deliver(s string, r hosts.Rule) Text {
	unit := unitOf(r)
	t := Text{Mode: "whole", Unit: unit, Len: Length(s, unit), Bytes: len(s), Runes: utf8.RuneCountInString(s), Head: s}
	t.Delivered = t.Len
	if r.Rule != "cut" || t.Len <= r.Limit {
		return t
	}
	head, splits := cutAt(s, r.Limit, unit, r.Surrogate == "whole")
	src := headSource(s, r.Limit, unit)
	t.Mode, t.Marker = "cut", r.Marker
	t.Head, t.Tail = head, s[len(src):]
	t.Delivered = r.Limit
	if !splits {
		// A host that keeps surrogate pairs whole delivers one unit
		// fewer when the limit falls inside one.
		t.Delivered = Length(src, unit)
	}
	t.Lost = t.Len - t.Delivered
	t.LostPct = 100 * float64(t.Lost) / float64(t.Len)
	line := 1 + bytes.Count([]byte(src), []byte("\n"))
	lastNL := bytes.LastIndexByte([]byte(src), '\n')
	col := utf8.RuneCountInString(src[lastNL+1:]) + 1
	before, _ := utf8.DecodeLastRuneInString(src)
	after, _ := utf8.DecodeRuneInString(s[len(src):])
	t.Cut = &Cut{At: t.Delivered, Line: line, Column: col, SplitsChar: splits,
		SplitsWord: splits || (isWordRune(before) && isWordRune(after))}
	return t
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// headSource is the longest prefix of s made of whole characters that
// fits in limit units.
func headSource(s string, limit int, unit string) string {
	n := 0
	for i, r := range s {
		w := 1
		switch unit {
		case "byte":
			w = utf8.RuneLen(r)
		case "utf16":
			w = utf16.RuneLen(r)
		}
		if n+w > limit {
			return s[:i]
		}
		n += w
	}
	return s
}

// cutAt returns exactly what the host keeps: the first limit units. When
// that splits a character, the host keeps half of it, which reaches the
// model as U+FFFD (or a lone surrogate); splits says so. A host that
// keeps surrogate pairs whole (wholePairs, utf16 only) drops the half
// instead: it keeps the whole characters before the cut.
func cutAt(s string, limit int, unit string, wholePairs bool) (string, bool) {
	src := headSource(s, limit, unit)
	if Length(src, unit) == limit || (wholePairs && unit == "utf16") {
		return src, false
	}
	return src + "\uFFFD", true
}

// schema applies a host's input-schema rule.
func schema(p *parsedTool, r hosts.SchemaRule) Schema {
	v := p.input
	s := Schema{Rule: r.Rule, Over: r.Over, Unit: r.Unit}
	if !v.Exists() {
		return s
	}
	if s.Unit == "" {
		s.Unit = "byte"
	}
	f := p.schemaFacts()
	s.Serialized = Length(f.compact, s.Unit)
	if !f.walkable {
		return s
	}
	s.Descriptions, s.DroppedChars = f.descriptions, f.chars
	switch {
	case r.Rule != "drop_property_descriptions":
		s.DroppedChars = 0
	case r.Over == 0:
		s.Unknown = true
		s.DroppedChars = 0
	case s.Serialized > r.Over && s.Descriptions > 0:
		s.Dropped = true
		s.DroppedSchema = dropDescriptions(v)
	default:
		s.DroppedChars = 0
	}
	return s
}

// Serialize renders a schema as a host's JSON library would send it:
// compact, no HTML escaping, numbers as written.
func Serialize(raw []byte) []byte {
	if alreadySerialized(raw) {
		return raw
	}
	return reencode(raw)
}

// reencode is Serialize's slow path: decoded and encoded again.
func reencode(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.Bytes()
		}
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// alreadySerialized reports whether Serialize would give raw back as it
// is, without decoding and encoding it (most of budget's CPU per tool
// past the lint): compact JSON, the keys of every object in ascending
// byte order (so none twice), every string printable ASCII without an
// escape, every number as JSON writes one. Anything else, or past 64
// levels, is left to the decoder.
func alreadySerialized(raw []byte) bool {
	p := canonical{b: raw}
	return p.value(0) && p.i == len(raw)
}

type canonical struct {
	b []byte
	i int
}

func (p *canonical) at(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *canonical) value(depth int) bool {
	if depth > 64 || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		if p.at('}') {
			return true
		}
		var prev []byte
		for k := 0; ; k++ {
			start := p.i
			if !p.str() {
				return false
			}
			key := p.b[start+1 : p.i-1] // without an escape, as decoded
			if k > 0 && bytes.Compare(key, prev) <= 0 {
				return false
			}
			prev = key
			if !p.at(':') || !p.value(depth+1) {
				return false
			}
			if p.at('}') {
				return true
			}
			if !p.at(',') {
				return false
			}
		}
	case c == '[':
		p.i++
		if p.at(']') {
			return true
		}
		for {
			if !p.value(depth + 1) {
				return false
			}
			if p.at(']') {
				return true
			}
			if !p.at(',') {
				return false
			}
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.num()
	}
	return false
}

// str: a string of printable ASCII without a backslash, whose bytes
// between the quotes are the decoded string's.
func (p *canonical) str() bool {
	if !p.at('"') {
		return false
	}
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return true
		case c < 0x20 || c > 0x7e || c == '\\':
			return false
		}
	}
	return false
}

func (p *canonical) lit(s string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

// num: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *canonical) num() bool {
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	p.at('-')
	if p.at('0') {
		if p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			return false
		}
	} else if digits() == 0 {
		return false
	}
	if p.at('.') && digits() == 0 {
		return false
	}
	if p.at('e') || p.at('E') {
		if !p.at('+') {
			p.at('-')
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// countDescriptions counts the "description" strings of properties (and,
// with propsOnly unset, every description) in a schema, and their length
// in code points.
func countDescriptions(v gjson.Result, propsOnly bool) (n, chars int) {
	var walk func(v gjson.Result, isProp bool)
	walk = func(v gjson.Result, isProp bool) {
		if !v.IsObject() {
			if v.IsArray() {
				v.ForEach(func(_, e gjson.Result) bool { walk(e, false); return true })
			}
			return
		}
		v.ForEach(func(k, val gjson.Result) bool {
			switch key := k.String(); {
			case key == "description" && val.Type == gjson.String && (isProp || !propsOnly):
				n++
				chars += utf8.RuneCountInString(val.String())
			case key == "properties" && val.IsObject():
				val.ForEach(func(_, p gjson.Result) bool { walk(p, true); return true })
			default:
				walk(val, false)
			}
			return true
		})
	}
	walk(v, false)
	return n, chars
}

// dropDescriptions returns the schema without its property descriptions,
// as Codex sends it past its threshold.
func dropDescriptions(v gjson.Result) []byte {
	dec := json.NewDecoder(bytes.NewReader([]byte(v.Raw)))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return []byte(v.Raw)
	}
	var strip func(x any, isProp bool)
	strip = func(x any, isProp bool) {
		switch t := x.(type) {
		case map[string]any:
			if isProp {
				delete(t, "description")
			}
			for k, val := range t {
				if k == "properties" {
					if props, ok := val.(map[string]any); ok {
						for _, p := range props {
							strip(p, true)
						}
						continue
					}
				}
				strip(val, false)
			}
		case []any:
			for _, e := range t {
				strip(e, false)
			}
		}
	}
	strip(doc, false)
	out, _ := json.MarshalIndent(doc, "", "  ")
	return out
}

// Describe is a short phrase for a table cell: "whole", "63% (cut at
// 2,048)", "not delivered".
func (t Text) Describe() string {
	switch t.Mode {
	case "missing":
		return "none"
	case "not_delivered":
		return "not delivered"
	case "prepended":
		return "prepended to each tool"
	case "cut":
		return fmt.Sprintf("%s (cut at %s)", Pct(100-t.LostPct), num(t.Cut.At))
	}
	return "whole"
}

// Pct rounds a percentage for people without rounding a loss away:
// 99.95% delivered is ">99%", not "100%".
func Pct(p float64) string {
	switch {
	case p > 0 && p < 1:
		return "<1%"
	case p > 99 && p < 100:
		return ">99%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

func num(n int) string { return probe.Comma(int64(n)) }
