package skillfile

import (
	"strings"
	"testing"
)

func TestParseFrontmatterHostile(t *testing.T) {
	for _, tc := range []struct {
		name, md, want string // want: an error's words, or the JSON
	}{
		{"plain", "---\nname: a\ndescription: b\n---\nbody", `{"description":"b","name":"a"}`},
		{"bom and crlf", "\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\n", `{"description":"b","name":"a"}`},
		{"no frontmatter", "# title\n", "does not begin"},
		{"unclosed", "---\nname: a\n", "no closing"},
		{"endless", "---\n" + strings.Repeat("a: b\n", 20000), "does not end within"},
		{"not a mapping", "---\n- a\n---\n", "not a YAML mapping"},
		{"alias bomb", "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n---\n", "not YAML"},
		{"date", "---\nname: a\ndescription: b\ncreated: 2026-01-02\n---\n", `"created":"2026-01-02T00:00:00Z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := ParseFrontmatter([]byte(tc.md))
			got := string(j)
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q in it", got, tc.want)
			}
		})
	}
}

func TestFrontmatterDiff(t *testing.T) {
	if d := FrontmatterDiff([]byte(`{"name":"a","n":1.0,"m":{"x":1,"y":2}}`), []byte(`{"m":{"y":2,"x":1},"n":1,"name":"a"}`)); len(d) != 0 {
		t.Errorf("same meaning, got %q", d)
	}
	d := FrontmatterDiff([]byte(`{"name":"a","license":"MIT"}`), []byte(`{"name":"b","extra":true}`))
	if want := "extra: listed true, absent from the file; license: in the file (\"MIT\"), absent from the listing; name: file \"a\", listed \"b\""; strings.Join(d, "; ") != want {
		t.Errorf("got %q\nwant %q", strings.Join(d, "; "), want)
	}
}
