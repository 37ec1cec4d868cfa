//go:build e2e

package action

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Without a version, install.sh builds the checkout the action sits in
// (this repository) and puts the binary on the PATH: a real build, the
// way the runner does it.
func TestInstallBuildsTheActionsCheckout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, code, paths := installEnv(t, dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "building from the action's checkout") {
		t.Errorf("output does not say where it built from:\n%s", out)
	}
	if len(paths) != 1 || paths[0] != filepath.Join(dir, "mcpprobe-bin") {
		t.Fatalf("PATH additions %v", paths)
	}
	v, err := exec.Command(filepath.Join(paths[0], "mcpprobe"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(v), "mcpprobe version ") {
		t.Errorf("the built binary: %v\n%s", err, v)
	}
}
