//go:build unix

package main

import "golang.org/x/sys/unix"

// ownPipeBroken says whether mcpprobe's own stdout or stderr has lost its
// reader. A SIGPIPE is raised for a write to any broken pipe, a server's
// stdin too (a server that exits while mcpprobe writes to it, which is a
// finding, not the end of the run); only the loss of mcpprobe's own
// output ends the run. The write end of a pipe with no reader polls as
// POLLERR, a closed socket as POLLHUP.
func ownPipeBroken() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	if err != nil || n == 0 {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
