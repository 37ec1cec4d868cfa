package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLaunchBelowTheClient: launch starts and owns processes; the client
// speaks MCP. launch must not reach the client, not even through another
// package, nor the package that joins the two.
func TestLaunchBelowTheClient(t *testing.T) {
	forbid(t, "probe/launch", "probe", "launch sits below the client: client errors and findings belong to probe/dial")
	forbid(t, "probe/launch", "probe/dial", "probe/dial is built on launch, not the other way round")
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"probe/launch").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"transport") {
		t.Fatal("go list -deps of probe/launch lacks transport; the check below would pass vacuously")
	}
	if slices.Contains(deps, module+"probe") {
		t.Errorf("probe/launch depends on probe (the client) through another package")
	}
}

// TestOneRoadToASession: every command that opens a session with a server
// does it through probe/dial: it alone calls launch.Start, and the
// packages that used to start and connect on their own import it.
func TestOneRoadToASession(t *testing.T) {
	for _, p := range []string{"probe/call", "probe/malformed", "probe/bench", "faults", "probe/wire"} {
		if !slices.Contains(imports(t, p), "probe/dial") {
			t.Errorf("%s does not import probe/dial: how does it open its sessions?", p)
		}
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .GoFiles}} {{$.Dir}}/{{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	callers := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), strings.TrimSuffix(module, "/"))
		for _, file := range f[1:] {
			if callsLaunchStart(t, file) {
				callers[pkg] = true
			}
		}
	}
	if !callers["probe/dial"] {
		t.Fatal("probe/dial does not call launch.Start; the check is broken or the road moved")
	}
	for p := range callers {
		if p != "probe/dial" {
			t.Errorf("%s calls launch.Start: open sessions with probe/dial (Open, Start, Probe), which connects, explains and judges the exit", p)
		}
	}
}

// callsLaunchStart reports whether the Go file calls probe/launch's Start,
// under whatever name the file imports launch.
func callsLaunchStart(t *testing.T, path string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	name := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == module+"probe/launch" {
			name = "launch"
			if im.Name != nil {
				name = im.Name.Name
			}
		}
	}
	if name == "" {
		return false
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Start" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}
