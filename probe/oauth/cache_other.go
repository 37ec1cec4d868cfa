//go:build !unix

package oauth

import (
	"io/fs"
	"os"
)

// groupOtherBitsMatter: Windows keeps access in ACLs, which a mode does
// not show; the file's folder under the user's profile is what guards it.
const groupOtherBitsMatter = false

// openNoFollow opens path for reading; the link and type checks are
// cacheFileOK's on the open file's Lstat-equivalent.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := cacheFileOK(path, fi); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// ownedByUser cannot be told from a mode on Windows.
func ownedByUser(fs.FileInfo) error { return nil }
