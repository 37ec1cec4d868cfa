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
	"bytes"
	"errors"
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
// bytes that the rule of resolve allows (not in or through .git, a symlink
// followed only to a file git tracks in the link's own checkout), and
// refuses anything else with an *Error. What it returns stops with an
// error past max bytes, should the file grow while it is read.
//
// path is looked at with Lstat before it is opened, so that a FIFO or a
// device is never opened (opening one can block, or act); the resolved
// path is opened with O_NOFOLLOW and O_NONBLOCK, so that a symlink or FIFO
// swapped in between cannot be followed or block, and the open file is
// checked again, so that what is read is what was looked at. An error
// never names a link's target.
func Open(path string, max int64) (io.ReadCloser, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	open, linked, err := resolve(path, st)
	if err != nil {
		return nil, err
	}
	if linked || st.Mode()&fs.ModeSymlink != 0 {
		linked = true
		if st, err = os.Lstat(open); err != nil {
			return nil, &Error{Path: path, Why: "is a symlink whose target cannot be read"}
		}
	}
	return openChecked(path, open, st, linked, max)
}

// readRegular reads a regular file of at most max bytes that is no part of
// what a pull request controls (a .git file, the index), outside the rule.
func readRegular(path string, max int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	f, err := openChecked(path, path, st, false, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// openChecked opens open, whose Lstat is st, as a regular file of at most
// max bytes; errors name path.
func openChecked(path, open string, st fs.FileInfo, linked bool, max int64) (io.ReadCloser, error) {
	if why := refuse(st, max); why != "" {
		return nil, &Error{Path: path, Why: why}
	}
	f, err := os.OpenFile(open, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isLoop(err) {
			return nil, &Error{Path: path, Why: "changed while it was opened"}
		}
		if linked {
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
		if _, refused := err.(*Error); !refused && linked {
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
	// Sized to the file, not grown by doubling: a 60 MB file costs 60 MB.
	var buf bytes.Buffer
	if st, err := f.(*capped).f.Stat(); err == nil && st.Size() < max {
		buf.Grow(int(st.Size()) + 1)
	}
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}

// only says why a file that is not one is refused.
const only = ": mcpprobe reads only regular files, since CI runs it on files a pull request controls"

// symlink is the refusal of a symlink: its target is not named, since
// naming it would tell a pull request's author what it points at.
const symlink = "is a symlink that leaves its work tree" + only +
	", and a link out of the checkout could reach a token file; give the path of the file it points to"

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

// OpenUpdate opens path to be read and then appended to (survey --resume),
// creating it when it does not exist. It follows the rule of Open, and
// refuses a symlink outright: what is written would go through it (into
// .git/config, or a tracked file the link names).
func OpenUpdate(path string, max int64) (*os.File, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|openFlags, 0o644)
	}
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, &Error{Path: path, Why: "is a symlink" + only + ", and writes to the file it resumes: a link would have it write where the link points; give the path of the file it points to"}
	}
	if _, _, err := resolve(path, st); err != nil {
		return nil, err
	}
	if why := refuse(st, max); why != "" {
		return nil, &Error{Path: path, Why: why}
	}
	f, err := os.OpenFile(path, os.O_RDWR|openFlags, 0)
	if err != nil {
		return nil, err
	}
	fst, err := f.Stat()
	if err == nil && !os.SameFile(st, fst) {
		err = &Error{Path: path, Why: "changed while it was opened"}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
