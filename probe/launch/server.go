package launch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Options say how to start a target and how to let it go.
type Options struct {
	// Grace is how long a process gets to exit after its stdin closes,
	// and again after SIGTERM, before the next step (default 2 s).
	Grace time.Duration
	// MaxLine bounds one stdout line, or one HTTP body or SSE event
	// (transport.DefaultMaxLine if 0).
	MaxLine int
	// Trace records every frame; nil starts a fresh one at Start, so that
	// its times count from the spawn.
	Trace *transport.Trace
	// Record, when Trace is nil, gives each Start its trace: a command that
	// starts several servers streams every one of them to one --trace
	// file, each server a numbered connection with a trace of its own.
	Record *transport.Recorder

	// MaxBytes bounds everything the server may send in one connection:
	// stdout and stderr, or HTTP bodies (DefaultMaxBytes if 0, none if
	// negative). Past it the server is killed (its session dropped), and
	// what waits on it fails with transport.ErrTooMuch.
	MaxBytes int64
	// KeepBytes bounds the bytes of the server's frames held in memory
	// (DefaultKeepBytes if 0, never more than MaxBytes); past it frames
	// are counted and streamed to --trace, not held.
	KeepBytes int64

	// For URL targets.
	Mode      string // "auto" (or ""), "streamable" or "sse"; a target of kind sse forces sse
	Insecure  bool   // skip TLS verification
	Timeout   time.Duration
	UserAgent string
	// Bearer gives each request to the URL's origin its OAuth token
	// (probe/oauth, set by dial).
	Bearer transport.Bearer

	// Run collects the findings made when a server is let go, for the
	// command to report whatever analysis it runs; nil keeps them only on
	// the server (Server.Findings).
	Run *Run
}

// DefaultGrace is the grace period when Options.Grace is 0.
const DefaultGrace = 2 * time.Second

// DefaultMaxBytes bounds what one server may send in one connection. A
// tools/list of a large server is a few hundred KiB, a whole session
// rarely a few MiB: 256 MiB is room for any honest server and stops a
// flood well before it costs the machine.
const DefaultMaxBytes = 256 << 20

// DefaultKeepBytes bounds what of one connection is held in memory: its
// pages, events, notifications, noise and stderr. The largest honest
// tools/list is a few hundred KiB; rendering a capture copies it a few
// times over, so this is what bounds the probe's peak.
const DefaultKeepBytes = 32 << 20

// StderrSettle bounds the wait for the last stderr lines of a process that
// has exited: a grandchild outside the group may hold the pipe open.
const StderrSettle = 500 * time.Millisecond

// NotStartedError is a target that could not be started, in the three
// parts a user-facing message needs: what happened, what was received
// (nothing, and why nothing) and what to try. Err is the cause (a
// *StartError for a command that could not run).
type NotStartedError struct {
	What, Received, Try string
	Err                 error
}

func (e *NotStartedError) Error() string { return e.What }
func (e *NotStartedError) Unwrap() error { return e.Err }

// Server is a started target: a message stream to it and, for a command,
// the process tree behind it.
type Server struct {
	target Target
	opts   Options
	trace  *transport.Trace

	proc   *Process          // nil for a URL
	stdio  *transport.Stdio  // nil for a URL
	http   *transport.HTTP   // nil for a command
	replay *transport.Replay // a recorded trace played back

	stopOnce sync.Once
	stopped  chan struct{}
	exit     ExitReport
	closing  transport.HTTPClose

	foundMu sync.Mutex
	found   []findings.Finding // made when it was let go
}

// Start starts t: a command in a process group of its own, framed as
// stdio, or an HTTP session (nothing is sent until the first message). A
// failure is a *NotStartedError saying what happened, what was received
// and what to try; for a command that could not run it wraps a
// *StartError. An interrupted run or a done ctx is returned as it is.
// ctx only bounds the start: the server runs until Stop or
// Kill, which the caller must call.
func Start(ctx context.Context, t Target, o Options) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	frames := t.Frames
	if t.Kind == "replay" && t.tape != nil {
		var err error
		if frames, err = t.tape.take(); err != nil {
			return nil, &NotStartedError{What: err.Error(), Received: "nothing: a replay has no more connections to play",
				Err: err, Try: "record the trace again with the options the replay runs with"}
		}
	}
	switch {
	case o.MaxBytes == 0:
		o.MaxBytes = DefaultMaxBytes
	case o.MaxBytes < 0:
		o.MaxBytes = 0
	}
	if o.KeepBytes <= 0 {
		o.KeepBytes = DefaultKeepBytes
	}
	if o.MaxBytes > 0 && o.KeepBytes > o.MaxBytes {
		o.KeepBytes = o.MaxBytes
	}
	if o.Trace == nil {
		if o.Record != nil {
			o.Trace = o.Record.Trace(time.Now())
		} else {
			o.Trace = transport.NewTrace(time.Now())
		}
	}
	o.Trace.Keep(o.KeepBytes)
	s := &Server{target: t, opts: o, trace: o.Trace, stopped: make(chan struct{})}
	if err := registerServer(s); err != nil {
		return nil, err
	}
	if t.Kind == "replay" {
		if t.Timed {
			s.replay = transport.NewTimedReplay(frames, o.Trace)
		} else {
			s.replay = transport.NewReplay(frames, o.Trace)
		}
		return s, nil
	}
	if t.Kind == "stdio" || t.Kind == "" {
		p, err := StartProcess(t)
		if err != nil {
			unregisterServer(s)
			var ie *InterruptedError
			if errors.As(err, &ie) {
				return nil, err
			}
			fe := &NotStartedError{What: err.Error(), Received: "nothing: the process never ran", Err: err}
			var se *StartError
			if errors.As(err, &se) {
				fe.What, fe.Try = se.Headline(), se.Hint()
			}
			return nil, fe
		}
		s.proc = p
		why := fmt.Sprintf("because it wrote more than %d bytes (--max-bytes)", o.MaxBytes)
		s.stdio = transport.NewStdio(p.Stdin, p.Stdout, p.Stderr, transport.StdioOptions{MaxLine: o.MaxLine, Trace: o.Trace,
			MaxBytes: o.MaxBytes, OnOverflow: func() { p.KillFor(why) }})
		return s, nil
	}
	mode := o.Mode
	if mode == "" {
		mode = "auto"
	}
	if t.Kind == "sse" && mode == "auto" {
		mode = "sse"
	}
	conn, err := transport.NewHTTP(transport.HTTPOptions{
		URL: t.URL, Headers: t.Headers, Mode: mode, Insecure: o.Insecure,
		MaxMessage: o.MaxLine, Timeout: o.Timeout, Trace: o.Trace, UserAgent: o.UserAgent,
		MaxBytes: o.MaxBytes, Bearer: o.Bearer,
	})
	if err != nil {
		unregisterServer(s)
		return nil, &NotStartedError{What: err.Error(), Received: "nothing: no request was sent", Err: err, Try: "give a URL such as https://host/mcp"}
	}
	s.http = conn
	return s, nil
}

// Conn is the message stream to the server: a *transport.Stdio or a
// *transport.HTTP.
func (s *Server) Conn() transport.Conn {
	if s.stdio != nil {
		return s.stdio
	}
	if s.replay != nil {
		return s.replay
	}
	return s.http
}

// Target is what was started.
func (s *Server) Target() Target { return s.target }

// Trace is the record of every frame, its times counted from the start.
func (s *Server) Trace() *transport.Trace { return s.trace }

// Stdio is the stdio stream of a command, nil for a URL.
func (s *Server) Stdio() *transport.Stdio { return s.stdio }

// HTTP is the HTTP session of a URL, nil for a command.
func (s *Server) HTTP() *transport.HTTP { return s.http }

// Process is the process of a command, nil for a URL.
func (s *Server) Process() *Process { return s.proc }

// Replayed reports whether the server is a recorded trace played back:
// it has no process or HTTP exchange to judge.
func (s *Server) Replayed() bool { return s.replay != nil }

// Grace is the grace period the server is let go with (Options.Grace,
// defaulted).
func (s *Server) Grace() time.Duration { return s.opts.Grace }

// Stopped is Stop's report once Stop has run, and whether it has.
func (s *Server) Stopped() (ExitReport, bool) {
	if !s.isStopped() {
		return ExitReport{}, false
	}
	return s.exit, true
}

// Closing is how a URL's session ended (its DELETE), once stopped.
func (s *Server) Closing() transport.HTTPClose { return s.closing }

// Findings are what the launcher found when it let the server go:
// processes that escaped its group, a server past --max-bytes.
func (s *Server) Findings() []findings.Finding {
	s.foundMu.Lock()
	defer s.foundMu.Unlock()
	return append([]findings.Finding(nil), s.found...)
}

// note records a finding about s, for its probe's capture and its run.
func (s *Server) note(f findings.Finding) {
	s.foundMu.Lock()
	s.found = append(s.found, f)
	s.foundMu.Unlock()
	s.opts.Run.add(f)
}

// FirstByte is when the server's first byte arrived, 0 if none yet.
func (s *Server) FirstByte() time.Duration {
	switch {
	case s.stdio != nil:
		return s.stdio.FirstByte()
	case s.http != nil:
		return s.http.FirstByte()
	}
	return 0
}

// Kill ends the server at once, as a crash would: SIGKILL to a command's
// whole process group; a URL's session is dropped. Stop must still be
// called to reap it.
func (s *Server) Kill() {
	if s.proc != nil {
		s.proc.Kill()
		return
	}
	s.Stop()
}

// Terminate sends a command SIGTERM, stdin still open, and waits up to
// grace: it returns the time to exit, and false if the server outlived
// grace (or is a URL, which has no process).
func (s *Server) Terminate(grace time.Duration) (time.Duration, bool) {
	if s.proc == nil {
		return 0, false
	}
	return s.proc.Terminate(grace)
}

// Stop lets the server go the way a host does. A command: close stdin,
// wait Grace, SIGTERM its group, wait Grace, SIGKILL; whatever of its
// group is left is killed, and its output is drained for a bounded time.
// A URL: the session is ended (DELETE where there is one). Stop may be
// called more than once; it returns the same report.
func (s *Server) Stop() ExitReport {
	s.stopOnce.Do(func() {
		defer close(s.stopped)
		defer unregisterServer(s)
		if s.replay != nil {
			s.replay.Close()
			return
		}
		if s.proc == nil {
			s.closing = s.http.Close()
			if s.http.Overflowed() {
				s.note(findings.New(findings.MaxBytes, "%s: its responses came to more than %d bytes (--max-bytes); mcpprobe dropped the session there", s.target.Display(), s.opts.MaxBytes))
			}
			return
		}
		// A server whose stdin a write found closed is exiting: give its
		// exit a moment to be seen, or a loaded machine would report a
		// server that left on its own as one we stopped.
		if s.stdio.PeerGone() && !s.stdio.OutputEnded() {
			s.proc.Wait(min(s.opts.Grace, 500*time.Millisecond))
		}
		// A server that closed its stdout before we let it go counts as
		// gone, even if its process lingers. Its stdout ends as it exits:
		// give the exit a moment to be seen, or one that exited would be
		// told apart from one that lingers by a race.
		ended := s.stdio.OutputEnded()
		if ended {
			s.proc.Wait(min(s.opts.Grace, 200*time.Millisecond))
		}
		r := s.proc.stop(s.opts.Grace, s.stdio.CloseInput)
		r.OutputClosed = ended && !r.AlreadyExited
		r.AlreadyExited = r.AlreadyExited || ended
		s.stdio.CloseOutput(StderrSettle)
		s.exit = r
		if s.stdio.Overflowed() {
			s.note(findings.New(findings.MaxBytes, "%s wrote more than %d bytes on stdout and stderr (--max-bytes); mcpprobe killed it there and kept what came before", s.target.Display(), s.opts.MaxBytes))
		}
		if len(r.Escaped) > 0 && Interrupted() == "" {
			s.note(findings.New(findings.EscapedProcesses, "%s started %s, which left its process group and outlived it; a host that stops the server leaves %s running. mcpprobe killed %s",
				s.target.Display(), escapedProcesses(r.Escaped), pronoun(len(r.Escaped), "it", "them"), pronoun(len(r.Escaped), "it", "them")))
		}
	})
	return s.exit
}

// Close is Stop, for the io.Closer shape.
func (s *Server) Close() error {
	s.Stop()
	return nil
}

func (s *Server) isStopped() bool {
	select {
	case <-s.stopped:
		return true
	default:
		return false
	}
}

// Phase says what the server was doing, for a message about a run that
// stopped: which request it had not answered yet, and for how long.
func (s *Server) Phase() string {
	name := s.target.Display()
	if s.isStopped() {
		return ""
	}
	frames := s.trace.Tail(256)
	answered := map[string]bool{}
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i]
		switch f.Dir {
		case transport.DirRecv:
			if id := gjson.GetBytes(f.Raw, "id"); id.Exists() && !gjson.GetBytes(f.Raw, "method").Exists() {
				answered[id.Raw] = true
			}
		case transport.DirSend:
			m := gjson.ParseBytes(f.Raw)
			method, id := m.Get("method"), m.Get("id")
			if !method.Exists() || !id.Exists() {
				continue
			}
			if answered[id.Raw] {
				return fmt.Sprintf("%s had answered %s", name, method.String())
			}
			return fmt.Sprintf("%s had not yet answered %s (sent %v before)", name, method.String(),
				(s.trace.Since() - f.T).Round(time.Millisecond))
		}
	}
	return name + " had been sent nothing yet"
}

func pronoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// escapedProcesses names what escaped by program, sorted, without pids:
// the finding goes into reports, which must read the same on every run.
// "a process (sleep)", "3 processes (node, sleep, sleep)".
func escapedProcesses(escaped []string) string {
	names := make([]string, 0, len(escaped))
	for _, e := range escaped {
		name := e
		if i := strings.Index(e, " ("); i >= 0 && strings.HasSuffix(e, ")") {
			name = e[i+2 : len(e)-1]
		}
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 1 {
		return "a process (" + names[0] + ")"
	}
	return strconv.Itoa(len(names)) + " processes (" + strings.Join(names, ", ") + ")"
}
