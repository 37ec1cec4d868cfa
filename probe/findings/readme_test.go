package findings

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
)

const readmePath = "../../docs/reference.md"

// A block of the README that this test owns: the codes of the origins
// named in its begin marker, as a table.
var blockRE = regexp.MustCompile(`(?s)(<!-- findings:begin ([a-z ]+) -->\n)(.*?)(<!-- findings:end -->)`)

// table renders the codes of some origins as the README shows them.
func table(origins []Origin) string {
	var b strings.Builder
	b.WriteString("<!-- generated from probe/findings/codes.go by `go test ./probe/findings -update`: edit there -->\n")
	// Each row's <a id> is the code's link target (#finding-CODE), for
	// which markdown has no syntax: markdownlint's no-inline-html is off
	// for these tables only.
	b.WriteString("<!-- markdownlint-disable MD033 -->\n\n")
	b.WriteString("| code | severity | what it means |\n| --- | --- | --- |\n")
	for _, d := range defs {
		if !slices.Contains(origins, d.Origin) {
			continue
		}
		sev := string(d.Severity)
		for _, a := range d.Also {
			sev += ", " + string(a)
		}
		title := d.Title
		if d.More != "" {
			// Link text that says where it goes (markdownlint's
			// descriptive-link-text): the heading's own words.
			title += fmt.Sprintf(" (see [%s](#%s))", strings.TrimSpace(strings.ReplaceAll(d.More, "-", " ")), d.More)
		}
		fmt.Fprintf(&b, "| <a id=\"%s\"></a>`%s` | %s | %s |\n", d.Anchor(), d.Name, sev, title)
	}
	b.WriteString("\n<!-- markdownlint-enable MD033 -->\n")
	return b.String()
}

// generate rewrites every block of readme from the registry, and says
// which origins the blocks cover.
func generate(readme []byte) ([]byte, map[Origin]int, error) {
	covered := map[Origin]int{}
	var bad error
	out := blockRE.ReplaceAllFunc(readme, func(m []byte) []byte {
		sm := blockRE.FindSubmatch(m)
		var origins []Origin
		for _, f := range strings.Fields(string(sm[2])) {
			o := Origin(f)
			if !slices.Contains(Origins, o) {
				bad = fmt.Errorf("README: findings:begin names %q, which is no origin", f)
			}
			origins = append(origins, o)
			covered[o]++
		}
		return []byte(string(sm[1]) + table(origins) + string(sm[4]))
	})
	return out, covered, bad
}

// TestREADME keeps the README's tables of codes what the registry says:
// every registered code in exactly one table, with its severity and
// title, and nothing else there. With -update it rewrites them.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	want, covered, err := generate(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Origins {
		if covered[o] != 1 {
			t.Errorf("README: %d findings:begin blocks take origin %s, want 1", covered[o], o)
		}
	}
	if gold.Update() {
		if !bytes.Equal(want, readme) {
			if err := os.WriteFile(readmePath, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(want, readme) {
		t.Errorf("docs/reference.md's tables of finding codes are stale: run go test ./probe/findings -update, then review the diff\n%s", firstDiff(readme, want))
	}
}

// TestREADMEAnchors checks that every anchor the registry names exists in
// the README, and that the README anchors no code the registry lacks.
func TestREADMEAnchors(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(string(readme), -1) {
		ids[m[1]]++
	}
	headings := headingAnchors(string(readme))
	for _, d := range defs {
		if n := ids[d.Anchor()]; n != 1 {
			t.Errorf("%s: README has %d anchors #%s, want 1", d.Name, n, d.Anchor())
		}
		if d.More != "" && !headings[d.More] {
			t.Errorf("%s: More names #%s, which is no README heading", d.Name, d.More)
		}
	}
	for id := range ids {
		if name, ok := strings.CutPrefix(id, "finding-"); ok {
			if _, ok := ParseCode(name); !ok {
				t.Errorf("README anchors #%s, but %q is no registered code", id, name)
			}
		}
	}
}

// headingAnchors are the anchors GitHub gives the README's headings:
// lower case, punctuation other than "-" and "_" dropped, spaces as "-",
// a repeated one suffixed -1, -2, ….
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# mcpprobe\n## How the probe talks to a server\n### `--trace FILE`\n```\n# not a heading\n```\n### `snapshot`\n## Findings\n## Findings\n")
	for _, want := range []string{"mcpprobe", "how-the-probe-talks-to-a-server", "--trace-file", "snapshot", "findings", "findings-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a fenced line made a heading")
	}
}

// firstDiff shows the first line where two texts part.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  README: %s\n  want:   %s", i+1, x, y)
		}
	}
	return ""
}

// TestHelpPointers: a pointer to the docs in the source of any command's
// help or message (`docs/reference.md#anchor`) names a heading that
// exists, and none points at a README section by name, which moves.
func TestHelpPointers(t *testing.T) {
	ref, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	headings := headingAnchors(string(ref))
	files, err := filepath.Glob("../../cmd/mcpprobe/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	pointer := regexp.MustCompile(`docs/reference\.md#([A-Za-z0-9_-]+)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pointer.FindAllStringSubmatch(string(src), -1) {
			if !headings[m[1]] {
				t.Errorf("%s points at docs/reference.md#%s, which is no heading there", filepath.Base(f), m[1])
			}
		}
		if i := strings.Index(string(src), "README: "); i >= 0 {
			t.Errorf("%s points at a README section by name (%q): point at docs/reference.md#anchor", filepath.Base(f), string(src[i:min(len(src), i+40)]))
		}
	}
}
