//go:build !unix

package inputfile

// openFlags: Windows has neither flag; Lstat and the check of the open
// file refuse what is not a regular file.
const openFlags = 0

func isLoop(error) bool { return false }
