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
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"

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
func stopSignals() []stopSignal {
	return []stopSignal{
		{syscall.SIGHUP, "SIGHUP", exitHangup},
		{os.Interrupt, "SIGINT", exitInterrupted},
		{syscall.SIGQUIT, "SIGQUIT", exitQuit},
		{syscall.SIGTERM, "SIGTERM", exitTerminated},
		// Not caught as the others: see ownPipeBroken.
		{syscall.SIGPIPE, "SIGPIPE", exitBrokenPipe},
	}
}

// stopSignal is a signal that ends a run, its name and the exit code.
type stopSignal struct {
	sig  os.Signal
	name string
	code int
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
	fail *jsonout.Failure // the message in parts, for --json; nil but for exit 3
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
	os.Exit(processRun().run(os.Args))
}

// run runs the command line args and returns the exit code. A signal
// that ends the run ends it within interruptGrace, whatever the command
// is doing.
func (rs *runState) run(args []string) int {
	if len(args) == 2 && (args[1] == "--version" || args[1] == "-v") {
		// What the CLI library prints for it, without building the
		// command tree first (two thirds of this command's CPU).
		fmt.Fprintf(rs.stdout, "mcpprobe version %s\n", rs.version)
		return exitOK
	}
	// Every child of mcpprobe comes from the launcher: whatever a server
	// starts and leaves behind reparents here, to be found and killed.
	_ = launch.EnableSubreaper()
	sigs := make(chan os.Signal, 2)
	for _, st := range stopSignals() {
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
	done := make(chan int, 1)
	go func() { done <- rs.runApp(ctx, args) }()
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
	return rs.interrupted(sig, cancel, done, sigs)
}

// runApp runs the app on args to its exit code: its error said, its
// failed writes counted, and the failure envelope of a --json run that
// printed none.
func (rs *runState) runApp(ctx context.Context, args []string) int {
	return rs.runTree(ctx, args, rs.appFor)
}

// runTree is runApp with the app that tree builds for the command line
// (a test compares appFor's with the whole tree's).
func (rs *runState) runTree(ctx context.Context, args []string, tree func([]string) *cli.Command) int {
	rs.args = append([]string{}, args...)
	args = rs.splitDashes(args)
	app := tree(args)
	err := app.Run(ctx, args)
	rs.clearStatus()
	code := rs.exitCode(rs.finish(err, app, args))
	if rs.interruptedBy() == "" {
		rs.failureEnvelope(rs.runFailure(err, code))
	}
	return code
}

// splitDashes keeps aside everything after the first "--": a command and
// its arguments, never our flags. urfave/cli drops the "--" itself, and
// diff needs to know where it stood (diff A -- B). A shell completion
// request keeps it: the library then offers nothing after it, and
// nothing is run.
func (rs *runState) splitDashes(args []string) []string {
	if len(args) > 0 && args[len(args)-1] == "--generate-shell-completion" {
		return args
	}
	for i, a := range args {
		if a == "--" && i > 0 {
			rs.tail, rs.dashed = append([]string{}, args[i+1:]...), true
			return args[:i]
		}
	}
	return args
}

// interrupted ends a run a signal stopped: the servers killed at once,
// then what is left of interruptGrace for the command to hand back what
// it gathered, and the exit code of the signal.
func (rs *runState) interrupted(sig os.Signal, cancel func(), done <-chan int, sigs <-chan os.Signal) int {
	name, code := "SIGINT", exitInterrupted
	for _, st := range stopSignals() {
		if sig == st.sig {
			name, code = st.name, st.code
		}
	}
	// Marked first, so that whatever the command makes of its servers
	// dying is not printed as their fault; then every wait is ended.
	deadline := time.Now().Add(interruptGrace)
	rs.intr.signal.Store(name)
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
	what := rs.interruptWhat(name, phases)
	fail := rs.interruptedFailure(name, "nothing: the run stopped before it had a result")
	fail.What = rs.safe(what)
	enveloped := rs.failureEnvelope(fail)
	fmt.Fprintf(rs.errw, "mcpprobe: %s\n", rs.interruptMessage(what, enveloped))
	return code
}

// interruptWhat says that the run was interrupted, and where.
func (rs *runState) interruptWhat(signal string, phases []string) string {
	cmd := rs.running()
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
func (rs *runState) interruptMessage(what string, enveloped bool) string {
	msg := what
	switch {
	case rs.intr.emitted.Load():
		msg += "\nWhat is printed above was gathered before the interrupt and is partial."
	case enveloped:
		msg += "\nNo result was printed: the run stopped before it had one; the --json envelope says so in its error member."
	default:
		msg += "\nNothing was printed: the run stopped before it had a result."
	}
	return rs.safe(msg)
}

// finish prints a command's error and returns its exit code. Once the run
// is interrupted it prints nothing: what a command makes of its servers
// being killed under it is not news, and never the server's fault.
func (rs *runState) finish(err error, app *cli.Command, args []string) int {
	stderr := rs.errw
	if rs.interruptedBy() != "" {
		return exitInterrupted
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "mcpprobe: %s\n", rs.safe(ee.msg))
		}
		if ee.code == exitUsage {
			fmt.Fprintln(stderr, helpPointer(app, args))
		}
		return ee.code
	}
	// Anything else urfave/cli rejects is a usage error too.
	fmt.Fprintf(stderr, "mcpprobe: %s\n%s\n", rs.safe(err.Error()), helpPointer(app, args))
	return exitUsage
}

// redactingWriter hides every secret known so far in what passes through.
// A message is one Write (Fprintf), so a secret is never split between two.
type redactingWriter struct {
	w       io.Writer
	secrets *secretSet
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	b, _ := r.secrets.redactor().Bytes(p)
	if _, err := r.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// newApp is mcpprobe with every command: what help, the command docs and
// a usage error's advice read.
func (rs *runState) newApp() *cli.Command { return rs.app(rs.commands()) }

// appFor is the app that runs args. A command line that names a command
// first (mcpprobe wire …, as every command line that runs one does) gets
// mcpprobe with that command alone: urfave/cli sets up every command of
// the tree and each of its flags before it runs one, a fifth of a small
// `wire`'s CPU for the other eighteen. Anything else (help, version,
// shell completion, a flag or a word that is no command) gets the whole
// tree, and a usage error's advice reads the whole tree (fullTree).
func (rs *runState) appFor(args []string) *cli.Command {
	all := rs.commands()
	if len(args) < 2 || meta(args[1]) || slices.Contains(args, "--generate-shell-completion") {
		return rs.app(all)
	}
	for _, c := range all {
		if c.name == args[1] {
			rs.pruned = true
			return rs.app([]namedCommand{c})
		}
	}
	return rs.app(all)
}

// fullTree is the root of the whole command tree: cmd's own when the run
// built it, or one built now for a run that built only its command.
func (rs *runState) fullTree(cmd *cli.Command) *cli.Command {
	if !rs.pruned {
		return cmd.Root()
	}
	return rs.newApp()
}

// namedCommand is a command's name and how to build it: the name known
// without building it (TestCommandNames holds the two together).
type namedCommand struct {
	name  string
	build func() *cli.Command
}

// commands are mcpprobe's commands, in the order help lists them.
func (rs *runState) commands() []namedCommand {
	return []namedCommand{
		{"wire", rs.wireCommand},
		{"report", rs.reportCommand},
		{"budget", rs.budgetCommand},
		{"diff", rs.diffCommand},
		{"snapshot", rs.snapshotCommand},
		{"bench", rs.benchCommand},
		{"load", rs.loadCommand},
		{"faults", rs.faultsCommand},
		{"proxy", rs.proxyCommand},
		{"malformed", rs.malformedCommand},
		{"check", rs.checkCommand},
		{"auth", rs.authCommand},
		{"call", rs.callCommand},
		{"read", rs.readCommand},
		{"prompt", rs.promptCommand},
		{"servers", rs.serversCommand},
		{"hosts", rs.hostsCommand},
		{"survey", rs.surveyCommand},
		{"help", rs.helpCommand},
		{"version", rs.versionCommand},
	}
}

// app is mcpprobe with the commands given.
func (rs *runState) app(commands []namedCommand) *cli.Command {
	cmds := make([]*cli.Command, len(commands))
	for i, c := range commands {
		cmds[i] = c.build()
	}
	app := &cli.Command{
		Name:                            "mcpprobe",
		Usage:                           "see what an MCP server puts on the wire, and what hosts do with it",
		UsageText:                       "mcpprobe COMMAND [options] TARGET\nmcpprobe --config FILE    (its servers: mcpprobe servers --config FILE)",
		Version:                         rs.version,
		Writer:                          rs.stdout,
		ErrWriter:                       rs.errw,
		Flags:                           serversFlags(), // mcpprobe --config FILE is servers --config FILE
		Before:                          rootBefore,
		Action:                          rs.rootAction,
		Commands:                        cmds,
		HideHelpCommand:                 true,
		EnableShellCompletion:           true,
		ConfigureShellCompletionCommand: configureCompletion,
		ExitErrHandler:                  func(context.Context, *cli.Command, error) {},
	}
	rs.setUsageErrors(app)
	setUsageLines(app)
	return app
}

// afterDashes returns the arguments that followed "--", and whether there
// was one.
func (rs *runState) afterDashes() ([]string, bool) { return rs.tail, rs.dashed }

// safe readies a message for the terminal: secrets hidden, and each line
// escaped, since messages quote what servers sent.
func (rs *runState) safe(msg string) string {
	msg = rs.redactor().String(msg)
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = terminal.Escape(l)
	}
	return strings.Join(lines, "\n")
}
