package archtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
)

// architectureDoc is the file whose package entries and import list this
// test keeps true to the module.
const architectureDoc = "../../docs/architecture.md"

const updateCommand = "go test ./internal/archtest -run Architecture -update"

var (
	generatedRE = regexp.MustCompile(`(?s)(<!-- imports:begin[^\n]*-->\n)(.*?)(<!-- imports:end -->)`)
	entryRE     = regexp.MustCompile("(?m)^### `([^`]+)`\\s*$")
)

// graph is every package of the module with the in-module packages it
// imports (non-test files), both relative to the module root, read in one
// go list run. GOOS and GOARCH are fixed so that every machine derives the
// same list from the same tree (files for other systems import little
// else, and the module's release platforms share one graph).
func graph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
			continue
		}
		var deps []string
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				deps = append(deps, strings.TrimPrefix(imp, module))
			}
		}
		sort.Strings(deps)
		g[strings.TrimPrefix(fields[0], module)] = deps
	}
	return g
}

// importList is the generated section: one line per package, in path
// order, naming what it imports of the module.
func importList(g map[string][]string) string {
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString("\n| Package | Imports of the module |\n| --- | --- |\n")
	for _, p := range pkgs {
		deps := "none"
		if len(g[p]) > 0 {
			deps = "`" + strings.Join(g[p], "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", p, deps)
	}
	b.WriteString("\n")
	return b.String()
}

// entries are the packages the prose describes: each level-3 heading
// naming a package in backquotes, before the generated section.
func entries(doc []byte) map[string]bool {
	prose := doc
	if loc := generatedRE.FindIndex(doc); loc != nil {
		prose = doc[:loc[0]]
	}
	got := map[string]bool{}
	for _, m := range entryRE.FindAllSubmatch(prose, -1) {
		got[string(m[1])] = true
	}
	return got
}

// TestArchitectureImports keeps docs/architecture.md's generated import
// list what go list says; -update rewrites it.
func TestArchitectureImports(t *testing.T) {
	doc, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(generatedRE.FindAllIndex(doc, -1)); n != 1 {
		t.Fatalf("docs/architecture.md has %d imports:begin/end blocks, want 1", n)
	}
	g := graph(t)
	if len(g) < 10 {
		t.Fatalf("go list found %d packages; the check would pass vacuously", len(g))
	}
	want := generatedRE.ReplaceAllFunc(doc, func(m []byte) []byte {
		sm := generatedRE.FindSubmatch(m)
		return append(append(append([]byte(nil), sm[1]...), importList(g)...), sm[3]...)
	})
	if gold.Update() {
		want = addMissingEntries(want, synopses(t))
		if !bytes.Equal(want, doc) {
			if err := os.WriteFile(architectureDoc, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(want, doc) {
		t.Errorf("docs/architecture.md's import list differs from go list: run %s, then review the diff\n%s", updateCommand, gold.FirstDiff(doc, want))
	}
}

// TestArchitectureProse fails when a package has no entry of its own in
// docs/architecture.md, or an entry names a package that is gone.
func TestArchitectureProse(t *testing.T) {
	doc, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	g := graph(t)
	have := entries(doc)
	for _, p := range sorted(g) {
		if !have[p] {
			t.Errorf("docs/architecture.md has no entry for %s: add a \"### `%s`\" paragraph saying what it holds and why it sits there (%s adds one from its package comment, to be rewritten)", p, p, updateCommand)
		}
	}
	for p := range have {
		if _, ok := g[p]; !ok {
			t.Errorf("docs/architecture.md describes %s, which go list does not find: remove or rename its entry", p)
		}
	}
}

// placeholder ends each entry -update writes, so that an entry nobody
// rewrote fails TestArchitectureNoPlaceholder instead of being committed.
const placeholder = "Added by -update: say why it sits here."

// TestArchitectureNoPlaceholder fails while an entry -update added still
// says only what the package comment says: the doc is there for the why.
func TestArchitectureNoPlaceholder(t *testing.T) {
	if gold.Update() {
		t.Skip("-update writes the placeholder; the run without -update fails until the entry is rewritten")
	}
	doc, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"say why it sits here", "(no package comment)"} {
		if i := bytes.Index(doc, []byte(text)); i >= 0 {
			line := 1 + bytes.Count(doc[:i], []byte("\n"))
			t.Errorf("docs/architecture.md:%d still holds -update's placeholder %q: rewrite that entry to say why the package sits where it does", line, text)
		}
	}
}

// addMissingEntries gives each package of pkgs without an entry one made
// of its package comment (synopsis), just before the generated section's
// heading, so that -update leaves a document the tests pass and a diff
// that shows what to rewrite.
func addMissingEntries(doc []byte, synopsis map[string]string) []byte {
	have := entries(doc)
	pkgs := make([]string, 0, len(synopsis))
	for p := range synopsis {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var add bytes.Buffer
	for _, p := range pkgs {
		if have[p] {
			continue
		}
		what := synopsis[p]
		if what == "" {
			what = "(no package comment)"
		}
		fmt.Fprintf(&add, "### `%s`\n\n%s %s\n\n", p, what, placeholder)
	}
	loc := generatedRE.FindIndex(doc)
	if add.Len() == 0 || loc == nil {
		return doc
	}
	at := loc[0]
	if h := bytes.LastIndex(doc[:loc[0]], []byte("\n## ")); h >= 0 {
		at = h + 1
	}
	return append(append(append([]byte(nil), doc[:at]...), add.Bytes()...), doc[at:]...)
}

// synopses are the packages' doc comments, first sentence, from go list.
func synopses(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Doc}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	s := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		p, doc, _ := strings.Cut(line, " ")
		s[strings.TrimPrefix(p, module)] = strings.TrimSpace(doc)
	}
	return s
}

func sorted(g map[string][]string) []string {
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	return pkgs
}

// The parsing the two tests rely on: an entry is found only before the
// generated section, and the list is one row per package.
func TestArchitectureParsing(t *testing.T) {
	doc := []byte("# A\n\n### `probe`\n\ntext\n\n## Imports\n\n<!-- imports:begin (generated) -->\n| `transport` | none |\n\n### `ghost`\n<!-- imports:end -->\n")
	got := entries(doc)
	if !got["probe"] || got["ghost"] || len(got) != 1 {
		t.Errorf("entries = %v, want only probe", got)
	}
	list := importList(map[string][]string{"b": {"a"}, "a": nil})
	if want := "\n| Package | Imports of the module |\n| --- | --- |\n| `a` | none |\n| `b` | `a` |\n\n"; list != want {
		t.Errorf("importList = %q, want %q", list, want)
	}
	added := string(addMissingEntries(doc, map[string]string{"transport": "Package transport moves frames.", "probe": "Package probe."}))
	if !strings.Contains(added, "### `transport`\n\nPackage transport moves frames. Added by -update") ||
		strings.Index(added, "### `transport`") > strings.Index(added, "## Imports") || strings.Count(added, "### `probe`") != 1 {
		t.Errorf("want one new entry, for transport, before the generated section's heading:\n%s", added)
	}
}

// The opening of docs/architecture.md: renderers sit above every domain
// package, so no package but the CLI and reports' own imports reports.
func TestOnlyTheCLIImportsReports(t *testing.T) {
	for p, deps := range graph(t) {
		if p == "cmd/mcpprobe" || p == "reports" || strings.HasPrefix(p, "reports/") {
			continue
		}
		for _, d := range deps {
			if d == "reports" || strings.HasPrefix(d, "reports/") {
				t.Errorf("%s imports %s: a domain package returns values and reports renders them (docs/architecture.md)", p, d)
			}
		}
	}
}
