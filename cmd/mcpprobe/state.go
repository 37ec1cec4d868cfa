package main

import (
	"io"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/netguard"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
)

// runState is one run of mcpprobe: its streams, the secrets its targets
// were given, the outputs it failed to write, how it was interrupted, its
// version and how it reads the environment. main builds one from the
// process; a test builds one with fake streams and runs the app in
// process. Every command is built by a method of it and reads its state
// from it, never from a package variable, so two runs in one process
// share nothing.
type runState struct {
	stdin          io.Reader
	stdout, stderr io.Writer // as given: the proxy relays the server's bytes through them unchanged
	errw           io.Writer // stderr with every secret hidden: what everything but the proxy writes to
	version        string
	lookupEnv      func(string) (string, bool)
	environ        func() []string

	// args is the command line as given, so that a usage error can quote
	// it back corrected (the forgotten "--"); tail is what followed its
	// first "--", which urfave/cli drops (diff A -- B needs to know).
	args   []string
	tail   []string
	dashed bool
	// pruned: the app was built with the command args name alone
	// (appFor).
	pruned bool

	secrets secretSet
	outputs outputState
	// classify, set by tests, replaces netguard's classifier of the
	// addresses the OAuth client and the audit fetch from: a loopback
	// stand-in is declared a public target or an internal service.
	classify func(netip.AddrPort) netguard.Class
	intr     interruptState
	// launched collects what the launcher found when it let this run's
	// servers go; another run in the process has its own.
	launched *launch.Run

	// progress is the run's one progress line on stderr, made by the
	// first part of the command that reports to it.
	progressMu sync.Mutex
	progress   *terminal.Progress
}

// newRunState is the run of the process: its own streams and environment.
func newRunState(stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool), environ func() []string) *runState {
	rs := &runState{stdin: stdin, stdout: stdout, stderr: stderr, version: version, lookupEnv: lookupEnv, environ: environ,
		launched: &launch.Run{}}
	rs.errw = &redactingWriter{w: stderr, secrets: &rs.secrets}
	return rs
}

// processRun is the run of this process.
func processRun() *runState {
	return newRunState(os.Stdin, os.Stdout, os.Stderr, os.LookupEnv, os.Environ)
}

// getenv is the variable's value, or "".
func (rs *runState) getenv(name string) string {
	v, _ := rs.lookupEnv(name)
	return v
}

// secretSet holds every secret any target of this run was given: whatever
// is printed or written, by any command, is redacted with all of them.
type secretSet struct {
	mu      sync.Mutex
	secrets []string
	// r is the redactor of secrets, made again only when one is added:
	// stderr asks for it on every write.
	r *transport.Redactor
}

func (s *secretSet) add(v []string) {
	s.mu.Lock()
	s.secrets = append(s.secrets, v...)
	s.r = nil
	s.mu.Unlock()
}

// redactor hides every secret known so far.
func (s *secretSet) redactor() *transport.Redactor {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil {
		s.r = transport.NewRedactor(s.secrets)
	}
	return s.r
}

// redactor hides every secret of the run known so far.
func (rs *runState) redactor() *transport.Redactor { return rs.secrets.redactor() }

// interruptState is the run's state once a signal came: which one, and
// whether the command had printed its output by then.
type interruptState struct {
	signal  atomic.Value // string: "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT" or "SIGPIPE"
	emitted atomic.Bool
	command atomic.Value // string: the command running
	// For the failure envelope of a --json run that printed nothing.
	leaf     atomic.Pointer[cli.Command] // the command running
	target   atomic.Value                // string: the target last resolved
	printing atomic.Bool                 // stdout is taken: by emit, or by the failure envelope
}

// interruptedBy is the signal's name ("SIGINT", …) once the run was
// interrupted.
func (rs *runState) interruptedBy() string {
	s, _ := rs.intr.signal.Load().(string)
	return s
}

// running is the command the run is in, or "".
func (rs *runState) running() string {
	c, _ := rs.intr.command.Load().(string)
	return c
}
