//go:build unix

package inputfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	canary := "CANARY-7f3a"
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte(canary), 0o600)
	// A checkout beside the secret: a link out of it is refused, a link
	// that stays in it is read.
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repo, "docs"), 0o755)
	regular := filepath.Join(repo, "docs", "report.md")
	os.WriteFile(regular, []byte("# report\n"), 0o644)
	gitRepo(t, repo, "docs/report.md")
	link := filepath.Join(repo, "link.md")
	os.Symlink(secret, link)
	up := filepath.Join(repo, "docs", "up.md")
	os.Symlink("../../secret", up)
	environ := filepath.Join(repo, "environ.md")
	os.Symlink("/proc/self/environ", environ)
	inTree := filepath.Join(repo, "MCPPROBE.md")
	os.Symlink("docs/report.md", inTree)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(2 << 30) // sparse: no disk used
	f.Close()
	tests := []struct {
		path, want string
	}{
		{regular, ""},
		{inTree, ""},
		{link, "is a symlink that leaves its work tree"},
		{up, "is a symlink that leaves its work tree"},
		{environ, "is a symlink that leaves its work tree"},
		{fifo, "is a named pipe (FIFO)"},
		{"/dev/zero", "is a device"},
		{dir, "is a directory"},
		{big, "is 2.0 GiB, over the 64 MiB cap"},
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
		if err != nil && (strings.Contains(err.Error(), canary) || strings.Contains(err.Error(), secret)) {
			t.Errorf("the error names the target: %v", err)
		}
		if b != nil {
			t.Errorf("Read(%s) read %d bytes", tc.path, len(b))
		}
	}
}

// A file that grows past the cap after it was opened: the read stops.
func TestGrowsPastCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("1234"), 0o644)
	r, err := Open(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	os.WriteFile(p, []byte("123456789"), 0o644)
	if b, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "grew past the 4 B cap") || len(b) > 5 {
		t.Fatalf("read %q, %v", b, err)
	}
	if _, err := Read(p, 4); err == nil || !strings.Contains(err.Error(), "over the 4 B cap") {
		t.Fatalf("got %v", err)
	}
}
