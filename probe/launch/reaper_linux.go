//go:build linux

package launch

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

var subreaper atomic.Bool

// EnableSubreaper makes this process the subreaper of everything it starts:
// a descendant whose parent dies is reparented to it instead of to init.
// A server's grandchild that left the server's process group (setsid)
// and ignores SIGTERM outlives every signal to that group, but not this:
// once the server is gone the grandchild is our child, found without
// scanning /proc, killed and reported (ExitReport.Escaped).
//
// Call it once, early, in a process whose children all come from launch:
// a child started otherwise would be taken for an orphan and killed.
func EnableSubreaper() error {
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0); errno != 0 {
		return errno
	}
	subreaper.Store(true)
	return nil
}

// descendants lists every descendant of pid, by ancestry (each thread's
// children file, recursively): a process that left pid's group or
// session is still its descendant while its parent lives.
func descendants(pid int) []int {
	var out []int
	seen := map[int]bool{pid: true}
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 10000 {
		p := queue[0]
		queue = queue[1:]
		kids, _ := threadChildren("/proc/" + strconv.Itoa(p))
		for _, c := range kids {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// killPids sends SIGKILL to each pid, and to the group of each that leads
// one of its own (it left its server's group with setsid).
func killPids(pids []int) {
	for _, pid := range pids {
		if _, _, pgid, _ := procStat(pid); pgid == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// orphanPids are the probe's children that are no server of its own.
func orphanPids() []int {
	if !subreaper.Load() {
		return nil
	}
	reg.Lock()
	defer reg.Unlock()
	var out []int
	for _, pid := range children() {
		if !reg.pids[pid] {
			out = append(out, pid)
		}
	}
	return out
}

// children lists this process's children, from each thread's children
// file: a child belongs to the thread that forked it, and an orphan to
// whichever thread the kernel picked when it reparented it.
func children() []int {
	pids, ok := threadChildren("/proc/self")
	if !ok {
		return childrenByScan()
	}
	return pids
}

// threadChildren reads the children file of each thread of the process
// whose /proc directory is dir; ok is false when there was none to read.
// One listing of the threads, then each file read directly:
// filepath.Glob(dir + "/task/*/children") also lists every thread's
// directory (about fifty entries each) to find the file, a third of a
// small wire run's system time.
func threadChildren(dir string) (pids []int, ok bool) {
	tasks, _ := os.ReadDir(dir + "/task")
	for _, t := range tasks {
		b, err := readProc(dir + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		ok = true
		for _, w := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(w); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids, ok
}

// readProc reads a small /proc file with plain system calls: os.ReadFile
// also stats it and offers it to the runtime's poller, which made a look
// at the threads' children files 3.6 times as costly (132 µs against 36
// here, with a few threads), and it is done at each server's stop.
func readProc(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	var buf [512]byte
	for {
		n, err := syscall.Read(fd, buf[:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

// childrenByScan is the fallback for a kernel built without
// CONFIG_PROC_CHILDREN: every process whose parent is this one.
func childrenByScan() []int {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, _, _ := procStat(pid); ppid == self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads a process's state, parent, group and name from
// /proc/PID/stat; state is 0 when the process is gone.
func procStat(pid int) (state byte, ppid, pgid int, comm string) {
	b, err := readProc("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, ""
	}
	// The name sits in parentheses and may hold spaces and parentheses.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return 0, 0, 0, ""
	}
	comm = string(b[open+1 : end])
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 3 {
		return 0, 0, 0, comm
	}
	ppid, _ = strconv.Atoi(f[1])
	pgid, _ = strconv.Atoi(f[2])
	return f[0][0], ppid, pgid, comm
}

// reapOrphans kills and reaps every child of the probe that is not a
// server launch started: each is a descendant of a server that outlived
// its parent and was reparented here. Killing one orphans its own
// children in turn, so it goes round until none is left (bounded). It
// returns the live ones it killed, "pid N (name)"; zombies are reaped
// without a word, as they had exited. An orphan that holds the marker of
// another server still being stopped is that server's to report: its
// leader may be reaped (and so no longer "running") a moment before its
// own stop reaches its orphans.
func reapOrphans(own string) []string {
	return orphansOf(true, func(pid int) bool {
		reg.Lock()
		others := otherMarkers(own)
		reg.Unlock()
		for _, m := range others {
			if environHas(pid, m) {
				return false
			}
		}
		return true
	})
}

// reapZombies reaps the orphans that have exited, and leaves the live
// ones be: a dead member of a server's group no longer counts as alive.
func reapZombies() { orphans(false) }

func orphans(kill bool) []string { return orphansOf(kill, nil) }

// reapMarked kills the live orphans whose environment holds marker, a
// KEY=VALUE that one server's environment alone has: that server's
// escaped processes, told from other servers' while those still run. One
// that cleared its environment is left to the last server's stop.
func reapMarked(marker string) []string {
	if marker == "" {
		return nil
	}
	return orphansOf(true, func(pid int) bool { return environHas(pid, marker) })
}

// environHas reports whether a process's environment (as it was at its
// exec) holds kv.
func environHas(pid int, kv string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// orphansOf reaps this process's children that are no server of the
// registry, those that mine (nil: all) picks; live ones only when kill.
func orphansOf(kill bool, mine func(pid int) bool) []string {
	if !subreaper.Load() {
		return nil
	}
	var found []string
	for round := 0; round < 16; round++ {
		reg.Lock()
		var kids []int
		for _, pid := range children() {
			if !reg.pids[pid] {
				kids = append(kids, pid)
			}
		}
		reg.Unlock()
		if mine != nil {
			kids = slices.DeleteFunc(kids, func(pid int) bool { return !mine(pid) })
		}
		if len(kids) == 0 {
			break
		}
		progress := false
		for _, pid := range kids {
			state, _, pgid, comm := procStat(pid)
			live := state != 0 && state != 'Z' && state != 'X'
			if live && !kill {
				continue
			}
			progress = true
			if live {
				found = append(found, "pid "+strconv.Itoa(pid)+" ("+comm+")")
				if pgid == pid {
					// It leads a group of its own (setsid): all of that
					// group is the server's doing.
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				}
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			reap(pid)
		}
		if !progress {
			break
		}
	}
	return found
}

// reap waits for a killed child, a bounded time (a second, however
// loaded the machine): one stuck in the kernel (uninterruptible I/O) is
// left as it is.
func reap(pid int) {
	deadline := time.Now().Add(time.Second)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err != nil || time.Now().After(deadline) {
			return
		}
		waitTick()
	}
}
