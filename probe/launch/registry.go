package launch

import (
	"fmt"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// The registry knows every process and server launch has started and not
// yet let go, so that an interrupt can end them all at once whatever the
// command was doing, and so that a child of the probe that is none of
// them can be recognised as an orphan one of them left behind.
var reg = struct {
	sync.Mutex
	interrupted string // the signal's name, once Interrupt was called
	procs       map[*Process]bool
	servers     map[*Server]bool
	pids        map[int]bool // the servers' own pids, while unreaped
	// markers counts, per Target.Marker, the processes started with it
	// whose stop has not finished: their orphans are theirs to report,
	// even after the leader was reaped and left procs.
	markers map[string]int
}{procs: map[*Process]bool{}, servers: map[*Server]bool{}, pids: map[int]bool{}, markers: map[string]int{}}

// Run is what the launcher found about the servers of one run when it let
// them go: a process that escaped a server's group, a server past
// --max-bytes. It is the run's, not the process's (Options.Run), so two
// runs in one process (the in-process tests, a survey's shards) never
// report each other's servers. A nil *Run collects nothing.
type Run struct {
	mu    sync.Mutex
	found []findings.Finding
}

func (r *Run) add(f findings.Finding) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.found = append(r.found, f)
}

// Findings returns the findings about the servers of this run. A
// command adds those of a code its own findings lack (a capture that
// reported its server's already has it; bench, faults and malformed
// drive servers without a capture). Several servers with the same
// finding (bench starts one per sample) give one, with the count.
func (r *Run) Findings() []findings.Finding {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []findings.Finding
	count := map[findings.Code]int{}
	first := map[findings.Code]int{}
	for _, f := range r.found {
		k := f.Code
		if _, ok := first[k]; !ok {
			first[k] = len(out)
			out = append(out, f)
		}
		count[k]++
	}
	for k, i := range first {
		if n := count[k]; n > 1 {
			out[i].Message = fmt.Sprintf("%s (and so did %d more of the servers this run started)", out[i].Message, n-1)
		}
	}
	return out
}

// InterruptedError is what Start returns once the run was interrupted:
// nothing new is started after Ctrl-C.
type InterruptedError struct{ Signal string }

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted (%s): no new server is started", e.Signal)
}

// register runs start (which forks the child) and records the process,
// under the registry's lock, so that no orphan search sees the child
// before it is known.
func register(p *Process, start func() error) error {
	reg.Lock()
	defer reg.Unlock()
	if reg.interrupted != "" {
		return &InterruptedError{Signal: reg.interrupted}
	}
	if err := start(); err != nil {
		return err
	}
	reg.procs[p] = true
	reg.pids[p.cmd.Process.Pid] = true
	if p.marker != "" {
		reg.markers[p.marker]++
	}
	return nil
}

// stopped ends p's claim on the orphans that hold its marker; once per
// process, when its stop has reported them (or it never started).
func stopped(p *Process) {
	if p.marker == "" {
		return
	}
	reg.Lock()
	defer reg.Unlock()
	if reg.markers[p.marker]--; reg.markers[p.marker] <= 0 {
		delete(reg.markers, p.marker)
	}
}

// otherMarkers are the markers of processes other than those marked own
// whose stop has not finished. Taken under the registry's lock.
func otherMarkers(own string) []string {
	var out []string
	for m := range reg.markers {
		if m != own {
			out = append(out, m)
		}
	}
	return out
}

func unregister(p *Process) {
	reg.Lock()
	defer reg.Unlock()
	delete(reg.procs, p)
	delete(reg.pids, p.cmd.Process.Pid)
}

func registerServer(s *Server) error {
	reg.Lock()
	defer reg.Unlock()
	if reg.interrupted != "" {
		return &InterruptedError{Signal: reg.interrupted}
	}
	reg.servers[s] = true
	return nil
}

func unregisterServer(s *Server) {
	reg.Lock()
	defer reg.Unlock()
	delete(reg.servers, s)
}

// Interrupted returns the signal Interrupt was called with, or "".
func Interrupted() string {
	reg.Lock()
	defer reg.Unlock()
	return reg.interrupted
}

// Interrupt ends everything launch started, at once, for a run the user
// interrupted (signal is "SIGINT", "SIGTERM", "SIGHUP" or "SIGQUIT"): every server's process
// group is killed, every HTTP session dropped without a goodbye, every
// orphan they left killed, and Start refuses from then on. It returns
// what each live server was doing (Server.Phase), for the message that
// says where the run stopped. It waits at most about 400 ms.
func Interrupt(signal string) []string {
	reg.Lock()
	if reg.interrupted == "" {
		reg.interrupted = signal
	}
	var phases []string
	owned := map[*Process]bool{}
	for s := range reg.servers {
		if ph := s.Phase(); ph != "" {
			phases = append(phases, ph)
		}
		if s.http != nil {
			s.http.Abort()
		}
		owned[s.proc] = true
	}
	procs := make([]*Process, 0, len(reg.procs))
	for p := range reg.procs {
		procs = append(procs, p)
		if !owned[p] {
			// A process with no session on it (the proxy's server).
			phases = append(phases, fmt.Sprintf("%s (pid %d) was running", p.name, p.Pid()))
		}
	}
	reg.Unlock()
	sort.Strings(phases)
	// Every server's whole tree, found by ancestry while it still stands
	// (those that left the group included), is killed at once: waiting
	// for the servers to die and their orphans to reparent here would
	// cost what a loaded machine makes of it, and mcpprobe must be gone
	// within a second.
	var tree []int
	for _, p := range procs {
		tree = append(tree, descendants(p.Pid())...)
	}
	for _, p := range procs {
		_ = p.signal(syscall.SIGKILL, "because the run was interrupted ("+signal+")")
	}
	killPids(tree)
	// Orphans of servers already let go, then a short wait to reap what
	// died (what is not reaped by then is dead anyway).
	killPids(orphanPids())
	deadline := time.Now().Add(200 * time.Millisecond)
	for _, p := range procs {
		<-waitUntil(p.exited, deadline)
	}
	reapZombies()
	return phases
}

// waitUntil is ch, or a channel closed at deadline, whichever comes first.
func waitUntil(ch <-chan struct{}, deadline time.Time) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		defer close(out)
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
		}
	}()
	return out
}

// otherServersRun reports whether a process launch started, other than p,
// is still running.
func otherServersRun(p *Process) bool {
	reg.Lock()
	defer reg.Unlock()
	for q := range reg.procs {
		if q != p {
			return true
		}
	}
	return false
}

// waitTick is the pause between two looks at a dying process.
func waitTick() { time.Sleep(time.Millisecond) }
