package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	if err := writeOutput(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeOutput(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("read %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the file's permissions were not kept: %v", st.Mode())
	}
	// A symlink stays a symlink, to the new content.
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := writeOutput(link, []byte("three")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(path); string(b) != "three" {
		t.Errorf("through the link: %q", b)
	}
	// A device is written in place, never replaced.
	if err := writeOutput("/dev/null", []byte("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode().IsRegular() {
		t.Fatalf("/dev/null is no longer a device")
	}
	if err := writeOutput("/dev/full", []byte("x")); err == nil {
		t.Errorf("/dev/full took the write")
	}
	// Nothing is left beside the file.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// A write that fails (here its sync, as on a full disk) leaves the old
// file whole, and no temporary file beside it.
func TestWriteOutputFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lock.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := func(*os.File) error { return errors.New("no space left on device") }
	write := func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }
	if err := writeReplacing(path, write, full); err == nil {
		t.Fatal("the failed write was not reported")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the old file became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	sym := filepath.Join(dir, "sym.json")
	_ = os.Link(a, hard)
	_ = os.Symlink(a, sym)
	wd, _ := os.Getwd()
	rel, _ := filepath.Rel(wd, a)
	tests := []struct {
		x, y string
		same bool
	}{
		{a, a, true},
		{a, filepath.Join(dir, ".", "sub", "..", "a.json"), true},
		{a, rel, true},
		{a, hard, true},
		{a, sym, true},
		{a, filepath.Join(dir, "b.json"), false},
		{filepath.Join(dir, "new1"), filepath.Join(dir, "new2"), false},
	}
	for _, tc := range tests {
		if got := samePath(tc.x, tc.y); got != tc.same {
			t.Errorf("samePath(%s, %s) = %v", tc.x, tc.y, got)
		}
	}
}

func TestOutputExitCode(t *testing.T) {
	tests := []struct {
		code  int
		proxy bool
		want  int
	}{
		{exitOK, false, exitWrite},
		{exitGate, false, exitWrite},
		{exitUsage, false, exitUsage},
		{exitNoTarget, false, exitNoTarget},
		{exitWrite, false, exitWrite},
		{exitGate, true, exitGate}, // the proxied server's own exit code
		{exitOK, true, exitWrite},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		rs := newRunState(nil, io.Discard, &stderr, os.LookupEnv, os.Environ)
		if tc.proxy {
			rs.intr.command.Store("proxy")
		}
		o := &rs.outputs
		if got := rs.exitCode(tc.code); got != tc.code || stderr.Len() > 0 {
			t.Errorf("no failure: exit %d became %d", tc.code, got)
		}
		o.fail("--trace t.jsonl", errors.New("no space left on device"))
		if got := rs.exitCode(tc.code); got != tc.want {
			t.Errorf("exit %d (proxy %v) with a failed write = %d, want %d", tc.code, tc.proxy, got, tc.want)
		}
		if !strings.Contains(stderr.String(), "writing --trace t.jsonl failed: no space left on device") {
			t.Errorf("stderr: %q", stderr.String())
		}
	}
}
