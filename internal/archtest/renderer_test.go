package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// One renderer contract (issue 41): every command's result reaches the
// CLI's one output path as a reports.Result made by the command's adapter
// in reports, named New<Command>; cmd/ chooses and never assembles a
// result; the machinery the renderers share (terminal, JSON envelope)
// lives in its own packages, and no renderer file redefines it.

// adapters are the commands' adapters, one per command that emits a
// result. A new command adds its own here.
var adapters = []string{"NewAll", "NewAuth", "NewBench", "NewBudget", "NewCall", "NewCheck", "NewDiff",
	"NewFaults", "NewLoad", "NewMalformed", "NewReport", "NewSnapshot", "NewWire"}

// parseDir parses the non-test Go files of dir (not its subfolders, unless
// deep), keyed by path relative to the module root.
func parseDir(t *testing.T, dir string, deep bool) map[string]*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	root := filepath.Join("..", "..", dir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (!deep || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s: the test would pass vacuously", dir)
	}
	return files
}

// typeName is the name a composite literal's type ends in: T, pkg.T,
// &T (through the literal itself).
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// outcomeLiterals counts the composite literals of a type named outcome
// in files, and names the types that have a Section method (a Result
// assembled by hand under another name).
func outcomeLiterals(files map[string]*ast.File) (n int, where []string, handMade []string) {
	for path, f := range files {
		ast.Inspect(f, func(node ast.Node) bool {
			switch x := node.(type) {
			case *ast.CompositeLit:
				if typeName(x.Type) == "outcome" {
					n++
					where = append(where, path)
				}
			case *ast.FuncDecl:
				if x.Recv != nil && x.Name.Name == "Section" {
					handMade = append(handMade, path+": "+recvName(x))
				}
			}
			return true
		})
	}
	sort.Strings(where)
	sort.Strings(handMade)
	return n, where, handMade
}

func recvName(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	return typeName(t)
}

func TestCmdBuildsNoResult(t *testing.T) {
	n, where, handMade := outcomeLiterals(parseDir(t, "cmd", true))
	if n > 1 {
		t.Errorf("cmd/ holds %d hand-built outcome{…} literals (%s): at most one; a command's result is its adapter's in reports (reports.New<Command>)", n, strings.Join(where, ", "))
	}
	for _, h := range handMade {
		t.Errorf("%s has a Section method: a result assembled in cmd/; give the command an adapter in reports", h)
	}
}

// The count fails where it should: two literals and a Section method are
// seen.
func TestCmdBuildsNoResultCanFail(t *testing.T) {
	src := `package main
type outcome struct{ command string }
type mine struct{}
func (mine) Section() []byte { return nil }
var a, b = outcome{command: "x"}, &outcome{}
`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	n, _, handMade := outcomeLiterals(map[string]*ast.File{"cmd/x.go": f})
	if n != 2 || len(handMade) != 1 {
		t.Fatalf("counted %d literals and %v, want 2 and one Section method", n, handMade)
	}
}

// returnsResult reports whether fd returns exactly one reports.Result.
func returnsResult(fd *ast.FuncDecl) bool {
	r := fd.Type.Results
	return r != nil && len(r.List) == 1 && len(r.List[0].Names) <= 1 && typeName(r.List[0].Type) == "Result"
}

var adapterName = regexp.MustCompile(`^New[A-Z][a-z]+$`)

func TestCommandAdapters(t *testing.T) {
	var got []string
	for path, f := range parseDir(t, "reports", false) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !returnsResult(fd) {
				continue
			}
			name := fd.Name.Name
			switch {
			case name == "WithFailure":
				// The one decorator: a Result in, the same Result with
				// its failure out.
			case !adapterName.MatchString(name):
				t.Errorf("%s: %s returns a Result: a command's adapter is named New<Command> (NewWire, NewBudget)", path, name)
			default:
				got = append(got, name)
			}
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, adapters) {
		t.Errorf("the adapters in reports are %v, want one per command: %v", got, adapters)
	}
	// What cmd/ hands emit is an adapter's Result (or a variable holding
	// one), never a value it made.
	for path, f := range parseDir(t, "cmd", true) {
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "emit" || len(call.Args) != 2 {
				return true
			}
			switch a := call.Args[1].(type) {
			case *ast.Ident:
			case *ast.CallExpr:
				if fs, ok := a.Fun.(*ast.SelectorExpr); ok && typeName(fs.X) == "reports" &&
					(adapterName.MatchString(fs.Sel.Name) || fs.Sel.Name == "WithFailure") {
					break
				}
				t.Errorf("%s: emit is handed %s: want reports.New<Command>(…)", path, exprString(a))
			default:
				t.Errorf("%s: emit is handed %s: want reports.New<Command>(…)", path, exprString(a))
			}
			return true
		})
	}
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.CallExpr:
		return exprString(e.Fun) + "(…)"
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	case *ast.CompositeLit:
		return exprString(e.Type) + "{…}"
	case *ast.UnaryExpr:
		return e.Op.String() + exprString(e.X)
	}
	return "an expression"
}

// topLevel is the names files declare at top level (functions without a
// receiver, types, variables, constants).
func topLevel(files map[string]*ast.File) map[string]string {
	names := map[string]string{}
	for path, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = path
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = path
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = path
						}
					}
				}
			}
		}
	}
	return names
}

// machineryImports are the libraries only the machinery packages use: a
// renderer that imports one is building a table or a schema of its own.
var machineryImports = []string{"github.com/olekukonko/tablewriter", "github.com/mcpprobe/mcpprobe/internal/jsonschema", "embed"}

func TestRenderersDefineNoMachinery(t *testing.T) {
	machinery := topLevel(parseDir(t, "reports/terminal", false))
	for name, path := range topLevel(parseDir(t, "reports/jsonout", false)) {
		machinery[name] = path
	}
	if len(machinery) < 20 {
		t.Fatalf("only %d names in reports/terminal and reports/jsonout: the test would pass vacuously", len(machinery))
	}
	for path, f := range parseDir(t, "reports", false) {
		for name := range topLevel(map[string]*ast.File{path: f}) {
			if _, ok := machinery[name]; ok && ast.IsExported(name) {
				t.Errorf("%s declares %s, which is %s's: the renderers import the machinery and do not redefine it", path, name, filepath.Dir(machinery[name]))
			}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for _, m := range machineryImports {
				if p == m || strings.HasPrefix(p, m+"/") {
					t.Errorf("%s imports %s: that is machinery's (reports/terminal, reports/jsonout), not a renderer's", path, p)
				}
			}
		}
	}
}
