package lint

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hidden"
	"github.com/tidwall/gjson"
)

// TestCorpusHiddenContent runs the whole lint (the classic hidden-chars
// and injection rules, and probe/hidden's) over the real corpus of
// probe/hidden/testdata: its hidden-content findings must be exactly
// those the reviewed expectations file lists (by file, tool and code),
// so that no rule of either side adds an unreviewed one.
func TestCorpusHiddenContent(t *testing.T) {
	dir := filepath.Join("..", "hidden", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	sort.Strings(files)
	want := map[string]bool{}
	f, err := os.Open(filepath.Join(dir, "expectations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		p := strings.Split(l, "\t")
		if len(p) < 5 {
			t.Fatalf("expectations: %q", l)
		}
		r, ok := hidden.RuleByName(p[3])
		if !ok {
			t.Fatalf("expectations: no rule %q", p[3])
		}
		want[p[1]+"\t"+p[2]+"\t"+r.Code.String()] = true
	}
	hiddenCodes := map[findings.Code]bool{findings.HiddenChars: true, findings.Injection: true, findings.ModelInstruction: true, findings.TitleMismatch: true}
	got := map[string]bool{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c := &probe.Capture{}
		for _, tool := range gjson.GetBytes(b, "tools").Array() {
			c.Tools.Items = append(c.Tools.Items, []byte(tool.Raw))
		}
		for _, x := range Check(c) {
			if !hiddenCodes[x.Code] {
				continue
			}
			k := filepath.Base(file) + "\t" + x.Tool + "\t" + x.Code.String()
			got[k] = true
			if !want[k] {
				t.Errorf("unreviewed: %s: %s", k, x.Message)
			}
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("reviewed but not found by lint: %s", k)
		}
	}
}
