//go:build unix

package inputfile

import (
	"errors"
	"syscall"
)

// openFlags keep open from following a symlink or waiting on a FIFO.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
