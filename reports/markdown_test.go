package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

func TestMD(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain name", "plain name"},
		{"get_weather *now*", "get_weather *now*"}, // emphasis marks left alone
		{"**bold** and __init__", "**bold** and __init__"},
		// a mark no word touches is escaped: MD037 reads "* x *" as emphasis
		{"blob: string /* @format byte */", "blob: string /\\* `@format` byte \\*/"},
		{"a _ b _ c", "a \\_ b \\_ c"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"a & b &lt;", "a &amp; b &amp;lt;"},
		{"[x](javascript:y) ![i](http://e/p.png)", "\\[x\\]`(javascript:y)` !\\[i\\]`(http://e/p.png)`"},
		// What a forge links by itself is a code span, where it links nothing.
		{"see http://evil.example/x.", "see `http://evil.example/x.`"},
		{"(www.evil.example) *WWW.evil.example*", "`(www.evil.example)` `*WWW.evil.example*`"},
		{"mail user@evil.example, or mailto:a@b.c", "mail `user@evil.example,` or `mailto:a@b.c`"},
		{"x`http://e.x`y", "x\\``http://e.x`\\`y"},
		{`a\http://e.x`, "a\\\\`http://e.x`"},                  // our backtick after the server's backslash
		{"<a href=http://e.x>", "&lt;a `href=http://e.x`&gt;"}, // no entity inside a span
		// mcpprobe's own citations stay bare URLs, for the tidier to link.
		{"(https://modelcontextprotocol.io/specification/2025-11-25/basic/index#responses).", "(https://modelcontextprotocol.io/specification/2025-11-25/basic/index#responses)."},
		{"https://modelcontextprotocol.io/specification/x@evil.example", "`https://modelcontextprotocol.io/specification/x@evil.example`"},
		{"severity: error, 3.5 s", "severity: error, 3.5 s"}, // a colon or a dot alone is text
		{"a|b `c`", "a\\|b \\`c\\`"},
		{`\[x](y)`, `\\\[x\](y)`}, // the server's backslash cannot undo ours
		{`ends\`, `ends\\`},
		{`C:\dir`, `C:\dir`}, // a backslash before a letter escapes nothing
		{"line\nbreak\x1b[31m", `line\nbreak\x1b\[31m`},
	}
	for _, tc := range tests {
		if got := terminal.MD(tc.in); got != tc.want {
			t.Errorf("MD(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMDMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tool `alpha` has no description", "tool `alpha` has no description"},
		{"tool `<img src=x>` is odd", `tool &lt;img src=x&gt; is odd`},
		{"tool `x` <img src=x> `y`: bad", "tool `x` &lt;img src=x&gt; `y`: bad"},
		{"unpaired ` <b>", "unpaired \\` &lt;b&gt;"},
		{"``a`b`` then ``` odd", "``a`b`` then \\`\\`\\` odd"},
		{"`a|b`", "`a\\|b`"},
		{`a\` + "`x`", `a\\` + "`x`"},
	}
	for _, tc := range tests {
		if got := terminal.MDMessage(tc.in); got != tc.want {
			t.Errorf("MDMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// MDMessage pairs backtick runs in linear time: a message of many
// unmatched runs of different lengths must not take quadratic time.
func TestMDMessageLinear(t *testing.T) {
	var b strings.Builder
	for n := 1; b.Len() < 1<<20; n++ {
		b.WriteString(strings.Repeat("`", n%50+1))
		b.WriteString("x")
	}
	if out := terminal.MDMessage(b.String()); len(out) < b.Len() {
		t.Fatalf("lost text: %d < %d", len(out), b.Len())
	}
}

// hostile are server strings aimed at a markdown renderer.
var hostile = []string{
	"<script>alert(1)</script>",
	"<img src=x onerror=alert(2)>",
	"x` <img src=y onerror=alert(3)> `y",
	"[link](javascript:alert(4)) ![p](http://evil.example/p.png)",
	`\<b>bold\</b> \[a](b)`,
	"| a | b |\n# heading\n<iframe src=z>",
	"&lt;script&gt; &#60;img&#62;",
	"``<script>``",
}

// TestMarkdownIsInert renders the markdown of a capture and findings full
// of hostile text with a CommonMark renderer that lets raw HTML through,
// and finds neither an element nor a link the server made.
func TestMarkdownIsInert(t *testing.T) {
	var items [][]byte
	var fs []findings.Finding
	for i, h := range hostile {
		q := string(quote(h))
		items = append(items, []byte(`{"name":`+q+`,"title":`+q+`,"description":`+q+`,"inputSchema":{"type":"object"},"annotations":{`+q+`:true}}`))
		f := findings.New(findings.DuplicateTool, "tool %q appears twice; `%s` and %s", h, h, h)
		if i%2 == 0 {
			f = f.About(h)
		}
		fs = append(fs, f)
	}
	in := strings.Join(hostile, " ")
	c := &probe.Capture{
		ServerInfo:   []byte(`{"name":` + string(quote(hostile[0])) + `,"version":` + string(quote(hostile[1])) + `}`),
		Capabilities: []byte(`{"tools":{},` + string(quote(hostile[2])) + `:{}}`),
		Instructions: &in,
		Discover:     "not supported (error -32601: " + hostile[1] + ")",
		Tools:        probe.List{Method: "tools/list", Key: "tools", Asked: true, Items: items, Pages: []probe.Page{{N: 1}}, Error: hostile[0]},
	}
	var b bytes.Buffer
	b.WriteString("# " + terminal.MD(ServerName(c)) + "\n\n")
	b.WriteString(protocolLine(terminal.Markdown, c) + "\n\n")
	Findings(&b, terminal.Markdown, fs)
	Wire(&b, terminal.Markdown, c)
	md := b.Bytes()
	for _, raw := range []string{"<script", "<img", "<iframe", "<b>"} {
		if bytes.Contains(md, []byte(raw)) {
			t.Errorf("the markdown holds a raw %s", raw)
		}
	}
	out := render(t, md)
	// A bare URL may still be linked by the renderer (GitHub does), but
	// only to itself: no link of the server's wording, no image fetched.
	if m := regexp.MustCompile(`<(script|img|iframe|b)\b[^>]*>|<a href="javascript|<!-- raw HTML`).FindString(out); m != "" {
		t.Errorf("the rendered report holds %q:\n%s", m, out)
	}
	// Still readable: what the server sent is what a reader sees.
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the server's name is not shown as text:\n%s", out)
	}
}

// render is what a forge shows: CommonMark with GitHub's tables, with
// raw HTML let through so that any that gets there is seen.
func render(t *testing.T, md []byte) string {
	t.Helper()
	g := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	var out bytes.Buffer
	if err := g.Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func quote(s string) []byte {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.Bytes()
}
