package result

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// Bounds on what a server controls. A result is already bounded by the
// session (--max-bytes); these bound the work done on it.
const (
	// MaxBlocks is how many content blocks are read one by one; past it
	// they are counted only.
	MaxBlocks = 10_000
	// MaxFindings is how many findings of one code a result gives before
	// the rest are summed up in one.
	MaxFindings = 20
	// MaxViolations is how many schema violations are kept.
	MaxViolations = 50
)

// structuredClauseFrom is the first version with structured tool output
// (server/tools, "Structured Content" and "Output Schema"). Versions are
// dates, so they compare as strings.
const structuredClauseFrom = "2025-06-18"

// judged reports whether v has the structured-output clauses. An empty or
// unknown-shaped version is not judged: no baseline, no verdict.
func judged(v string) bool {
	return len(v) == len("2025-06-18") && v[4] == '-' && v[7] == '-' && v >= structuredClauseFrom
}

// anyStructured reports whether v lets structuredContent be any JSON
// value rather than an object (2026-07-28, server/tools).
func anyStructured(v string) bool { return probe.IsModern(v) }

type analyser struct {
	in    Input
	a     *Analysis
	count map[findings.Code]int
}

func analyse(in Input) (a Analysis) {
	a = Analysis{Kind: in.Kind, Bytes: len(in.Result), Blocks: []Block{}}
	z := analyser{in: in, a: &a, count: map[findings.Code]int{}}
	// a is the named result, so the summary lands in what is returned.
	defer z.summarise()
	if !probe.Walkable(in.Result) {
		z.add(findings.New(findings.ResultMalformed, "the result nests deeper than %d levels or costs too much to walk: not analysed", probe.MaxDepth))
		a.Unreadable = true
		return a
	}
	r := gjson.ParseBytes(in.Result)
	if !gjson.ValidBytes(in.Result) || !r.IsObject() {
		z.add(findings.New(findings.ResultMalformed, "the result is not a JSON object"))
		a.Unreadable = true
		return a
	}
	if m := r.Get("_meta"); m.Exists() {
		a.Meta = []byte(m.Raw)
	}
	a.ResultType = r.Get("resultType").String()
	if a.ResultType == "" && r.Get("task").IsObject() && !r.Get("content").Exists() {
		a.ResultType = "task"
	}
	if a.ResultType != "" && a.ResultType != "complete" {
		// Not the call's result yet: it asks for input, or stands for a
		// task whose result comes later.
		return a
	}
	switch in.Kind {
	case KindResource:
		z.list(r, "contents", z.resourceContents)
	case KindPrompt:
		z.list(r, "messages", func(i int, v gjson.Result) {
			c := v.Get("content")
			if c.IsArray() {
				// Some servers send an array where the schema has one block:
				// read each, so that sizes add up.
				c.ForEach(func(_, b gjson.Result) bool {
					z.block(len(a.Blocks), b)
					return len(a.Blocks) < MaxBlocks
				})
				return
			}
			if !c.IsObject() {
				z.add(findings.New(findings.ResultMalformed, "prompt message %d has no content block", i))
				return
			}
			z.block(len(a.Blocks), c)
		})
	default:
		a.IsError = r.Get("isError").Type == gjson.True
		z.list(r, "content", z.block)
		z.structured(r)
	}
	return a
}

// list reads the array at key, one item at a time, up to MaxBlocks.
func (z *analyser) list(r gjson.Result, key string, each func(int, gjson.Result)) {
	v := r.Get(key)
	if !v.IsArray() {
		what := "no"
		if v.Exists() {
			what = "a non-array"
		}
		z.add(findings.New(findings.ResultMalformed, "the result has %s `%s` array", what, key))
		return
	}
	i := 0
	v.ForEach(func(_, item gjson.Result) bool {
		if i >= MaxBlocks {
			return false
		}
		each(i, item)
		i++
		return true
	})
}

func (z *analyser) add(f findings.Finding) {
	z.count[f.Code]++
	if z.count[f.Code] <= MaxFindings {
		z.a.Findings = append(z.a.Findings, f)
	}
}

// summarise says how many findings of a code were left out.
func (z *analyser) summarise() {
	for c, n := range z.count {
		if n > MaxFindings {
			z.a.Findings = append(z.a.Findings, findings.New(c, "%d more like these", n-MaxFindings))
		}
	}
	findings.Sort(z.a.Findings)
}

// block reads one content block of a tool result or prompt message.
func (z *analyser) block(i int, v gjson.Result) {
	b := Block{Index: i, Type: v.Get("type").String(), MIMEType: v.Get("mimeType").String()}
	defer func() { z.a.Blocks = append(z.a.Blocks, b) }()
	if !v.IsObject() || b.Type == "" {
		z.add(findings.New(findings.ResultMalformed, "block %d has no `type`", i))
		return
	}
	switch b.Type {
	case "text":
		t := v.Get("text")
		if t.Type != gjson.String {
			z.add(findings.New(findings.ResultMalformed, "text block %d has no `text` string", i))
			return
		}
		b.Bytes, b.Chars = len(t.Str), utf8.RuneCountInString(t.Str)
	case "image", "audio":
		z.binary(&b, v.Get("data"), "data")
	case "resource_link":
		b.URI = v.Get("uri").String()
	case "resource":
		res := v.Get("resource")
		b.URI = res.Get("uri").String()
		b.MIMEType = res.Get("mimeType").String()
		z.resourceBody(&b, res)
	}
}

// resourceContents reads one item of resources/read's contents.
func (z *analyser) resourceContents(i int, v gjson.Result) {
	b := Block{Index: i, URI: v.Get("uri").String(), MIMEType: v.Get("mimeType").String()}
	z.resourceBody(&b, v)
	z.a.Blocks = append(z.a.Blocks, b)
}

// resourceBody reads the text or blob of a resource (read, or embedded).
func (z *analyser) resourceBody(b *Block, v gjson.Result) {
	if t := v.Get("text"); t.Type == gjson.String {
		if b.Type == "" {
			b.Type = "text"
		}
		b.Bytes, b.Chars = len(t.Str), utf8.RuneCountInString(t.Str)
		return
	}
	if bl := v.Get("blob"); bl.Exists() {
		if b.Type == "" {
			b.Type = "blob"
		}
		z.binary(b, bl, "blob")
		return
	}
	if b.Type == "" {
		b.Type = "unknown"
	}
	z.add(findings.New(findings.ResultMalformed, "resource %q has neither `text` nor `blob`", b.URI))
}

// binary decodes base64 and sniffs what it decodes to.
func (z *analyser) binary(b *Block, v gjson.Result, field string) {
	where := fmt.Sprintf("%s block %d", b.Type, b.Index)
	if b.URI != "" {
		where = fmt.Sprintf("%s %q", b.Type, b.URI)
	}
	if v.Type != gjson.String {
		b.Base64 = "invalid: not a string"
		z.add(findings.New(findings.InvalidBase64, "%s: `%s` is not a string", where, field))
		return
	}
	data, err := decodeBase64(v.Str)
	if err != nil {
		b.Base64 = "invalid: " + err.Error()
		z.add(findings.New(findings.InvalidBase64, "%s: `%s` is not base64: %v", where, field, err))
		return
	}
	b.Base64, b.Bytes = "valid", len(data)
	b.Sniffed = sniff(data)
	switch {
	case b.MIMEType == "" && (b.Type == "image" || b.Type == "audio"):
		// The schema requires mimeType on image and audio content; a
		// resource's is optional.
		z.add(findings.New(findings.MIMEMismatch, "%s has no `mimeType`; its bytes look like %s", where, orUnknown(b.Sniffed)))
	case b.MIMEType == "":
	case b.Sniffed != "" && !sameType(b.MIMEType, b.Sniffed):
		z.add(findings.New(findings.MIMEMismatch, "%s declares %s; its %d bytes look like %s", where, b.MIMEType, len(data), b.Sniffed))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "nothing recognisable"
	}
	return s
}

// decodeBase64 decodes the standard padded alphabet, as the schema's
// format byte (RFC 4648 §4) asks, and says why a string is not that.
func decodeBase64(s string) ([]byte, error) {
	data, err := base64.StdEncoding.DecodeString(s)
	if err == nil {
		return data, nil
	}
	switch {
	case strings.ContainsAny(s, "-_") && !strings.ContainsAny(s, "+/"):
		if _, e := base64.URLEncoding.DecodeString(s); e == nil {
			return nil, fmt.Errorf("URL-safe alphabet (- and _), not the standard one")
		}
		if _, e := base64.RawURLEncoding.DecodeString(s); e == nil {
			return nil, fmt.Errorf("URL-safe alphabet (- and _) without padding")
		}
	case strings.HasPrefix(s, "data:"):
		return nil, fmt.Errorf("a data: URL, not bare base64")
	}
	if _, e := base64.RawStdEncoding.DecodeString(s); e == nil {
		return nil, fmt.Errorf("no = padding")
	}
	return nil, err
}

// sniff names the type the bytes look like, "" when nothing specific.
func sniff(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	t := http.DetectContentType(data)
	base, _, _ := mime.ParseMediaType(t)
	if base == "application/octet-stream" {
		return ""
	}
	return base
}

// aliases maps MIME types that name the same format to one name.
var aliases = map[string]string{
	"image/jpg":         "image/jpeg",
	"image/pjpeg":       "image/jpeg",
	"image/x-icon":      "image/vnd.microsoft.icon",
	"image/x-ms-bmp":    "image/bmp",
	"audio/wav":         "audio/wave",
	"audio/x-wav":       "audio/wave",
	"audio/vnd.wave":    "audio/wave",
	"audio/mp3":         "audio/mpeg",
	"audio/x-mpeg":      "audio/mpeg",
	"audio/x-aiff":      "audio/aiff",
	"audio/ogg":         "application/ogg",
	"video/ogg":         "application/ogg",
	"audio/x-midi":      "audio/midi",
	"application/x-pdf": "application/pdf",
}

func canonical(t string) string {
	base, _, err := mime.ParseMediaType(t)
	if err != nil {
		base = strings.ToLower(strings.TrimSpace(t))
	}
	if a, ok := aliases[base]; ok {
		return a
	}
	return base
}

// sameType reports whether declared and sniffed name compatible types.
// The sniffer knows few text formats: text it sniffs is compatible with
// any text/* or textual application type (JSON, XML, SVG, JavaScript).
func sameType(declared, sniffed string) bool {
	d, s := canonical(declared), canonical(sniffed)
	if d == s {
		return true
	}
	if s == "text/plain" || s == "text/xml" || s == "text/html" {
		return strings.HasPrefix(d, "text/") || strings.HasSuffix(d, "+xml") || strings.HasSuffix(d, "+json") ||
			d == "application/json" || d == "application/xml" || d == "application/javascript" || d == "application/x-ndjson"
	}
	// mp4 containers carry audio too.
	if s == "video/mp4" && (d == "audio/mp4" || d == "audio/m4a" || d == "audio/x-m4a" || d == "audio/aac") {
		return true
	}
	return false
}

// structured reads structuredContent and holds it to the tool's
// outputSchema and the negotiated version's clauses.
func (z *analyser) structured(r gjson.Result) {
	sc := r.Get("structuredContent")
	schema := gjson.GetBytes(z.in.Tool, "outputSchema")
	if !sc.Exists() && !schema.Exists() {
		return
	}
	s := &Structured{Present: sc.Exists(), HasSchema: schema.Exists(), Valid: true}
	z.a.Structured = s
	judge := judged(z.in.Version)
	if !s.Present {
		s.Valid = false
		if judge && !z.a.IsError {
			z.add(findings.New(findings.StructuredMissing, "the tool declares an outputSchema but the result has no structuredContent (%s server/tools, \"Output Schema\": servers MUST provide structured results that conform)", z.in.Version))
		}
		return
	}
	s.Bytes = len(sc.Raw)
	if !sc.IsObject() && judge && !anyStructured(z.in.Version) {
		z.add(findings.New(findings.ResultMalformed, "structuredContent is %s, not an object as %s's schema has it", kindOf(sc), z.in.Version))
	}
	s.InText = inText(sc.Raw, z.a, gjson.ParseBytes(z.in.Result))
	if !s.InText && judge {
		z.add(findings.New(findings.StructuredNotInText, "no text block holds the structuredContent's JSON (%s server/tools, \"Structured Content\": a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block)", z.in.Version))
	}
	if !s.HasSchema {
		return
	}
	vs, err := validate([]byte(schema.Raw), []byte(sc.Raw))
	if err != nil {
		s.Valid = false
		s.Unchecked = err.Error()
		z.add(findings.New(findings.StructuredUnchecked, "structuredContent not checked against outputSchema: %v", err))
		return
	}
	s.Violations = vs
	s.Valid = len(vs) == 0
	if s.Valid || !judge {
		return
	}
	msg := vs[0].Path + ": " + vs[0].Message
	if vs[0].Path == "" {
		msg = "(root): " + vs[0].Message
	}
	more := ""
	if len(vs) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(vs)-1)
	}
	z.add(findings.New(findings.StructuredInvalid, "structuredContent does not conform to outputSchema: %s%s (%s server/tools, \"Output Schema\": servers MUST provide structured results that conform)", msg, more, z.in.Version))
}

func kindOf(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		return "null"
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	}
	if v.IsArray() {
		return "an array"
	}
	return "an object"
}

// inText reports whether a text block holds the same JSON value as
// structuredContent: the same value, whatever its spacing or key order
// (SDKs pretty-print it; some reorder keys).
func inText(raw string, a *Analysis, r gjson.Result) bool {
	want, ok := normal([]byte(raw))
	if !ok {
		return false
	}
	found := false
	i := 0
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		if i >= MaxBlocks {
			return false
		}
		i++
		if b.Get("type").String() != "text" {
			return true
		}
		t := b.Get("text").Str
		// Cheap reject before parsing: the text must be at least as long
		// as the compact value.
		if len(strings.TrimSpace(t)) < len(want)/2 {
			return true
		}
		if got, ok := normal([]byte(t)); ok && bytes.Equal(got, want) {
			found = true
			return false
		}
		return true
	})
	return found
}

// normal is a JSON value in one form: keys sorted, no spacing, numbers
// as written. Go's decoder sorts map keys when it re-encodes.
func normal(raw []byte) ([]byte, bool) {
	if !probe.Walkable(raw) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}
