package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxCLIComplexity is the most branching one function of cmd/ may hold:
// past it, a function is orchestration that belongs in a domain package
// (Options → Run → Result), where it can be tested without a command line.
const maxCLIComplexity = 15

// cyclomatic counts as gocyclo does: one, plus one per if, for, range,
// non-default case of a switch or select, && and ||.
func cyclomatic(fn ast.Node) int {
	n := 1
	ast.Inspect(fn, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

func TestCLIHoldsNoOrchestration(t *testing.T) {
	files, err := filepath.Glob("../../cmd/mcpprobe/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in cmd/mcpprobe: %v", err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			if c := cyclomatic(fn); c > maxCLIComplexity {
				t.Errorf("%s: %s has cyclomatic complexity %d (at most %d in cmd/): move its logic into a domain package", fset.Position(fn.Pos()), fn.Name.Name, c, maxCLIComplexity)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d functions read in cmd/mcpprobe: the glob is wrong", checked)
	}
}

func TestCyclomaticCounts(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"func f() {}", 1},
		{"func f(a, b bool) { if a && b { } }", 3},
		{"func f(x int) { switch x { case 1: case 2: default: } }", 3},
		{"func f(xs []int) { for range xs { for i := 0; i < 2; i++ { } } }", 3},
		{"func f(c chan int) { select { case <-c: default: } }", 2},
	} {
		file, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n"+tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := cyclomatic(file.Decls[0]); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.src, got, tc.want)
		}
	}
}
