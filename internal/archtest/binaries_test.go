package archtest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// executableMagic are the first bytes of the executable formats a build
// writes: ELF, Mach-O (32 and 64 bit, both byte orders, and universal)
// and PE (the MZ header of a Windows .exe).
var executableMagic = []struct {
	format string
	magic  []byte
}{
	{"ELF", []byte{0x7f, 'E', 'L', 'F'}},
	{"Mach-O", []byte{0xfe, 0xed, 0xfa, 0xce}},
	{"Mach-O", []byte{0xce, 0xfa, 0xed, 0xfe}},
	{"Mach-O", []byte{0xfe, 0xed, 0xfa, 0xcf}},
	{"Mach-O", []byte{0xcf, 0xfa, 0xed, 0xfe}},
	{"Mach-O universal", []byte{0xca, 0xfe, 0xba, 0xbe}},
	{"PE", []byte{'M', 'Z'}},
}

// executableFormat names the format whose magic head starts with, or "".
func executableFormat(head []byte) string {
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m.magic) {
			return m.format
		}
	}
	return ""
}

// A built binary committed by accident (a `go build` in the root once left
// a 3.8 MB rawserver there) bloats every clone forever and is not what the
// source says. Tracked files are read from git; a plain copy of the tree
// (no .git, or no git) has nothing tracked to check.
func TestNoCommittedBinaries(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no tracked files to check")
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout: no tracked files to check")
	}
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files lists %d files: the check would pass vacuously", len(files))
	}
	for _, f := range files {
		head, err := readHead(filepath.Join(root, f), 4)
		if err != nil {
			// A file deleted in the work tree but not yet from the index
			// is not in the tree a commit would hold.
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			t.Errorf("%s: %v", f, err)
			continue
		}
		if format := executableFormat(head); format != "" {
			t.Errorf("%s is a committed %s executable: git rm it and let .gitignore keep build outputs out", f, format)
		}
	}
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	k, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:k], nil
}

func TestExecutableFormat(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want string
	}{
		{[]byte("\x7fELF"), "ELF"},
		{[]byte{0xcf, 0xfa, 0xed, 0xfe}, "Mach-O"},
		{[]byte{0xca, 0xfe, 0xba, 0xbe}, "Mach-O universal"},
		{[]byte("MZ\x90\x00"), "PE"},
		{[]byte("#!/b"), ""},
		{[]byte("pack"), ""},
		{[]byte("M"), ""},
		{nil, ""},
	} {
		if got := executableFormat(c.head); got != c.want {
			t.Errorf("executableFormat(%q) = %q, want %q", c.head, got, c.want)
		}
	}
}
