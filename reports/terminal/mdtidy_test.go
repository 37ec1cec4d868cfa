package terminal

import "testing"

func TestTidyMarkdown(t *testing.T) {
	in := "# T\n## Findings\n| a |\n|---|\n| 1 |\n### Next\ntext\n\n\n\nsee https://x.test/a#b. and (https://y.test/c) and `https://z.test` and <https://w.test> and [l](https://v.test)\n```text\n\n\nkept https://u.test\n```\nafter\n\n"
	want := "# T\n\n## Findings\n\n| a |\n| --- |\n| 1 |\n\n### Next\n\ntext\n\nsee <https://x.test/a#b>. and (<https://y.test/c>) and `https://z.test` and <https://w.test> and [l](https://v.test)\n\n```text\n\n\nkept https://u.test\n```\n\nafter\n"
	if got := string(TidyMarkdown([]byte(in))); got != want {
		t.Errorf("TidyMarkdown =\n%s\nwant\n%s", got, want)
	}
	// A link's brackets in a cell change that cell alone; the table is
	// written unpadded, padding dropped, alignment and escaped pipes kept.
	table := "| n | what |\n|--:|:-----|\n|   1 | see https://x.test/y |\n| 22 | a \\| b |\n"
	want = "| n | what |\n| ---: | :--- |\n| 1 | see <https://x.test/y> |\n| 22 | a \\| b |\n"
	if got := string(TidyMarkdown([]byte(table))); got != want {
		t.Errorf("TidyMarkdown =\n%s\nwant\n%s", got, want)
	}
}

// A URL behind escaped markdown (server text is escaped so) is bare text,
// and gets its angle brackets; a real link or code span keeps it as is.
func TestLinkURLsEscapedMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{`!\[p\](http://evil.example/p.png)`, `!\[p\](<http://evil.example/p.png>)`},
		{"\\`code\\` http://a.example", "\\`code\\` <http://a.example>"},
		{"`http://in.code` http://a.example.", "`http://in.code` <http://a.example>."},
		{"[x](http://a.example)", "[x](http://a.example)"},
		{"<http://a.example>", "<http://a.example>"},
	}
	for _, tc := range tests {
		if got := linkURLs(tc.in); got != tc.want {
			t.Errorf("linkURLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
