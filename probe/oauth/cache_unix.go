//go:build unix

package oauth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// groupOtherBitsMatter: on unix a mode says who may read the file.
const groupOtherBitsMatter = true

// openNoFollow opens path for reading without following a link at it,
// and without blocking on a FIFO (whose type is refused once open).
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("it is a symbolic link: mcpprobe never reads a token cache through a link")
	}
	return f, err
}

// ownedByUser says why fi is not the running user's file, or nil.
func ownedByUser(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not by you (uid %d)", st.Uid, uid)
	}
	return nil
}
