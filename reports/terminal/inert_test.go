package terminal

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/reports/inertcheck"
)

// linky are server strings a forge would make links, images or HTML of:
// GitHub's extended autolinks among them.
var linky = []string{
	"http://evil.example/x", "see https://evil.example/y.", "www.evil.example", "(www.evil.example)", "*www.evil.example*",
	"_http://evil.example/u_", "~ftp://evil.example/f~", "mailto:a@evil.example", "javascript:alert(1)", "user@evil.example",
	"xmpp:u@evil.example", `<a href="http://evil.example/a">a</a>`, "<img src=http://evil.example/i.png>", "<script>x</script>",
	"<details open>d</details>", "[x](http://evil.example/l)", "![i](http://evil.example/i.png)", "[x][1]", "[1]: http://evil.example/r",
	"<http://evil.example/auto>", "&lt;a href=x&gt;", "&#60;b&#62;", "x` `y``http://evil.example/c``", "\\`http://evil.example/b\\`",
	`\[w](http://evil.example/e)`, `\<b>`, "a\\", "`www.evil.example` `", "x`http://evil.example/t`y", "HTTP://EVIL.EXAMPLE/UP",
	"http://evil.example/\x1b[2J\u202e", "a|http://evil.example/p|b",
}

// Every way reports write server text into markdown, at the start of a
// line, in prose and in a table cell, tidied as a report is: goldmark
// with GitHub's extensions finds no link, image or HTML in it.
func TestServerTextIsNeverLive(t *testing.T) {
	writers := map[string]func(string) string{
		"MD": MD, "mdStrict": mdStrict, "Code": Code, "MDMessage": MDMessage,
		"message": func(s string) string { return Message(Markdown, "tool `"+s+"` says "+s) },
	}
	for name, w := range writers {
		for _, s := range linky {
			out := w(s)
			md := out + "\n\ntext " + out + " text\n\n| a | b |\n|---|---|\n| " + out + " | x " + out + " |\n\n- " + out + "\n"
			if live := inertcheck.Live(TidyMarkdown([]byte(md))); len(live) > 0 {
				t.Errorf("%s(%q) = %q: %s", name, s, out, strings.Join(live, "; "))
			}
		}
	}
	// A line of its own: a reference definition, an HTML block, a bare
	// URL at the line's start.
	var b strings.Builder
	for _, s := range linky {
		b.WriteString(MD(s) + "\n\n")
	}
	if live := inertcheck.Live(TidyMarkdown([]byte(b.String()))); len(live) > 0 {
		t.Errorf("live: %s", strings.Join(live, "; "))
	}
}

// mcpprobe's own citations stay links.
func TestOwnLinksStayLinks(t *testing.T) {
	md := TidyMarkdown([]byte(MDMessage("an error reply has no code (https://www.jsonrpc.org/specification#error_object)") + "\n"))
	if !strings.Contains(string(md), "<https://www.jsonrpc.org/specification#error_object>") {
		t.Fatalf("the citation is not a link: %s", md)
	}
}
