// Command mcpprobe shows what an MCP server really puts on the wire.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

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
)

// exitError carries an exit code and a message for the user.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app := newApp(stdout, stderr)
	ctx = context.WithValue(ctx, argsKey{}, append([]string{}, args...))
	// Everything after the first "--" is a command and its arguments,
	// never our flags. urfave/cli drops the "--" itself, and diff needs to
	// know where it stood (diff A -- B), so the tail is kept aside. A shell
	// completion request keeps it: the library then offers nothing after
	// it, and nothing is run.
	completing := len(args) > 0 && args[len(args)-1] == "--generate-shell-completion"
	for i, a := range args {
		if a == "--" && i > 0 && !completing {
			ctx = context.WithValue(ctx, dashKey{}, append([]string{}, args[i+1:]...))
			args = args[:i]
			break
		}
	}
	err := app.Run(ctx, args)
	clearStatus(app)
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
			serversCommand(),
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
