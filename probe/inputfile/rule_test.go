//go:build unix

package inputfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes dir a git work tree whose index tracks files (added with
// git itself, so the index is git's own), with extra arguments to git init.
func gitRepo(t *testing.T, dir string, files ...string) {
	t.Helper()
	gitIn(t, dir, "init", "-q")
	if len(files) > 0 {
		gitIn(t, dir, append([]string{"add", "--"}, files...)...)
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The files a pull request reaches: a link into .git (the job's token in
// .git/config), to a file an earlier step wrote (.env, ignored or not), or
// through a linked folder, is refused; a link to a committed file is read.
// Each refusal names its rule and nothing of the target.
func TestRuleOfTheCheckout(t *testing.T) {
	const canary = "http.https://github.com/.extraheader AUTHORIZATION: basic CANARY-job-token"
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repo, "docs"), 0o755)
	os.WriteFile(filepath.Join(repo, "docs", "report.md"), []byte("# report\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".env\n"), 0o644)
	gitRepo(t, repo, "docs/report.md", ".gitignore")
	cfg := filepath.Join(repo, ".git", "config")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(b, "[http \"https://github.com/\"]\n\textraheader = "+canary+"\n"...), 0o644)
	os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN="+canary+"\n"), 0o600)
	os.WriteFile(filepath.Join(repo, "gha-creds.json"), []byte(canary), 0o600)
	link := func(name, target string) string {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A worktree: its .git is a file naming a folder inside the main .git.
	wt := filepath.Join(dir, "wt")
	gitIn(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
	gitIn(t, repo, "worktree", "add", "-q", wt)
	wtGit := gitFileDir(wt, filepath.Join(wt, ".git"))
	os.WriteFile(filepath.Join(wtGit, "secret"), []byte(canary), 0o600)
	// A checkout whose git folder lies outside it (--separate-git-dir).
	sep, sepGit := filepath.Join(dir, "sep"), filepath.Join(dir, "sep-git")
	os.MkdirAll(sep, 0o755)
	gitIn(t, sep, "init", "-q", "--separate-git-dir", sepGit)
	os.WriteFile(filepath.Join(sepGit, "config"), []byte(canary), 0o600)
	os.Symlink(filepath.Join(sepGit, "config"), filepath.Join(sep, "MCPPROBE.md"))
	// Outside any checkout, a link into a dotfiles checkout is read when it
	// names a committed file.
	dots := filepath.Join(dir, "dotfiles")
	os.MkdirAll(dots, 0o755)
	os.WriteFile(filepath.Join(dots, "mcp.json"), []byte("# report\n"), 0o644)
	gitRepo(t, dots, "mcp.json")
	os.WriteFile(filepath.Join(dots, "local.json"), []byte(canary), 0o600)
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	os.Symlink(filepath.Join(dots, "mcp.json"), filepath.Join(home, "mcp.json"))
	os.Symlink(filepath.Join(dots, "local.json"), filepath.Join(home, "local.json"))
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(home, "plain.json"))
	os.WriteFile(filepath.Join(dir, "secret"), []byte(canary), 0o600)

	// A second repository an earlier step checked out inside this one.
	inner := filepath.Join(repo, "private")
	os.MkdirAll(inner, 0o755)
	os.WriteFile(filepath.Join(inner, "secret.md"), []byte(canary), 0o644)
	gitRepo(t, inner, "secret.md")

	tests := []struct{ path, want string }{
		{link("inner.md", "private/secret.md"), "is a symlink to a file git does not track"},
		{link("MCPPROBE.md", "docs/report.md"), ""},
		{link("docs/up.md", "../docs/report.md"), ""},
		{filepath.Join(link("linked", "docs"), "report.md"), ""},
		{filepath.Join(home, "mcp.json"), ""},
		{link("config.md", ".git/config"), "is inside a .git folder"},
		{link("abs.md", cfg), "is inside a .git folder"},
		{filepath.Join(link("g", ".git"), "config"), "is inside a .git folder"},
		{filepath.Join(repo, "docs", "..", ".git", "config"), "is inside a .git folder"},
		{cfg, "is inside a .git folder"},
		{filepath.Join(repo, ".git", "..", ".git", "config"), "is inside a .git folder"},
		{link("wt.md", filepath.Join(wtGit, "secret")), "is inside a .git folder"},
		{filepath.Join(sep, "MCPPROBE.md"), "is inside a .git folder"},
		{link("env.md", ".env"), "is a symlink to a file git does not track"},
		{link("creds.md", "gha-creds.json"), "is a symlink to a file git does not track"},
		{filepath.Join(link("top", "."), "gha-creds.json"), "is a symlink to a file git does not track"},
		{link("self.md", "MCPPROBE.md"), ""},
		{link("out.md", "../secret"), "is a symlink that leaves its work tree"},
		{filepath.Join(home, "local.json"), "is a symlink to a file git does not track"},
		{filepath.Join(home, "plain.json"), "is a symlink to a file git does not track"},
	}
	for _, tc := range tests {
		b, err := Read(tc.path, MaxReport)
		if tc.want == "" {
			if err != nil || string(b) != "# report\n" {
				t.Errorf("Read(%s) = %q, %v", tc.path, b, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s): %v, want an *Error saying %q", tc.path, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "CANARY") {
			t.Errorf("the error quotes the target: %v", err)
		}
		if b != nil {
			t.Errorf("Read(%s) read %d bytes", tc.path, len(b))
		}
	}
}

// The index in each format git writes is read: 2, 3 (an intent-to-add
// entry, which is not tracked), 4 (prefix-compressed names), SHA-256.
func TestIndexFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		init []string
		then [][]string
	}{
		{"v2", nil, nil},
		{"v3 intent-to-add", nil, [][]string{{"add", "-N", "b/new.md"}}},
		{"v4", nil, [][]string{{"update-index", "--index-version", "4"}}},
		{"sha256", []string{"--object-format=sha256"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
			os.MkdirAll(filepath.Join(dir, "b"), 0o755)
			for _, f := range []string{"a/b/c.md", "a/b/d.md", "a/z.md", "b/new.md", "b/untracked.md"} {
				os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
			}
			gitIn(t, dir, append([]string{"init", "-q"}, tc.init...)...)
			gitIn(t, dir, "add", "a")
			for _, c := range tc.then {
				gitIn(t, dir, c...)
			}
			idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string]bool{"a/b/c.md": true, "a/b/d.md": true, "a/z.md": true,
				"b/new.md": false, "b/untracked.md": false, "a/b": false, "a/b/c": false} {
				if got := indexHas(idx, path); got != want {
					t.Errorf("indexHas(%s) = %v, want %v", path, got, want)
				}
			}
			for _, cut := range []int{0, 11, 12, 40, len(idx) / 2} {
				indexHas(idx[:cut], "a/z.md") // must not panic
			}
		})
	}
}
