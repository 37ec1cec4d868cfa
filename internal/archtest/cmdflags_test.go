package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI keeps a run's state in its run value (cmd/mcpprobe/state.go),
// never in a package variable, so that commands can run in process, side
// by side, with fake streams. The one variable allowed is version, which
// -ldflags sets.
func TestCLIHasNoPackageState(t *testing.T) {
	allowed := map[string]bool{"version": true}
	dir := filepath.Join("..", "..", "cmd", "mcpprobe")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if !allowed[n.Name] {
						t.Errorf("%s: package variable %s: keep run state in the run value (runState), and a read-only table in a function", fset.Position(n.Pos()), n.Name)
					}
				}
			}
		}
	}
}
