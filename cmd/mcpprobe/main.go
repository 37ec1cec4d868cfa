// Command mcpprobe shows what an MCP server really puts on the wire.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports"

	"github.com/urfave/cli/v3"
)

// version is set at build time with -ldflags "-X main.version=…"; a
// binary built without it reports the module version Go stamped in it.
var version = "dev"

func init() { version = buildVersion(version) }

// Exit codes, documented in the README.
const (
	exitOK       = 0
	exitGate     = 1 // a --fail-on gate failed
	exitUsage    = 2
	exitNoTarget = 3 // the target could not be probed
	// An interrupted run exits as a shell reports a process killed by
	// the signal: 128 + its number.
	exitHangup      = 129 // SIGHUP (the terminal closed, the ssh session dropped)
	exitInterrupted = 130 // SIGINT (Ctrl-C)
	exitQuit        = 131 // SIGQUIT (Ctrl-\)
	exitBrokenPipe  = 141 // SIGPIPE for mcpprobe's own stdout or stderr (| head, a host gone)
	exitTerminated  = 143 // SIGTERM
)

// stopSignals are the signals that end a run, each with its name and
// exit code. Each is caught, so that the servers' trees go with mcpprobe
// whichever ends it: left to Go's default, SIGHUP killed mcpprobe on the
// spot and SIGQUIT dumped its goroutines, both leaving every server and
// the daemons they started running.
var stopSignals = []struct {
	sig  os.Signal
	name string
	code int
}{
	{syscall.SIGHUP, "SIGHUP", exitHangup},
	{os.Interrupt, "SIGINT", exitInterrupted},
	{syscall.SIGQUIT, "SIGQUIT", exitQuit},
	{syscall.SIGTERM, "SIGTERM", exitTerminated},
	// Not caught as the others: see ownPipeBroken.
	{syscall.SIGPIPE, "SIGPIPE", exitBrokenPipe},
}

// interruptGrace is how long, from the signal, mcpprobe takes to end: the
// servers are killed at once (launch.Interrupt, itself bounded well below
// it), then the command has what is left to hand back what it gathered,
// and mcpprobe exits with or without it. Under a second, as a user
// pressing Ctrl-C expects.
const interruptGrace = 800 * time.Millisecond

// exitError carries an exit code and a message for the user.
type exitError struct {
	code int
	msg  string
	fail *reports.Failure // the message in parts, for --json; nil but for exit 3
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

// memoryLimit is the heap size past which the garbage collector works
// harder rather than let the heap double: what a server sends is bounded
// (--max-bytes, and 32 MiB kept per session), but rendering a capture
// that size copies it a few times, and the default pacing would let the
// process grow to twice its peak.
const memoryLimit = 320 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// interrupt is the run's state once a signal came: which one, and
// whether the command had printed its output by then.
var interrupt struct {
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
func interruptedBy() string {
	s, _ := interrupt.signal.Load().(string)
	return s
}

func run(args []string, stdout, stderr io.Writer) int {
	// Every child of mcpprobe comes from the launcher: whatever a server
	// starts and leaves behind reparents here, to be found and killed.
	_ = launch.EnableSubreaper()
	sigs := make(chan os.Signal, 2)
	for _, st := range stopSignals {
		if st.sig != syscall.SIGPIPE {
			signal.Notify(sigs, st.sig)
		}
	}
	defer signal.Stop(sigs)
	// Left to Go's default, a write to a closed stdout (mcpprobe … | head,
	// the host of a proxy gone) killed mcpprobe on the spot and left its
	// servers running. Caught, the write fails with EPIPE instead, and the
	// run ends as for any stop signal when the broken pipe is its own.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// stderr carries messages that quote servers: every secret is hidden
	// in it too. The proxy relays the server's stderr byte for byte, so
	// it gets the stream as it is.
	errw := &redactingWriter{w: stderr}
	ctx = context.WithValue(ctx, rawKey{}, rawStreams{stdout: stdout, stderr: stderr})
	app := newApp(stdout, errw)
	ctx = context.WithValue(ctx, argsKey{}, append([]string{}, args...))
	// Everything after the first "--" is a command and its arguments,
	// never our flags. urfave/cli drops the "--" itself, and diff needs to
	// know where it stood (diff A -- B), so the tail is kept aside. A shell
	// completion request keeps it: the library then offers nothing after
	// it, and nothing is run.
	completing := len(args) > 0 && args[len(args)-1] == "--generate-shell-completion"
	var tail []string
	for i, a := range args {
		if a == "--" && i > 0 && !completing {
			tail = append([]string{}, args[i+1:]...)
			ctx = context.WithValue(ctx, dashKey{}, tail)
			args = args[:i]
			break
		}
	}
	done := make(chan int, 1)
	go func() {
		err := app.Run(ctx, args)
		clearStatus(app)
		code := outputsOf(app).exitCode(finish(err, errw, app, args), errw, runningProxy())
		if interruptedBy() == "" {
			failureEnvelope(runFailure(app, err, code), tail)
		}
		done <- code
	}()
	var sig os.Signal
	for sig == nil {
		select {
		case code := <-done:
			return code
		case sig = <-sigs:
		case <-pipes:
			if ownPipeBroken() {
				sig = syscall.SIGPIPE
			}
		}
	}
	name, code := "SIGINT", exitInterrupted
	for _, st := range stopSignals {
		if sig == st.sig {
			name, code = st.name, st.code
		}
	}
	// Marked first, so that whatever the command makes of its servers
	// dying is not printed as their fault; then every wait is ended.
	deadline := time.Now().Add(interruptGrace)
	interrupt.signal.Store(name)
	cancel()
	// The kills are syscalls, quick however loaded the machine; still,
	// nothing here may hold mcpprobe past its deadline.
	killed := make(chan []string, 1)
	go func() { killed <- launch.Interrupt(name) }()
	var phases []string
	select {
	case phases = <-killed:
	case <-time.After(time.Until(deadline)):
	}
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
	case <-sigs: // a second signal, of any kind: at once
	}
	what := interruptWhat(name, phases)
	fail := interruptedFailure(name, "nothing: the run stopped before it had a result")
	fail.What = safe(what)
	enveloped := failureEnvelope(fail, tail)
	fmt.Fprintf(errw, "mcpprobe: %s\n", interruptMessage(what, enveloped))
	return code
}

// interruptWhat says that the run was interrupted, and where.
func interruptWhat(signal string, phases []string) string {
	cmd, _ := interrupt.command.Load().(string)
	msg := "interrupted by " + signal
	if cmd != "" {
		msg += " during " + cmd
	}
	switch len(phases) {
	case 0:
		msg += ", with no server running"
	default:
		msg += ": " + strings.Join(phases, "; ") + "; every server it started was stopped (process trees killed, HTTP sessions dropped)"
	}
	return msg
}

// interruptMessage is what, then what of the run was printed.
func interruptMessage(what string, enveloped bool) string {
	msg := what
	switch {
	case interrupt.emitted.Load():
		msg += "\nWhat is printed above was gathered before the interrupt and is partial."
	case enveloped:
		msg += "\nNo result was printed: the run stopped before it had one; the --json envelope says so in its error member."
	default:
		msg += "\nNothing was printed: the run stopped before it had a result."
	}
	return safe(msg)
}

// finish prints a command's error and returns its exit code. Once the run
// is interrupted it prints nothing: what a command makes of its servers
// being killed under it is not news, and never the server's fault.
func finish(err error, stderr io.Writer, app *cli.Command, args []string) int {
	if interruptedBy() != "" {
		return exitInterrupted
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "mcpprobe: %s\n", safe(ee.msg))
		}
		if ee.code == exitUsage {
			fmt.Fprintln(stderr, helpPointer(app, args))
		}
		return ee.code
	}
	// Anything else urfave/cli rejects is a usage error too.
	fmt.Fprintf(stderr, "mcpprobe: %s\n%s\n", safe(err.Error()), helpPointer(app, args))
	return exitUsage
}

// redactingWriter hides every secret known so far in what passes through.
// A message is one Write (Fprintf), so a secret is never split between two.
type redactingWriter struct{ w io.Writer }

func (r *redactingWriter) Write(p []byte) (int, error) {
	b, _ := redactor().Bytes(p)
	if _, err := r.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

type rawKey struct{}

// rawStreams are stdout and stderr as given, for the proxy, which must
// relay the server's bytes unchanged.
type rawStreams struct{ stdout, stderr io.Writer }

func raw(ctx context.Context) rawStreams {
	r, _ := ctx.Value(rawKey{}).(rawStreams)
	return r
}

func newApp(stdout, stderr io.Writer) *cli.Command {
	app := &cli.Command{
		Name:    "mcpprobe",
		Usage:   "see what an MCP server puts on the wire, and what hosts do with it",
		Version: version,
		Writer:  stdout, ErrWriter: stderr,
		Flags:  globalFlags(),
		Action: rootAction,
		Commands: []*cli.Command{
			wireCommand(),
			reportCommand(),
			budgetCommand(),
			diffCommand(),
			snapshotCommand(),
			benchCommand(),
			faultsCommand(),
			proxyCommand(),
			malformedCommand(),
			callCommand(),
			readCommand(),
			promptCommand(),
			serversCommand(),
			surveyCommand(),
			helpCommand(),
			versionCommand(),
		},
		HideHelpCommand:                 true,
		EnableShellCompletion:           true,
		ConfigureShellCompletionCommand: configureCompletion,
		ExitErrHandler:                  func(context.Context, *cli.Command, error) {},
	}
	setUsageErrors(app)
	setUsageLines(app)
	return app
}

type dashKey struct{}

// afterDashes returns the arguments that followed "--", and whether there
// was one.
func afterDashes(ctx context.Context) ([]string, bool) {
	v, ok := ctx.Value(dashKey{}).([]string)
	return v, ok
}

// safe readies a message for the terminal: secrets hidden, and each line
// escaped, since messages quote what servers sent.
func safe(msg string) string {
	msg = redactor().String(msg)
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = reports.Escape(l)
	}
	return strings.Join(lines, "\n")
}
