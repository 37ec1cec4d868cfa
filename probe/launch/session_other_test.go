//go:build !unix

package launch

import "syscall"

// newSession: there are no sessions to leave here; the child starts as usual.
func newSession() *syscall.SysProcAttr { return nil }
