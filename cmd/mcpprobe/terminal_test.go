//go:build linux

package main

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// stderr is wrapped to hide secrets; the progress line must still see
// the terminal behind it.
func TestIsTerminalSeesThroughRedaction(t *testing.T) {
	tty := openPTY(t)
	if !isTerminal(tty) {
		t.Fatal("a pty is not taken for a terminal")
	}
	if !isTerminal(&redactingWriter{w: tty}) {
		t.Error("stderr wrapped for redaction is no longer a terminal: progress would never show")
	}
	if isTerminal(&redactingWriter{w: os.NewFile(^uintptr(0), "none")}) {
		t.Error("a non-terminal taken for one")
	}
}

// openPTY opens a pseudo-terminal and returns its terminal end.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("TIOCGPTN: %v", e)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("TIOCSPTLCK: %v", e)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}
