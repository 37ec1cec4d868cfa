package hidden

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// corpusTool is one real tool definition of the corpus.
type corpusTool struct {
	File, Source string
	Tool         gjson.Result
}

// loadCorpus reads testdata/corpus: files in name order, tools in wire order.
func loadCorpus(t *testing.T) []corpusTool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	sort.Strings(files)
	var out []corpusTool
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := gjson.ParseBytes(b)
		src := doc.Get("source").String()
		if !strings.HasPrefix(src, "npm:") && !strings.HasPrefix(src, "go:") {
			t.Errorf("%s: source %q names no package@version", f, src)
		}
		for _, tool := range doc.Get("tools").Array() {
			out = append(out, corpusTool{File: filepath.Base(f), Source: src, Tool: tool})
		}
	}
	return out
}

// expectation is one reviewed real finding: true or false positive.
type expectation struct {
	key  string // file, tool, rule, path (tab-separated)
	true bool
	line int
}

// The expectations file: one line per finding of the corpus,
//
//	true|false<TAB>FILE<TAB>TOOL<TAB>RULE<TAB>PATH<TAB># why
//
// blank lines and lines starting with # are ignored.
const expectationsFile = "testdata/expectations.txt"

func loadExpectations(t *testing.T) map[string]expectation {
	t.Helper()
	f, err := os.Open(expectationsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]expectation{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		parts := strings.Split(l, "\t")
		if len(parts) < 5 || parts[0] != "true" && parts[0] != "false" {
			t.Fatalf("%s:%d: want true|false, file, tool, rule, path, tab-separated: %q", expectationsFile, n, l)
		}
		k := strings.Join(parts[1:5], "\t")
		if _, dup := out[k]; dup {
			t.Errorf("%s:%d: listed twice: %s", expectationsFile, n, k)
		}
		out[k] = expectation{key: k, true: parts[0] == "true", line: n}
	}
	return out
}

// TestCorpusExpectations runs every rule over the real corpus: every
// finding must be in the reviewed expectations file, and every line
// there must still be found. It logs the measured false-positive rate.
func TestCorpusExpectations(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 300 {
		t.Errorf("the corpus has %d tools, want at least 300", len(corpus))
	}
	want := loadExpectations(t)
	seen := map[string]bool{}
	falseTools := map[string]bool{}
	var unexpected []string
	total, falses := 0, 0
	for _, c := range corpus {
		for _, m := range Scan(c.Tool) {
			k := strings.Join([]string{c.File, c.Tool.Get("name").String(), m.Rule, m.Path}, "\t")
			if seen[k] {
				continue
			}
			seen[k] = true
			total++
			e, ok := want[k]
			if !ok {
				unexpected = append(unexpected, "?\t"+k+"\t# "+m.Message())
				continue
			}
			if !e.true {
				falses++
				falseTools[c.File+"\t"+c.Tool.Get("name").String()] = true
			}
		}
	}
	for _, u := range unexpected {
		t.Errorf("unreviewed finding (add it to %s as true or false):\n%s", expectationsFile, u)
	}
	for k, e := range want {
		if !seen[k] {
			t.Errorf("%s:%d: no longer found: %s", expectationsFile, e.line, k)
		}
	}
	t.Logf("corpus: %d tools; %d findings, %d false; tools with a false positive: %d of %d (%.2f%%)",
		len(corpus), total, falses, len(falseTools), len(corpus), 100*float64(len(falseTools))/float64(len(corpus)))
}

// TestCorpusRate pins the figures the docs state (docs/reference.md,
// "Hidden content"), so that a change to the rules or the corpus that
// moves them moves the docs too.
func TestCorpusRate(t *testing.T) {
	corpus := loadCorpus(t)
	want := loadExpectations(t)
	falseTools := map[string]bool{}
	falses, flagged := 0, 0
	for _, c := range corpus {
		if naiveFlags(c.Tool) {
			flagged++
		}
	}
	for _, e := range want {
		if !e.true {
			falses++
			parts := strings.Split(e.key, "\t")
			falseTools[parts[0]+"\t"+parts[1]] = true
		}
	}
	got := fmt.Sprintf("%d tools, %d findings, %d false positives on %d tools; a keyword scan flags %d of the tools", len(corpus), len(want), falses, len(falseTools), flagged)
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), got) {
		t.Errorf("docs/reference.md does not state the measured figures %q", got)
	}
	n := map[Kind]int{}
	for _, c := range corpus {
		for _, f := range Fields(c.Tool) {
			n[f.Kind]++
		}
	}
	fields := fmt.Sprintf("%d titles, %d descriptions, %d parameter names and %d values", n[KindTitle], n[KindDescription], n[KindParamName], n[KindValue])
	if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), fields) {
		t.Errorf("docs/reference.md does not state the corpus's fields %q", fields)
	}
}

// mustJSON is v as JSON, for tests.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
