package reports

import "testing"

func TestTidyMarkdown(t *testing.T) {
	in := "# T\n## Findings\n| a |\n|---|\n| 1 |\n### Next\ntext\n\n\n\nsee https://x.test/a#b. and (https://y.test/c) and `https://z.test` and <https://w.test> and [l](https://v.test)\n```text\n\n\nkept https://u.test\n```\nafter\n\n"
	want := "# T\n\n## Findings\n\n| a   |\n|-----|\n| 1   |\n\n### Next\n\ntext\n\nsee <https://x.test/a#b>. and (<https://y.test/c>) and `https://z.test` and <https://w.test> and [l](https://v.test)\n\n```text\n\n\nkept https://u.test\n```\n\nafter\n"
	if got := string(TidyMarkdown([]byte(in))); got != want {
		t.Errorf("TidyMarkdown =\n%s\nwant\n%s", got, want)
	}
	// A link's brackets in a cell: the table is padded again, alignment
	// kept, escaped pipes kept in their cell.
	table := "| n | what |\n|--:|:-----|\n| 1 | see https://x.test/y |\n| 22 | a \\| b |\n"
	want = "| n   | what                   |\n|----:|:-----------------------|\n|   1 | see <https://x.test/y> |\n|  22 | a \\| b                 |\n"
	if got := string(TidyMarkdown([]byte(table))); got != want {
		t.Errorf("TidyMarkdown =\n%s\nwant\n%s", got, want)
	}
}
