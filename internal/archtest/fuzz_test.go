package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fuzzLineRE is one `go test -fuzz NAME ... ./PKG/` line of the Makefile.
var fuzzLineRE = regexp.MustCompile(`(?m)^\t.*\btest\b.*-fuzz[ =]'?([A-Za-z0-9_]+)'?\s.*?(\./\S*)\s*$`)

// makeFuzzTargets are the (target, package directory) pairs the
// Makefile's fuzz lines name.
func makeFuzzTargets(makefile string) [][2]string {
	var got [][2]string
	for _, m := range fuzzLineRE.FindAllStringSubmatch(makefile, -1) {
		got = append(got, [2]string{m[1], strings.TrimSuffix(strings.TrimPrefix(m[2], "./"), "/")})
	}
	return got
}

// fuzzFuncs are the Fuzz functions declared in dir's test files.
func fuzzFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				got[fn.Name.Name] = true
			}
		}
	}
	return got
}

// `go test -fuzz X ./pkg/` where pkg has no X runs the unit tests, finds
// nothing to fuzz and passes: a fuzzer that moved package fuzzed nothing,
// silently, until this test.
func TestMakeFuzzTargetsExist(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := makeFuzzTargets(string(mk))
	if len(targets) < 5 {
		t.Fatalf("found %d fuzz lines in the Makefile: the check would pass vacuously (has their form changed?)", len(targets))
	}
	for _, tg := range targets {
		if !fuzzFuncs(t, filepath.Join("../..", tg[1]))[tg[0]] {
			t.Errorf("make fuzz names %s in ./%s/, which declares no such fuzz target (grep -rn 'func %s' .)", tg[0], tg[1], tg[0])
		}
	}
}

func TestMakeFuzzTargetsParsing(t *testing.T) {
	mk := "fuzz:\n\t$(GO) test -run '^$$' -fuzz FuzzA -fuzztime 30s ./probe/a/\n\t$(GO) test -fuzz=FuzzB ./b\n# -fuzz FuzzC ./c/\n\t$(GO) test ./probe/\n"
	got := makeFuzzTargets(mk)
	want := [][2]string{{"FuzzA", "probe/a"}, {"FuzzB", "b"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("makeFuzzTargets = %v, want %v", got, want)
	}
}
