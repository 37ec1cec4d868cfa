package hidden

import (
	"reflect"
	"regexp/syntax"
	"slices"
	"testing"

	"github.com/tidwall/gjson"
)

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string // nil: no literal is required
	}{
		{`ignore`, []string{"ignore"}},
		{`\bignore\s+previous\b`, []string{"previous"}},
		{`ignore|disregard`, []string{"ignore", "disregard"}},
		{`(?:ab|cd)e{2,}`, []string{"ab", "cd"}},
		{`(?:a|b)c{2,}`, []string{"c"}},
		{`keys?\b`, []string{"key"}},
		{`x*`, nil},
		{`a?`, nil},
		{`ignore|\w+`, nil},
		{`[a-z]{24,}`, nil},
		{`(?i)ignore`, nil},
		{`(secret)`, []string{"secret"}},
		{`https?://|~/`, []string{"http", "~/"}},
	} {
		re, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := required(re)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("required(%q) = %q, want %q", c.expr, got, want)
		}
	}
}

// TestLiteralsScan: the one pass finds a literal wherever it sits, and
// only the literals there.
func TestLiteralsScan(t *testing.T) {
	var l literals
	p := l.add(`ignore|instructions|~/|x`)
	q := l.add(`http`)
	for _, c := range []struct {
		s    string
		p, q bool
	}{
		{"", false, false},
		{"ignore", true, false},
		{"please ignor", false, false},
		{"read ~/", true, false},
		{"~", false, false},
		{"ends in x", true, false},
		{"https://", false, true},
		{"new instructions: http", true, true},
	} {
		scanned := l.scan(c.s)
		found := &scanned
		if p.may(found) != c.p || q.may(found) != c.q {
			t.Errorf("scan(%q): p %v q %v, want %v %v", c.s, p.may(found), q.may(found), c.p, c.q)
		}
	}
}

// TestPrefilterKeepsMatches: every rule's pattern, run on every text
// (noPrefilter), matches what the prefiltered scan matches, on the
// corpus, the planted techniques and the hard negatives.
func TestPrefilterKeepsMatches(t *testing.T) {
	corpus := loadCorpus(t)
	var tools []gjson.Result
	for _, c := range corpus {
		tools = append(tools, c.Tool)
	}
	for i, p := range planted {
		for j := range 5 {
			tool, _, _ := plantInto(t, corpus, i+j*7, p)
			tools = append(tools, tool)
		}
	}
	var texts []string
	for _, c := range hardNegatives {
		texts = append(texts, c.text)
	}
	for _, p := range planted {
		texts = append(texts, p.text, "  "+p.text+"\t", "A "+p.text)
	}
	both := func(f func() any) (any, any) {
		fast := f()
		noPrefilter = true
		defer func() { noPrefilter = false }()
		return fast, f()
	}
	matched := 0
	for _, tool := range tools {
		fast, all := both(func() any { return Scan(tool) })
		if !reflect.DeepEqual(fast, all) {
			t.Errorf("%s: prefiltered %v, every pattern %v", tool.Get("name"), fast, all)
		}
		matched += len(all.([]Match))
	}
	for _, s := range texts {
		fast, all := both(func() any { return ScanText("x", s) })
		if !reflect.DeepEqual(fast, all) {
			t.Errorf("%q: prefiltered %v, every pattern %v", s, fast, all)
		}
	}
	if matched < 200 {
		t.Errorf("%d matches in all: the comparison saw too few to mean much", matched)
	}
}

// FuzzPrefilter: whatever the text, the prefilters drop no match, and
// the fast norms of plain and ASCII text are the norm.
func FuzzPrefilter(f *testing.F) {
	for _, p := range planted {
		f.Add(p.text)
	}
	for _, c := range hardNegatives {
		f.Add(c.text)
	}
	for _, s := range []string{"", " ", "a  b", " A\tB\r\n", "x\x00y\x7f", "\x1b[31m", "tab\v\fend ", "caf\u00e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast := ScanText("x", s)
		noPrefilter = true
		all := ScanText("x", s)
		noPrefilter = false
		if !reflect.DeepEqual(fast, all) {
			t.Fatalf("%q: prefiltered %v, every pattern %v", s, fast, all)
		}
		full, _ := normalizeAt(s, false)
		if p, ok := plainNorm(s); ok && p != full {
			t.Fatalf("%q: plain norm %q, norm %q", s, p, full)
		}
		if a, ok := asciiNorm(s); ok && a != full {
			t.Fatalf("%q: ASCII norm %q, norm %q", s, a, full)
		}
		if plainText(s) && len(chars(Field{Path: "x", Text: s})) > 0 {
			t.Fatalf("%q: plain text with hidden characters", s)
		}
	})
}
