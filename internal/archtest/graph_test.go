package archtest

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/mcpprobe/mcpprobe/"

// imports returns the in-module packages pkg imports directly (non-test
// files), relative to the module root, e.g. "probe/launch".
func imports(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	var rel []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, module) {
			rel = append(rel, strings.TrimPrefix(line, module))
		}
	}
	sort.Strings(rel)
	return rel
}

// packages returns every package of the module, relative to its root.
func packages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var rel []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == strings.TrimSuffix(module, "/") {
			continue
		}
		rel = append(rel, strings.TrimPrefix(line, module))
	}
	return rel
}

// forbid fails when from imports to.
func forbid(t *testing.T, from, to, why string) {
	t.Helper()
	for _, p := range imports(t, from) {
		if p == to {
			t.Errorf("%s imports %s: %s", from, to, why)
		}
	}
}

func TestGraphHelpers(t *testing.T) {
	if len(packages(t)) < 10 {
		t.Fatal("go list found too few packages; the helpers below would pass vacuously")
	}
	found := false
	for _, p := range imports(t, "cmd/mcpprobe") {
		found = found || p == "transport"
	}
	if !found {
		t.Fatal("cmd/mcpprobe does not import transport; imports() is broken")
	}
}
