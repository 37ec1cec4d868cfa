//go:build e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// report --check passes on a fresh report whatever day it runs, and fails
// with a unified diff once the server's definitions change.
func TestReportCheck(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "MCPPROBE.md")
	if r := mcpprobe(t, "report", "--date", "2020-01-02", "--out", file, bin.good); r.code != 0 || r.stdout != "" ||
		!regexp.MustCompile(`(?m)^mcpprobe: wrote `+regexp.QuoteMeta(file)+` \([0-9,]+ bytes\)$`).MatchString(r.stderr) {
		t.Fatalf("report: exit %d, stdout %q, stderr (should say what it wrote where):\n%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings stdout must hold
		stderr   string
		emptyOut bool
	}{
		{"fresh, dated like the file", []string{bin.good}, 0, nil, "", true},
		{"fresh, another date", []string{"--date", "2031-05-06", bin.good}, 0, nil, "", true},
		{"changed definitions", []string{"--", bin.good, "-corpus"}, 1,
			[]string{"--- " + file + " (committed)\n+++ " + file + " (fresh)\n", "\n@@ -", "\n-| `find_orders`"},
			"is stale", false},
		{"with --json", []string{"--json", bin.good}, 2, nil, "--check compares the markdown report", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"report", "--check", file}, tc.args...)
			r := mcpprobe(t, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.emptyOut && r.stdout != "" {
				t.Errorf("stdout should be empty:\n%s", r.stdout)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
		})
	}
	// The same report written by another version of mcpprobe is current:
	// upgrading does not fail CI, and the check says so on stderr.
	committed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The binary names itself as a build from a clone does (a commit, or
	// "dev" with -buildvcs=false): the rewrite uses what it says.
	self := builtVersion(t)
	older := filepath.Join(t.TempDir(), "MCPPROBE.md")
	stamp := []byte(" · mcpprobe " + self + " · ")
	if !bytes.Contains(committed, stamp) {
		t.Fatalf("the report does not name the binary's version %q:\n%s", self, committed)
	}
	if err := os.WriteFile(older, bytes.Replace(committed, stamp, []byte(" · mcpprobe v0.9.0 · "), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := mcpprobe(t, "report", "--check", older, bin.good); r.code != 0 || r.stdout != "" ||
		!strings.Contains(r.stderr, older+": content unchanged; written by mcpprobe v0.9.0, this is "+self) {
		t.Errorf("another version: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// Another version and another line: stale, and the diff shows both.
	if err := os.WriteFile(older, bytes.Replace(bytes.Replace(committed, stamp, []byte(" · mcpprobe v0.9.0 · "), 1),
		[]byte("## Wire\n"), []byte("## Wire\n\nA line of old.\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := mcpprobe(t, "report", "--check", older, bin.good); r.code != 1 ||
		!strings.Contains(r.stdout, "\n-A line of old.\n") || !strings.Contains(r.stdout, " · mcpprobe v0.9.0 · 2020-01-02\n") {
		t.Errorf("another version and a changed line: exit %d\nstdout:\n%s", r.code, r.stdout)
	}
	if r := mcpprobe(t, "report", "--check", filepath.Join(t.TempDir(), "missing.md"), bin.good); r.code != 2 {
		t.Errorf("missing file: exit %d, want 2", r.code)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}

// A server that leaves a daemon behind on every run: the finding names
// what escaped by program, never by pid, so the committed report stays
// current run after run.
func TestReportCheckEscapedDaemon(t *testing.T) {
	t.Parallel()
	first := mcpprobe(t, "report", "--", bin.raw, "-escape")
	if first.code != 0 || !strings.Contains(first.stdout, "escaped-processes") {
		t.Fatalf("report: exit %d, no escaped-processes finding:\n%s%s", first.code, first.stdout, first.stderr)
	}
	if regexp.MustCompile(`pid \d+`).MatchString(first.stdout) {
		t.Errorf("the report names a pid:\n%s", first.stdout)
	}
	file := filepath.Join(t.TempDir(), "MCPPROBE.md")
	if err := os.WriteFile(file, []byte(first.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if r := mcpprobe(t, "report", "--check", file, "--", bin.raw, "-escape"); r.code != 0 {
			t.Errorf("check %d: exit %d\n%s%s", i+1, r.code, r.stdout, r.stderr)
		}
	}
}

// builtVersion is the version the built binary prints for --version.
func builtVersion(t *testing.T) string {
	t.Helper()
	r := mcpprobe(t, "--version")
	v, ok := strings.CutPrefix(strings.TrimSuffix(r.stdout, "\n"), "mcpprobe version ")
	if r.code != 0 || !ok || v == "" {
		t.Fatalf("--version: exit %d: %q", r.code, r.stdout)
	}
	return v
}

// A report written on one machine with ./bin/goodserver is current in CI
// where the same server is typed as an absolute path, or from a
// subfolder: its target line names the server relative to the repository.
func TestReportCheckAcrossSpellings(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	for _, d := range []string{".git", "bin", "sub"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.ReadFile(bin.good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "bin", "goodserver"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	in := func(dir string, args ...string) result { t.Helper(); return inFolder(t, dir, home, args...) }
	w := in(repo, "report", "--out", "MCPPROBE.md", "./bin/goodserver")
	if w.code != 0 {
		t.Fatalf("report: exit %d: %s", w.code, w.stderr)
	}
	committed, err := os.ReadFile(filepath.Join(repo, "MCPPROBE.md"))
	if err != nil || !strings.Contains(string(committed), "Probed `./bin/goodserver` over stdio") {
		t.Fatalf("the report's target line: %v\n%s", err, committed)
	}
	for _, tc := range []struct{ dir, target string }{
		{repo, filepath.Join(repo, "bin", "goodserver")},
		{repo, "bin/goodserver"},
		{filepath.Join(repo, "sub"), "../bin/goodserver"},
	} {
		if r := in(tc.dir, "report", "--check", filepath.Join(repo, "MCPPROBE.md"), tc.target); r.code != 0 {
			t.Errorf("check as %s from %s: exit %d\n%s%s", tc.target, tc.dir, r.code, r.stdout, r.stderr)
		}
	}
}
