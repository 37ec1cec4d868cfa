package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// StdioOptions says how to start a stdio server.
type StdioOptions struct {
	Command string
	Args    []string
	Env     []string // extra KEY=VALUE pairs on top of this process's environment
	Dir     string
	MaxLine int           // bound on one stdout line (DefaultMaxLine if 0)
	WriteTO time.Duration // bound on one write to the server's stdin
	// KeepBytes bounds how much noise and stderr the trace keeps in memory;
	// past it lines are still drained and counted, not stored.
	KeepBytes int
	Trace     *Trace
}

const (
	defaultWriteTO   = 5 * time.Second
	defaultKeepBytes = 4 << 20
	stderrLineMax    = 64 << 10
	stderrTailLines  = 20
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
	var hint string
	switch {
	case errors.Is(e.Err, exec.ErrNotFound):
		hint = "it is not on PATH; give a path (./server) or install it"
	case errors.Is(e.Err, os.ErrPermission):
		hint = "it is not executable: chmod +x it, or run it through its interpreter (-- node server.mjs)"
	case errors.Is(e.Err, os.ErrNotExist):
		hint = "no such file; check the path and the working directory"
	default:
		hint = "check the command and its working directory"
	}
	return hint
}

func (e *StartError) Unwrap() error { return e.Err }

// Stdio is a server running as a child process, speaking newline-delimited
// JSON-RPC on stdin and stdout. It runs in a process group of its own so
// that it and everything it spawned can be stopped together.
type Stdio struct {
	opts  StdioOptions
	trace *Trace
	cmd   *exec.Cmd

	stdin          *os.File
	stdout, stderr *os.File
	writeMu        sync.Mutex
	stdinClosed    bool

	msgs     chan Message
	problems chan error
	readErr  error

	exited   chan struct{}
	waitErr  error
	exitedAt time.Duration

	mu          sync.Mutex
	firstByte   time.Duration // 0 until the first stdout byte
	stdoutEnded bool          // the server closed its stdout
	stderrTail  []string
	kept        int
	noiseLines  int
	stderrLines int
	dropped     int
	readersDone sync.WaitGroup
}

// StartStdio spawns the server and starts draining its output.
func StartStdio(o StdioOptions) (*Stdio, error) {
	if o.Trace == nil {
		o.Trace = NewTrace(time.Now())
	}
	if o.WriteTO <= 0 {
		o.WriteTO = defaultWriteTO
	}
	if o.KeepBytes <= 0 {
		o.KeepBytes = defaultKeepBytes
	}
	path, err := exec.LookPath(o.Command)
	if err != nil {
		return nil, &StartError{Command: o.Command, Err: err}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(path, o.Args...)
	cmd.Args[0] = o.Command
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The child has its own copies; ours must go so EOF can reach us.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, &StartError{Command: o.Command, Err: err}
	}
	s := &Stdio{
		opts: o, trace: o.Trace, cmd: cmd,
		stdin: inW, stdout: outR, stderr: errR,
		msgs:     make(chan Message, 64),
		problems: make(chan error, 16),
		exited:   make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		s.exitedAt = s.trace.Since()
		close(s.exited)
	}()
	s.readersDone.Add(2)
	go s.readStdout()
	go s.readStderr()
	return s, nil
}

func (s *Stdio) Trace() *Trace            { return s.trace }
func (s *Stdio) Messages() <-chan Message { return s.msgs }
func (s *Stdio) Problems() <-chan error   { return s.problems }

// Err says why the message stream ended: nil for a clean EOF.
func (s *Stdio) Err() error { return s.readErr }

// Pid is the server's process id, which is also its process group id.
func (s *Stdio) Pid() int { return s.cmd.Process.Pid }

// Exited is closed once the server process has exited and been reaped.
func (s *Stdio) Exited() <-chan struct{} { return s.exited }

// ExitStatus describes how the process ended; only valid after Exited.
func (s *Stdio) ExitStatus() string {
	select {
	case <-s.exited:
	default:
		return "still running"
	}
	return s.cmd.ProcessState.String()
}

// FirstByte is when the first byte arrived on stdout, 0 if none yet.
func (s *Stdio) FirstByte() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstByte
}

// StderrTail returns the last lines the server wrote on stderr.
func (s *Stdio) StderrTail() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.stderrTail...)
}

// Counts returns how many noise and stderr lines were seen, and how many of
// them were past the keep budget and so not stored.
func (s *Stdio) Counts() (noise, stderr, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.noiseLines, s.stderrLines, s.dropped
}

// Send writes one message and its newline.
func (s *Stdio) Send(raw []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.stdinClosed {
		return errors.New("stdin already closed")
	}
	s.trace.Add(DirSend, raw)
	buf := make([]byte, 0, len(raw)+1)
	buf = append(append(buf, raw...), '\n')
	_ = s.stdin.SetWriteDeadline(time.Now().Add(s.opts.WriteTO))
	if _, err := s.stdin.Write(buf); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			return fmt.Errorf("%w: the server closed its stdin", ErrPeerGone)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("writing to the server's stdin blocked for %v: it is not reading its input", s.opts.WriteTO)
		}
		return fmt.Errorf("writing to the server's stdin: %w", err)
	}
	return nil
}

func (s *Stdio) keep(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept+n > s.opts.KeepBytes {
		s.dropped++
		return false
	}
	s.kept += n
	return true
}

func (s *Stdio) readStdout() {
	defer s.readersDone.Done()
	defer close(s.msgs)
	defer func() {
		s.mu.Lock()
		s.stdoutEnded = true
		s.mu.Unlock()
	}()
	lr := NewLineReader(firstByteReader{s}, s.opts.MaxLine)
	for {
		l, err := lr.Next()
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
			s.readErr = err
		}
		if l.Len > 0 || l.Cut || (err == nil && !l.EOF) {
			s.handleLine(l)
		}
		if err != nil || l.EOF {
			return
		}
	}
}

func (s *Stdio) handleLine(l Line) {
	f := Frame{Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF}
	switch {
	case l.Cut:
		f.Dir = DirNoise
		f = s.trace.AddFrame(f)
		s.countNoise()
		s.problem(fmt.Errorf("%w: a stdout line of %d bytes exceeded the limit of %d bytes (frame %d); raise it with --max-line", ErrLineTooLong, l.Len, s.limit(), f.Seq))
	case IsJSONRPC(l.Bytes):
		f.Dir = DirRecv
		f = s.trace.AddFrame(f)
		s.msgs <- Message{Raw: f.Raw, Seq: f.Seq, T: f.T}
	default:
		s.countNoise()
		glued := GluedMessage(l.Bytes)
		if glued < 0 && !s.keep(len(l.Bytes)) {
			return
		}
		f.Dir = DirNoise
		f = s.trace.AddFrame(f)
		if glued >= 0 {
			s.msgs <- Message{Raw: f.Raw[glued:], Seq: f.Seq, T: f.T, Recovered: true}
		}
	}
}

func (s *Stdio) limit() int {
	if s.opts.MaxLine > 0 {
		return s.opts.MaxLine
	}
	return DefaultMaxLine
}

func (s *Stdio) countNoise() {
	s.mu.Lock()
	s.noiseLines++
	s.mu.Unlock()
}

func (s *Stdio) problem(err error) {
	select {
	case s.problems <- err:
	default: // the session has enough to go on; never block the reader
	}
}

func (s *Stdio) readStderr() {
	defer s.readersDone.Done()
	lr := NewLineReader(s.stderr, stderrLineMax)
	for {
		l, err := lr.Next()
		if l.Len > 0 || (err == nil && !l.EOF) {
			s.mu.Lock()
			s.stderrLines++
			s.stderrTail = append(s.stderrTail, string(l.Bytes))
			if len(s.stderrTail) > stderrTailLines {
				s.stderrTail = s.stderrTail[1:]
			}
			s.mu.Unlock()
			if s.keep(len(l.Bytes)) {
				s.trace.AddFrame(Frame{Dir: DirStderr, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			}
		}
		if err != nil || l.EOF {
			return
		}
	}
}

type firstByteReader struct{ s *Stdio }

func (r firstByteReader) Read(p []byte) (int, error) {
	n, err := r.s.stdout.Read(p)
	if n > 0 {
		r.s.mu.Lock()
		if r.s.firstByte == 0 {
			r.s.firstByte = r.s.trace.Since()
		}
		r.s.mu.Unlock()
	}
	return n, err
}

// ExitReport says how the server went away when the probe let it go.
type ExitReport struct {
	// AlreadyExited: the server was gone (its process, or at least its
	// stdout) before its stdin was closed.
	AlreadyExited bool
	// After is the time from closing stdin to the process exiting.
	After time.Duration
	// Signal is the strongest signal the server needed: "", "SIGTERM" or "SIGKILL".
	Signal string
	Status string // as the OS reported it, e.g. "exit status 0"
	// Leftover: processes of the server's group were still alive after it
	// exited, and were killed.
	Leftover bool
}

// Close shuts the server down the way a host does: close stdin and wait
// grace for it to exit, then SIGTERM the whole process group and wait
// grace again, then SIGKILL. Nothing of the group survives it.
func (s *Stdio) Close(grace time.Duration) ExitReport {
	var r ExitReport
	s.mu.Lock()
	r.AlreadyExited = s.stdoutEnded
	s.mu.Unlock()
	procExited := false
	select {
	case <-s.exited:
		procExited, r.AlreadyExited = true, true
	default:
	}
	s.writeMu.Lock()
	s.stdinClosed = true
	s.stdin.Close()
	s.writeMu.Unlock()
	closedAt := s.trace.Since()
	pgid := s.cmd.Process.Pid
	if !procExited {
		for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
			if sig != 0 {
				_ = syscall.Kill(-pgid, sig)
				r.Signal = sigName(sig)
			}
			wait := grace
			if sig == syscall.SIGKILL {
				wait = 5 * time.Second // the kernel does not refuse SIGKILL
			}
			if WaitFor(s.exited, wait) {
				break
			}
		}
		r.After = s.exitedAt - closedAt
		if r.After < 0 {
			r.After = 0
		}
	}
	// Grandchildren may hold on after the leader went, in its group. When
	// the group was signalled they are dying with it; otherwise they were
	// left behind, which is worth reporting.
	if groupAlive(pgid) {
		r.Leftover = r.Signal == ""
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for i := 0; i < 50 && groupAlive(pgid); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	// A process outside the group may still hold our pipes open: closing
	// our ends unblocks the readers whatever it does.
	done := make(chan struct{})
	go func() { s.readersDone.Wait(); close(done) }()
	if !WaitFor(done, 500*time.Millisecond) {
		s.stdout.Close()
		s.stderr.Close()
		<-done
	} else {
		s.stdout.Close()
		s.stderr.Close()
	}
	r.Status = s.ExitStatus()
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

// WaitFor waits at most d for ch to close, and reports whether it did.
func WaitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// groupAlive reports whether a process of group pgid is still running.
// Zombies do not count: in a container whose init does not reap, a killed
// grandchild lingers as one, harmless, and kill(-pgid, 0) would still see it.
func groupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name, which may itself hold spaces
		// and parentheses: state ppid pgrp ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// Kill ends the server's whole process group at once, as a crash would.
func (s *Stdio) Kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// Terminate sends SIGTERM to the process group, stdin still open, and
// waits up to grace for the exit: how the server takes a host's SIGTERM.
// It returns the time to exit, and false if the server outlived grace.
func (s *Stdio) Terminate(grace time.Duration) (time.Duration, bool) {
	sent := s.trace.Since()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	if !WaitFor(s.exited, grace) {
		return grace, false
	}
	return s.exitedAt - sent, true
}
