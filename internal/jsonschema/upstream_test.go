package jsonschema

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The copy stays upstream's plus one change: every file but draft.go (the
// lazy metaschemas) and this package's own (doc.go, tests) is byte for
// byte the release go.mod pins, import paths aside, and so are the
// metaschemas. Upgrading means copying the new release and re-applying
// draft.go's change; this test says which files drifted.
func TestCopyIsUpstreamPlusDraftGo(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/santhosh-tekuri/jsonschema/v6").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("upstream's module is not in the module cache (go list -m: %v)", err)
	}
	ours := map[string]bool{"doc.go": true, "draft.go": true}
	files, _ := filepath.Glob("*.go")
	if len(files) < 10 {
		t.Fatalf("only %d Go files here", len(files))
	}
	for _, f := range files {
		if ours[f] || strings.HasSuffix(f, "_test.go") {
			continue
		}
		mine, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		up, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s is not in upstream %s: a file of ours belongs in ours", f, dir)
			continue
		}
		mine = bytes.ReplaceAll(mine, []byte("github.com/mcpprobe/mcpprobe/internal/jsonschema"), []byte("github.com/santhosh-tekuri/jsonschema/v6"))
		if !bytes.Equal(mine, up) {
			t.Errorf("%s differs from upstream's (%s): only draft.go may", f, dir)
		}
	}
	err = filepath.WalkDir("metaschemas", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		mine, _ := os.ReadFile(p)
		up, uerr := os.ReadFile(filepath.Join(dir, p))
		if uerr != nil || !bytes.Equal(mine, up) {
			t.Errorf("%s differs from upstream's", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
