package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// StartError is returned when the server could not be started at all.
type StartError struct {
	Command string
	Err     error
}

func (e *StartError) Error() string { return e.Headline() + "; " + e.Hint() }

// Headline says what failed.
func (e *StartError) Headline() string {
	return fmt.Sprintf("could not start %q: %v", e.Command, e.Err)
}

// Hint says what to try.
func (e *StartError) Hint() string {
	switch {
	case errors.Is(e.Err, exec.ErrNotFound):
		return "it is not on PATH; give a path (./server) or install it"
	case errors.Is(e.Err, os.ErrPermission):
		return "it is not executable: chmod +x it, or run it through its interpreter (-- node server.mjs)"
	case errors.Is(e.Err, os.ErrNotExist):
		return "no such file; check the path and the working directory"
	}
	return "check the command and its working directory"
}

func (e *StartError) Unwrap() error { return e.Err }

// KillWait bounds the wait after SIGKILL, which the kernel does not refuse:
// past it the process is stuck in the kernel (uninterruptible I/O) and
// waiting longer would not help.
const KillWait = 5 * time.Second

// Process is a command running in a process group of its own, so that it
// and everything it spawned can be signalled together. Its pipes are raw:
// the caller frames them (transport.Stdio) or copies them byte for byte
// (the fault proxy).
type Process struct {
	// Stdin is the write end of the process's stdin; Stdout and Stderr
	// the read ends of its output. The caller reads both outputs until
	// EOF: a process blocked on a full pipe never exits.
	Stdin          *os.File
	Stdout, Stderr *os.File

	cmd      *exec.Cmd
	exited   chan struct{}
	exitedAt time.Time
	waitErr  error

	name   string // the command as a person would type it, env values hidden
	marker string // Target.Marker
	// dropped names the variables of mcpprobe's environment the process
	// did not get, as a host would not give them (never their values).
	dropped []string

	mu       sync.Mutex
	stopOnce sync.Once
	// sent is the last signal mcpprobe sent the group, and why: a
	// process that died of it was stopped, it did not exit on its own.
	sent    syscall.Signal
	sentWhy string
}

// StartProcess starts t's command in a process group of its own, with
// t.Env on top of what a host passes of this process's environment (all
// of it with t.InheritEnv, t.BaseEnv when set), in t.Dir. It fails with a
// *StartError when the command cannot be run.
func StartProcess(t Target) (*Process, error) {
	if t.Command == "" {
		return nil, &StartError{Command: t.Command, Err: errors.New("no command")}
	}
	path, err := exec.LookPath(t.Command)
	if err != nil {
		return nil, &StartError{Command: t.Command, Err: err}
	}
	// os.Pipe, not StdoutPipe and friends: the process's exit must not
	// wait for our reading, which a stalled consumer could block forever.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd := exec.Command(path, t.Args...)
	cmd.Args[0] = t.Command
	cmd.Dir = t.Dir
	base, dropped := baseEnv(t)
	cmd.Env = append(append([]string{}, base...), t.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = groupAttr()
	p := &Process{Stdin: inW, Stdout: outR, Stderr: errR, cmd: cmd, exited: make(chan struct{}), name: t.Display(), marker: t.Marker, dropped: dropped}
	// Started and registered in one step: the orphan search must never
	// see a child of ours that it does not know as a server.
	err = register(p, cmd.Start)
	// The child has its own copies; ours must go so EOF can reach us.
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		var ie *InterruptedError
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, &StartError{Command: t.Command, Err: err}
	}
	// On Windows the child starts suspended until it is in its job object.
	if err := startedGroup(cmd.Process.Pid); err != nil {
		_ = cmd.Wait()
		unregister(p)
		stopped(p)
		closeAll(inW, outR, errR)
		return nil, &StartError{Command: t.Command, Err: err}
	}
	go func() {
		p.waitErr = cmd.Wait()
		p.exitedAt = time.Now()
		// Reaped: its pid is no longer ours, and may be reused.
		unregister(p)
		close(p.exited)
	}()
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// Dropped names the variables of mcpprobe's own environment the process
// was not given (sorted; none with InheritEnv or BaseEnv).
func (p *Process) Dropped() []string { return p.dropped }

// Pid is the process id, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits at most d for the process to exit, and reports whether it
// did.
func (p *Process) Wait(d time.Duration) bool { return transport.WaitFor(p.exited, d) }

// ExitedAt is when the process was reaped; zero while it runs.
func (p *Process) ExitedAt() time.Time {
	select {
	case <-p.exited:
		return p.exitedAt
	default:
		return time.Time{}
	}
}

// ExitStatus describes how the process ended, as the OS reports it
// ("exit status 3", "signal: killed"), or "still running".
func (p *Process) ExitStatus() string {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.String()
	default:
		return "still running"
	}
}

// ExitSignal is the signal that ended the process, 0 if none did or it
// still runs.
func (p *Process) ExitSignal() int {
	select {
	case <-p.exited:
	default:
		return 0
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

// StoppedBy says why mcpprobe ended the process, when it did: the signal
// that killed it was one mcpprobe sent ("SIGTERM sent by mcpprobe after
// stdin closed and 2s passed"). "" when it exited on its own or still
// runs: only then may its end be laid at the server's door.
func (p *Process) StoppedBy() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sent == 0 || (ws.Signal() != syscall.SIGTERM && ws.Signal() != syscall.SIGKILL) {
		return ""
	}
	why := sigName(ws.Signal()) + " sent by mcpprobe"
	if p.sentWhy != "" {
		why += " " + p.sentWhy
	}
	return why
}

// signal sends sig to the group and remembers it, with why, so that the
// end it causes is not taken for the server's own doing.
func (p *Process) signal(sig syscall.Signal, why string) error {
	if sig != 0 {
		p.mu.Lock()
		p.sent, p.sentWhy = sig, why
		p.mu.Unlock()
	}
	return signalGroup(p.Pid(), sig)
}

// ExitCode is the process's exit code: -1 while it runs or when a signal
// ended it, as os.ProcessState says.
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// Signal sends sig to the whole process group.
func (p *Process) Signal(sig syscall.Signal) error { return p.signal(sig, "") }

// Kill ends the whole process group at once, as a crash would.
func (p *Process) Kill() { _ = p.signal(syscall.SIGKILL, "to crash it") }

// KillFor ends the whole process group at once, saying why (for the
// explanation of what follows): "because it sent more than --max-bytes".
func (p *Process) KillFor(why string) { _ = p.signal(syscall.SIGKILL, why) }

// Terminate sends SIGTERM to the process group, stdin still open, and
// waits up to grace for the exit: how the server takes a host's SIGTERM.
// It returns the time to exit, and false if the server outlived grace.
func (p *Process) Terminate(grace time.Duration) (time.Duration, bool) {
	sent := time.Now()
	_ = p.signal(syscall.SIGTERM, "to time its shutdown")
	if !p.Wait(grace) {
		return grace, false
	}
	return max(p.exitedAt.Sub(sent), 0), true
}

// ExitReport says how the server went away when it was let go.
type ExitReport struct {
	// AlreadyExited: the server was gone (its process, or at least its
	// stdout) before its stdin was closed.
	AlreadyExited bool
	// After is the time from closing stdin to the process exiting; 0 when
	// it had already exited.
	After time.Duration
	// Signal is the strongest signal the server needed: "", "SIGTERM" or "SIGKILL".
	Signal string
	Status string // as the OS reported it, e.g. "exit status 0"
	// Leftover: processes of the server's group were still alive after it
	// exited, and were killed.
	Leftover bool
	// Escaped are the processes the server started that had left its
	// process group (setsid, setpgid) and outlived it, found as
	// descendants of the probe and killed: "pid 1234 (sleep)". Empty
	// where the platform cannot find them (see EnableSubreaper).
	Escaped []string
	// StoppedBy is why mcpprobe ended the process, if a signal it sent
	// did (Process.StoppedBy).
	StoppedBy string
	// OutputClosed: the server's stdout ended while its process still
	// ran. It counts as gone (AlreadyExited), though it exited only when
	// let go, and Status is that exit's.
	OutputClosed bool
	// process is false for a URL target: there was nothing to stop.
	process bool
}

// Timed reports whether After was measured: a process was stopped that
// had not exited on its own.
func (r ExitReport) Timed() bool { return r.process && !r.AlreadyExited }

// Stop shuts the process down the way a host does: close stdin and wait
// grace for it to exit, then SIGTERM the whole process group and wait
// grace again, then SIGKILL. Nothing of the group survives it. It leaves
// Stdout and Stderr open for the caller to drain.
func (p *Process) Stop(grace time.Duration) ExitReport {
	return p.stop(grace, func() { _ = p.Stdin.Close() })
}

// stop is Stop with the closing of stdin left to closeInput, for a caller
// that writes to stdin itself (transport.Stdio refuses sends after it).
func (p *Process) stop(grace time.Duration, closeInput func()) ExitReport {
	// Its orphans stay its own until they are reported, below: another
	// server stopping meanwhile must not take them for its own.
	defer p.stopOnce.Do(func() { stopped(p) })
	r := ExitReport{process: true}
	// Whether it had exited is decided before stdin closes: a server that
	// exits at once on EOF did not exit early.
	select {
	case <-p.exited:
		r.AlreadyExited = true
	default:
	}
	// The clock starts as stdin starts closing: a server that exits on
	// EOF can be gone before the close call returns on a loaded machine.
	closedAt := time.Now()
	closeInput()
	pgid := p.Pid()
	if !r.AlreadyExited {
		for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
			wait := grace
			if sig != 0 {
				_ = p.signal(sig, fmt.Sprintf("to stop it, after stdin closed and %v passed", grace))
				r.Signal = sigName(sig)
			}
			if sig == syscall.SIGKILL {
				wait = KillWait
			}
			if p.Wait(wait) {
				break
			}
		}
		if at := p.ExitedAt(); !at.IsZero() {
			r.After = max(at.Sub(closedAt), 0)
		}
	}
	// Grandchildren may hold on after the leader went, in its group. When
	// the group was signalled they are dying with it; otherwise they were
	// left behind, which is worth reporting.
	// Members that have exited but whose parent is gone are zombies of
	// ours (we are their subreaper): reaped, they no longer count.
	reapZombies()
	if groupAlive(pgid) {
		// Left behind only if nobody signalled the group: after a crash
		// (Kill) its members are still dying, not left.
		p.mu.Lock()
		signalled := p.sent != 0
		p.mu.Unlock()
		r.Leftover = r.Signal == "" && !signalled
		_ = signalGroup(pgid, syscall.SIGKILL)
		for i := 0; i < 50 && groupAlive(pgid); i++ {
			time.Sleep(10 * time.Millisecond)
			reapZombies()
		}
	}
	// Descendants that left the group outlive every signal to it. Once
	// the leader is gone they are orphans, and reparent to the probe.
	// Whose orphan one is cannot be told, so while another server runs
	// (bench --vs) they are left to the last server's stop: killing a
	// daemon a running server relies on would change what is measured.
	// A server whose environment holds a marker of its own (survey's
	// private TMPDIR) is told apart: its orphans go with it.
	if !otherServersRun(p) {
		r.Escaped = reapOrphans(p.marker)
	} else {
		r.Escaped = reapMarked(p.marker)
	}
	r.Status = p.ExitStatus()
	r.StoppedBy = p.StoppedBy()
	return r
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return s.String()
}
