package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report --check passes on a fresh report whatever day it runs, and fails
// with a unified diff once the server's definitions change.
func TestReportCheck(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "MCPPROBE.md")
	if r := mcpprobe(t, "report", "--date", "2020-01-02", "--out", file, bin.good); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
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
	if r := mcpprobe(t, "report", "--check", filepath.Join(t.TempDir(), "missing.md"), bin.good); r.code != 2 {
		t.Errorf("missing file: exit %d, want 2", r.code)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}
