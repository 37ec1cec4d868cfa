package result

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// Bytes that net/http.DetectContentType recognises.
var (
	pngBytes = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
	wavBytes = "RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"
	pdfBytes = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
)

const weatherTool = `{"name":"w","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}}`

func codes(fs []findings.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code.String())
	}
	slices.Sort(out)
	return out
}

func TestAnalyse(t *testing.T) {
	cases := []struct {
		name    string
		in      Input
		codes   []string // finding codes, sorted
		blocks  []Block  // compared field by field where set
		isError bool
		check   func(t *testing.T, a Analysis)
	}{
		{
			name:   "text: bytes and code points",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"text","text":"héllo ✓"}]}`), Version: "2025-06-18"},
			blocks: []Block{{Index: 0, Type: "text", Bytes: len("héllo ✓"), Chars: 7}},
		},
		{
			name:   "image: valid PNG, declared PNG",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + b64(pngBytes) + `"}]}`), Version: "2025-06-18"},
			blocks: []Block{{Type: "image", MIMEType: "image/png", Bytes: len(pngBytes), Base64: "valid", Sniffed: "image/png"}},
		},
		{
			name:   "image: PNG bytes declared JPEG",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/jpeg","data":"` + b64(pngBytes) + `"}]}`), Version: "2025-06-18"},
			codes:  []string{"mime-mismatch"},
			blocks: []Block{{Type: "image", Sniffed: "image/png", Base64: "valid"}},
		},
		{
			name:   "image: no mimeType",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","data":"` + b64(pngBytes) + `"}]}`)},
			codes:  []string{"mime-mismatch"},
			blocks: []Block{{Type: "image", Sniffed: "image/png"}},
		},
		{
			name:   "audio: WAV declared audio/wav (an alias of audio/wave)",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"audio","mimeType":"audio/wav","data":"` + b64(wavBytes) + `"}]}`)},
			blocks: []Block{{Type: "audio", Sniffed: "audio/wave", Base64: "valid"}},
		},
		{
			name:   "image: unknown bytes are not a mismatch",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/avif","data":"` + b64("\x00\x01\x02\x03") + `"}]}`)},
			blocks: []Block{{Type: "image", Sniffed: "", Base64: "valid", Bytes: 4}},
		},
		{
			name:   "image: not base64",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"not base64!!"}]}`)},
			codes:  []string{"invalid-base64"},
			blocks: []Block{{Type: "image", Base64: "invalid: illegal base64 data at input byte 3"}},
		},
		{
			name:   "image: unpadded",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + strings.TrimRight(b64("ab"), "=") + `"}]}`)},
			codes:  []string{"invalid-base64"},
			blocks: []Block{{Type: "image", Base64: "invalid: no = padding"}},
		},
		{
			name:   "image: URL-safe alphabet",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe}) + `"}]}`)},
			codes:  []string{"invalid-base64"},
			blocks: []Block{{Type: "image", Base64: "invalid: URL-safe alphabet (- and _), not the standard one"}},
		},
		{
			name:   "image: data is a data: URL",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"data:image/png;base64,` + b64(pngBytes) + `"}]}`)},
			codes:  []string{"invalid-base64"},
			blocks: []Block{{Type: "image", Base64: "invalid: a data: URL, not bare base64"}},
		},
		{
			name:   "image: data is not a string",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":42}]}`)},
			codes:  []string{"invalid-base64"},
			blocks: []Block{{Type: "image", Base64: "invalid: not a string"}},
		},
		{
			name:   "resource_link and embedded blob resource",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"resource_link","uri":"file:///a.rs","name":"a"},{"type":"resource","resource":{"uri":"file:///r.pdf","mimeType":"application/pdf","blob":"` + b64(pdfBytes) + `"}}]}`)},
			blocks: []Block{{Index: 0, Type: "resource_link", URI: "file:///a.rs"}, {Index: 1, Type: "resource", URI: "file:///r.pdf", MIMEType: "application/pdf", Base64: "valid", Sniffed: "application/pdf", Bytes: len(pdfBytes)}},
		},
		{
			name:   "embedded text resource: JSON text sniffed as text is compatible",
			in:     Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"resource","resource":{"uri":"x://j","mimeType":"application/json","blob":"` + b64(`{"a":1}`) + `"}}]}`)},
			blocks: []Block{{Type: "resource", Sniffed: "text/plain", Base64: "valid"}},
		},
		{
			name:   "a resource blob without mimeType is allowed; empty data sniffs as nothing",
			in:     Input{Kind: KindResource, Result: []byte(`{"contents":[{"uri":"b://1","blob":"` + b64(pngBytes) + `"},{"uri":"b://2","mimeType":"image/png","blob":""}]}`)},
			blocks: []Block{{Type: "blob", Sniffed: "image/png", Base64: "valid"}, {Index: 1, Type: "blob", Sniffed: "", Base64: "valid"}},
		},
		{
			name:   "resources/read: text and blob",
			in:     Input{Kind: KindResource, Result: []byte(`{"contents":[{"uri":"orders://recent","mimeType":"text/plain","text":"3 orders"},{"uri":"img://1","mimeType":"image/png","blob":"` + b64(pngBytes) + `"}]}`)},
			blocks: []Block{{Index: 0, Type: "text", URI: "orders://recent", Bytes: 8, Chars: 8}, {Index: 1, Type: "blob", URI: "img://1", Sniffed: "image/png", Base64: "valid"}},
		},
		{
			name:  "resources/read: neither text nor blob",
			in:    Input{Kind: KindResource, Result: []byte(`{"contents":[{"uri":"x://1"}]}`)},
			codes: []string{"result-malformed"},
		},
		{
			name:   "prompts/get: one block per message, an array tolerated",
			in:     Input{Kind: KindPrompt, Result: []byte(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"bc"}]}]}`)},
			blocks: []Block{{Index: 0, Type: "text", Bytes: 2}, {Index: 1, Type: "text", Bytes: 1}, {Index: 2, Type: "text", Bytes: 2}},
		},
		{
			name:  "prompts/get: a message without content",
			in:    Input{Kind: KindPrompt, Result: []byte(`{"messages":[{"role":"user"}]}`)},
			codes: []string{"result-malformed"},
		},
		{
			name:  "not an object",
			in:    Input{Kind: KindTool, Result: []byte(`[1,2]`)},
			codes: []string{"result-malformed"},
		},
		{
			name:  "content not an array",
			in:    Input{Kind: KindTool, Result: []byte(`{"content":"hello"}`)},
			codes: []string{"result-malformed"},
		},
		{
			name:  "no content",
			in:    Input{Kind: KindTool, Result: []byte(`{}`)},
			codes: []string{"result-malformed"},
		},
		{
			name:  "a block without type, a text block without text",
			in:    Input{Kind: KindTool, Result: []byte(`{"content":[{"text":"x"},{"type":"text"}]}`)},
			codes: []string{"result-malformed", "result-malformed"},
		},
		{
			name:  "nested past the walk bound",
			in:    Input{Kind: KindTool, Result: []byte(`{"content":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}`)},
			codes: []string{"result-malformed"},
		},
		{
			name: "2026-07-28: input_required is not a final result",
			in:   Input{Kind: KindTool, Version: "2026-07-28", Tool: []byte(weatherTool), Result: []byte(`{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{}}}}`)},
			check: func(t *testing.T, a Analysis) {
				if a.ResultType != "input_required" || a.Structured != nil {
					t.Errorf("ResultType %q, Structured %+v", a.ResultType, a.Structured)
				}
			},
		},
		{
			name: "a task's creation result carries no content",
			in:   Input{Kind: KindTool, Version: "2025-11-25", Tool: []byte(weatherTool), Result: []byte(`{"task":{"taskId":"t1","status":"working"}}`)},
			check: func(t *testing.T, a Analysis) {
				if a.ResultType != "task" {
					t.Errorf("ResultType %q", a.ResultType)
				}
			},
		},
		{
			name:  "2026-07-28: a complete result is held to its shape",
			in:    Input{Kind: KindTool, Version: "2026-07-28", Result: []byte(`{"resultType":"complete"}`)},
			codes: []string{"result-malformed"},
		},
		{
			name:    "isError and _meta",
			in:      Input{Kind: KindTool, Result: []byte(`{"content":[{"type":"text","text":"boom"}],"isError":true,"_meta":{"k":1}}`)},
			isError: true,
			check: func(t *testing.T, a Analysis) {
				if string(a.Meta) != `{"k":1}` {
					t.Errorf("Meta = %s", a.Meta)
				}
			},
		},
		{
			name: "structured: conforms, copied in text pretty-printed with keys reordered",
			in: Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2025-06-18",
				Result: []byte(`{"content":[{"type":"text","text":"{\n  \"conditions\": \"sunny\",\n  \"temperature\": 22.5\n}"}],"structuredContent":{"temperature":22.5,"conditions":"sunny"}}`)},
			check: func(t *testing.T, a Analysis) {
				s := a.Structured
				if s == nil || !s.Present || !s.HasSchema || !s.Valid || !s.InText || s.Bytes != len(`{"temperature":22.5,"conditions":"sunny"}`) {
					t.Errorf("Structured = %+v", s)
				}
			},
		},
		{
			name: "structured: violates the schema, each violation with its pointer",
			in: Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2025-11-25",
				Result: []byte(`{"content":[{"type":"text","text":"{\"temperature\":\"hot\"}"}],"structuredContent":{"temperature":"hot"}}`)},
			codes: []string{"structured-invalid"},
			check: func(t *testing.T, a Analysis) {
				s := a.Structured
				if s.Valid || !s.InText || len(s.Violations) != 2 {
					t.Fatalf("Structured = %+v", s)
				}
				paths := []string{s.Violations[0].Path, s.Violations[1].Path}
				if !slices.Contains(paths, "/temperature") || !slices.Contains(paths, "") {
					t.Errorf("paths = %q, want /temperature and the root (missing conditions)", paths)
				}
				if !strings.Contains(a.Findings[0].Message, "MUST") || !strings.Contains(a.Findings[0].Message, "2025-11-25") {
					t.Errorf("the finding does not name its clause: %s", a.Findings[0].Message)
				}
			},
		},
		{
			name: "structured: violations are shown but not judged in 2025-03-26",
			in: Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2025-03-26",
				Result: []byte(`{"content":[],"structuredContent":{"temperature":"hot"}}`)},
			check: func(t *testing.T, a Analysis) {
				if a.Structured == nil || a.Structured.Valid || len(a.Structured.Violations) == 0 {
					t.Errorf("Structured = %+v", a.Structured)
				}
			},
		},
		{
			name:  "structured: missing where the tool has an outputSchema",
			in:    Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2025-06-18", Result: []byte(`{"content":[{"type":"text","text":"22.5"}]}`)},
			codes: []string{"structured-missing"},
		},
		{
			name:    "structured: missing in an isError result is allowed",
			in:      Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2025-06-18", Result: []byte(`{"content":[{"type":"text","text":"no"}],"isError":true}`)},
			isError: true,
		},
		{
			name: "structured: missing in 2024-11-05 is not judged",
			in:   Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2024-11-05", Result: []byte(`{"content":[{"type":"text","text":"22.5"}]}`)},
		},
		{
			name: "structured: no text copy, a SHOULD",
			in: Input{Kind: KindTool, Tool: []byte(weatherTool), Version: "2025-06-18",
				Result: []byte(`{"content":[{"type":"text","text":"It is sunny."}],"structuredContent":{"temperature":22.5,"conditions":"sunny"}}`)},
			codes: []string{"structured-not-in-text"},
		},
		{
			name:  "structured: an array before 2026-07-28",
			in:    Input{Kind: KindTool, Version: "2025-06-18", Result: []byte(`{"content":[{"type":"text","text":"[1,2]"}],"structuredContent":[1,2]}`)},
			codes: []string{"result-malformed"},
		},
		{
			name: "structured: an array in 2026-07-28",
			in:   Input{Kind: KindTool, Version: "2026-07-28", Result: []byte(`{"content":[{"type":"text","text":"[1, 2]"}],"structuredContent":[1,2]}`)},
		},
		{
			name: "structured: a schema that refers outside itself is not checked",
			in: Input{Kind: KindTool, Tool: []byte(`{"name":"x","outputSchema":{"$ref":"https://example.com/s.json"}}`), Version: "2025-06-18",
				Result: []byte(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`)},
			codes: []string{"structured-unchecked"},
			check: func(t *testing.T, a Analysis) {
				if !strings.Contains(a.Structured.Unchecked, "refers outside itself") {
					t.Errorf("Unchecked = %q", a.Structured.Unchecked)
				}
			},
		},
		{
			name: "structured: a schema nested past the bound is not checked",
			in: Input{Kind: KindTool, Tool: []byte(`{"name":"x","outputSchema":` + strings.Repeat(`{"not":`, 70) + `{}` + strings.Repeat(`}`, 70) + `}`), Version: "2025-06-18",
				Result: []byte(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`)},
			codes: []string{"structured-unchecked"},
		},
		{
			name: "structured: a schema whose refs fan out is abandoned in time",
			in: Input{Kind: KindTool, Tool: fanOut(40), Version: "2025-06-18",
				Result: []byte(`{"content":[{"type":"text","text":"1"}],"structuredContent":1}`)},
			codes: []string{"result-malformed", "structured-unchecked"},
			check: func(t *testing.T, a Analysis) {
				if !strings.Contains(a.Structured.Unchecked, "abandoned") {
					t.Errorf("Unchecked = %q", a.Structured.Unchecked)
				}
			},
		},
		{
			name: "structured: a schema with a local $ref works",
			in: Input{Kind: KindTool, Tool: []byte(`{"name":"x","outputSchema":{"$defs":{"n":{"type":"number"}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}}`), Version: "2025-06-18",
				Result: []byte(`{"content":[{"type":"text","text":"{\"a\":\"x\"}"}],"structuredContent":{"a":"x"}}`)},
			codes: []string{"structured-invalid"},
			check: func(t *testing.T, a Analysis) {
				if len(a.Structured.Violations) != 1 || a.Structured.Violations[0].Path != "/a" {
					t.Errorf("Violations = %+v", a.Structured.Violations)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Analyse(c.in)
			if a.Kind != c.in.Kind || a.Bytes != len(c.in.Result) {
				t.Errorf("Kind, Bytes = %s, %d", a.Kind, a.Bytes)
			}
			want := append([]string(nil), c.codes...)
			slices.Sort(want)
			if got := codes(a.Findings); !slices.Equal(got, want) {
				t.Errorf("codes = %v, want %v\n%+v", got, want, a.Findings)
			}
			if a.IsError != c.isError {
				t.Errorf("IsError = %v", a.IsError)
			}
			if c.blocks != nil && len(a.Blocks) != len(c.blocks) {
				t.Fatalf("%d blocks, want %d: %+v", len(a.Blocks), len(c.blocks), a.Blocks)
			}
			for i, w := range c.blocks {
				g := a.Blocks[i]
				if g.Type != w.Type || g.Index != i ||
					w.MIMEType != "" && g.MIMEType != w.MIMEType || w.URI != "" && g.URI != w.URI ||
					w.Bytes != 0 && g.Bytes != w.Bytes || w.Chars != 0 && g.Chars != w.Chars ||
					w.Base64 != "" && g.Base64 != w.Base64 || g.Sniffed != w.Sniffed && (w.Sniffed != "" || w.Base64 == "valid") {
					t.Errorf("block %d = %+v, want %+v", i, g, w)
				}
			}
			if c.check != nil {
				c.check(t, a)
			}
		})
	}
}

// fanOut is a schema of n definitions, each an allOf of two refs to the
// next: 2^n evaluations for one value.
func fanOut(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"name":"f","outputSchema":{"$ref":"#/$defs/d0","$defs":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `,"d%d":{"type":"number"}}}}`, n)
	return []byte(b.String())
}

func TestAnalyseBoundsFindings(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i := range 30 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"image","mimeType":"image/png","data":"!!"}`)
	}
	b.WriteString(`]}`)
	a := Analyse(Input{Kind: KindTool, Result: []byte(b.String())})
	if len(a.Blocks) != 30 {
		t.Errorf("%d blocks", len(a.Blocks))
	}
	if len(a.Findings) != MaxFindings+1 || !strings.Contains(a.Findings[len(a.Findings)-1].Message, "10 more") {
		t.Errorf("%d findings, last %q", len(a.Findings), a.Findings[len(a.Findings)-1].Message)
	}
}

func TestSameType(t *testing.T) {
	cases := []struct {
		declared, sniffed string
		want              bool
	}{
		{"image/png", "image/png", true},
		{"IMAGE/PNG", "image/png", true},
		{"image/jpg", "image/jpeg", true},
		{"audio/mp3", "audio/mpeg", true},
		{"image/svg+xml", "text/xml", true},
		{"application/json", "text/plain", true},
		{"text/markdown; charset=utf-8", "text/plain", true},
		{"image/png", "text/plain", false},
		{"image/png", "image/jpeg", false},
		{"audio/mp4", "video/mp4", true},
	}
	for _, c := range cases {
		if got := sameType(c.declared, c.sniffed); got != c.want {
			t.Errorf("sameType(%q, %q) = %v, want %v", c.declared, c.sniffed, got, c.want)
		}
	}
}

// FuzzAnalyse: no result a server sends, with any tool definition, may
// panic the analysis or the deliveries.
func FuzzAnalyse(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}`), []byte(weatherTool), "2025-06-18")
	f.Add([]byte(`{"content":[{"type":"image","data":"!!","mimeType":"image/png"},{"type":"resource","resource":{"uri":"a","blob":"AA=="}}]}`), []byte(`{"_meta":{"anthropic/maxResultSizeChars":-1}}`), "2026-07-28")
	f.Add([]byte(`{"messages":[{"content":[{"type":"text"}]}],"contents":[{}]}`), []byte(`{"outputSchema":true}`), "")
	hosts := hosts.Known()
	f.Fuzz(func(t *testing.T, result, tool []byte, version string) {
		for _, k := range []Kind{KindTool, KindResource, KindPrompt} {
			in := Input{Kind: k, Result: result, Tool: tool, Version: version}
			a := Analyse(in)
			_ = DeliveryFindings(Deliver(hosts, in, a))
		}
	})
}
