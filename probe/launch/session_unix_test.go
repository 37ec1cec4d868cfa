//go:build unix

package launch

import "syscall"

// newSession starts a child in a session of its own: it leaves the
// process group, as a server's stubborn grandchild may.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
