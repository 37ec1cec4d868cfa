//go:build e2e

package action

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// scripts/release.sh's archive of this checkout, served as a release,
// installs with install.sh: the archive's layout and SHA256SUMS are the
// ones install.sh reads. The checkout is copied first, since release.sh
// empties dist/.
func TestInstallFromARealReleaseArchive(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("release.sh and install.sh run in bash")
	}
	src := filepath.Join(t.TempDir(), "src")
	copyCheckout(t, "..", src)
	rel := exec.Command("bash", "scripts/release.sh", "v0.0.0-test")
	rel.Dir = src
	rel.Env = append(os.Environ(), "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH, "SOURCE_DATE_EPOCH=1700000000")
	if out, err := rel.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	// One platform, one archive: SHA256SUMS lists it and nothing else.
	sums, err := os.ReadFile(filepath.Join(src, "dist", "SHA256SUMS"))
	want := "  mcpprobe_0.0.0-test_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz\n"
	if err != nil || strings.Count(string(sums), "\n") != 1 || !strings.HasSuffix(string(sums), want) {
		t.Errorf("SHA256SUMS of one platform (%v):\n%s", err, sums)
	}
	srv := httptest.NewServer(http.StripPrefix("/v0.0.0-test/", http.FileServer(http.Dir(filepath.Join(src, "dist")))))
	defer srv.Close()
	dir := t.TempDir()
	out, code, paths := installEnv(t, dir, "VERSION=v0.0.0-test", "RELEASES_URL="+srv.URL)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if len(paths) != 1 || !strings.Contains(out, "mcpprobe version v0.0.0-test") {
		t.Errorf("PATH additions %v, output:\n%s", paths, out)
	}
}

// copyCheckout copies the checkout's files (tracked and untracked, not
// ignored) from root into dir.
func copyCheckout(t *testing.T, root, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}
