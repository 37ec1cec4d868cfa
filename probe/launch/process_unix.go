//go:build unix

package launch

import "syscall"

// groupAttr starts the child as the leader of a new process group, so
// that signalGroup reaches it and everything it spawns.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to every process of group pgid.
func signalGroup(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }

// groupAlive reports whether a process of group pgid is still there, as
// the kernel says: no scan of /proc, so its cost does not grow with the
// machine's other processes. A member that has exited counts until it is
// reaped; as the probe is the subreaper of its servers (EnableSubreaper),
// such zombies are its own children, reaped by reapZombies.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
