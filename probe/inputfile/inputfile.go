// Package inputfile opens the files mcpprobe is told to read: a committed
// report (report --check), a reference (--ref), a host config (--config),
// host profiles (--hosts), survey inputs and survey parts. In CI these are
// files of the checkout, so a pull request controls them: one could be a
// symlink to a token file or /proc/self/environ (whose content a check's
// diff would print), a FIFO that blocks the read forever, /dev/zero, or a
// sparse file of gigabytes. Only a regular file is read, never more than
// the cap for its kind.
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The caps, each far above what an honest file of its kind holds.
const (
	// MaxReport is a committed report (report --check).
	MaxReport = 64 << 20
	// MaxReference is a reference (report --ref, diff --ref) or one page
	// of a wire --save directory.
	MaxReference = 64 << 20
	// MaxConfig is a host config (--config) or a host profiles file (--hosts).
	MaxConfig = 16 << 20
	// MaxSurvey is a survey input or a survey part (merge), read a line at
	// a time.
	MaxSurvey = 1 << 30
)

// Error is a file refused: what it is, said without anything read from
// it (a symlink's target is never named).
type Error struct {
	Path string
	Why  string
}

func (e *Error) Error() string { return e.Path + " " + e.Why }

// Open opens path for reading if it is a regular file of at most max
// bytes, and refuses anything else with an *Error. What it returns stops
// with an error past max bytes, should the file grow while it is read.
//
// path is looked at with Lstat before it is opened, so that a FIFO or a
// device is never opened (opening one can block, or act); it is opened
// with O_NOFOLLOW and O_NONBLOCK, so that a symlink or FIFO swapped in
// between cannot be followed or block, and the open file is checked
// again, so that what is read is what was looked at. A symlink is read
// only when its target stays within the link's tree (see inside), and an
// error never names the target.
func Open(path string, max int64) (io.ReadCloser, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	// open is what is opened; errors name path, never a link's target.
	open := path
	if st.Mode()&fs.ModeSymlink != 0 {
		// A link that stays inside its own tree points at a file the same
		// pull request controls anyway; only one that leaves it can reach a
		// token file or /proc.
		target, ok := inside(path)
		if !ok {
			return nil, &Error{Path: path, Why: symlink}
		}
		if st, err = os.Lstat(target); err != nil {
			return nil, &Error{Path: path, Why: "is a symlink whose target cannot be read"}
		}
		open = target
	}
	if why := refuse(st, max); why != "" {
		return nil, &Error{Path: path, Why: why}
	}
	f, err := os.OpenFile(open, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isLoop(err) {
			return nil, &Error{Path: path, Why: symlink}
		}
		if open != path {
			return nil, &Error{Path: path, Why: "is a symlink whose target cannot be opened"}
		}
		return nil, err
	}
	fst, err := f.Stat()
	if err == nil && !os.SameFile(st, fst) {
		err = &Error{Path: path, Why: "changed while it was opened"}
	} else if err == nil {
		if why := refuse(fst, max); why != "" {
			err = &Error{Path: path, Why: why}
		}
	}
	if err != nil {
		f.Close()
		if _, refused := err.(*Error); !refused && open != path {
			return nil, &Error{Path: path, Why: "is a symlink whose target cannot be read"}
		}
		return nil, err
	}
	return &capped{f: f, r: io.LimitReader(f, max+1), left: max, max: max, path: path}, nil
}

// Read reads the whole of path, as Open allows.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// only says why a file that is not one is refused.
const only = ": mcpprobe reads only regular files, since CI runs it on files a pull request controls"

// symlink is the refusal of a symlink: its target is not named, since
// naming it would tell a pull request's author what it points at.
const symlink = "is a symlink that leaves its work tree" + only +
	", and a link out of the checkout could reach a token file; give the path of the file it points to"

// inside resolves the symlink at path and says whether its target stays
// within the link's tree: the nearest folder above it that holds .git (a
// checkout, which is what a pull request controls), else the user's home
// for a link under it (a dotfile manager's links, which no pull request
// writes), else the link's own folder.
func inside(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", false
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	return target, within(target, treeOf(dir))
}

func treeOf(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if home, err := os.UserHomeDir(); err == nil {
		if h, err := filepath.EvalSymlinks(home); err == nil && h != "/" && within(dir, h) {
			return h
		}
	}
	return dir
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func refuse(st fs.FileInfo, max int64) string {
	m := st.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return symlink
	case m.IsDir():
		return "is a directory, not a file"
	case m&fs.ModeNamedPipe != 0:
		return "is a named pipe (FIFO)" + only
	case m&fs.ModeSocket != 0:
		return "is a socket" + only
	case m&fs.ModeDevice != 0:
		return "is a device" + only
	case !m.IsRegular():
		return "is not a regular file" + only
	case st.Size() > max:
		return fmt.Sprintf("is %s, over the %s cap for this kind of file", size(st.Size()), size(max))
	}
	return ""
}

func size(n int64) string { return ibytes(uint64(n)) }

type capped struct {
	f    *os.File
	r    io.Reader
	left int64
	max  int64
	path string
}

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, &Error{Path: c.path, Why: fmt.Sprintf("grew past the %s cap for this kind of file while it was read", size(c.max))}
	}
	return n, err
}

func (c *capped) Close() error { return c.f.Close() }
