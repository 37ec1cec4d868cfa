package result

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

const readmePath = "../../docs/reference.md"

var rulesRE = regexp.MustCompile(`(?s)(<!-- hostrules:begin -->\n)(.*?)(<!-- hostrules:end -->)`)

// TestREADMERules keeps the README's tables of result rules and timeout
// policies what hosts.json says. With -update it rewrites them.
func TestREADMERules(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rulesRE.FindAllIndex(readme, -1)); n != 1 {
		t.Fatalf("README has %d hostrules blocks, want 1", n)
	}
	want := rulesRE.ReplaceAllFunc(readme, func(m []byte) []byte {
		sm := rulesRE.FindSubmatch(m)
		return append(append(append([]byte(nil), sm[1]...), RulesMarkdown(hosts.Known(), Policies())...), sm[3]...)
	})
	if gold.Update() {
		if !bytes.Equal(want, readme) {
			if err := os.WriteFile(readmePath, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(want, readme) {
		t.Errorf("docs/reference.md's result rules are stale: run go test ./probe/result -update, then review the diff\n%s", gold.FirstDiff(readme, want))
	}
}
