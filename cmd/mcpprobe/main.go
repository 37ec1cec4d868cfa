// Command mcpprobe shows what an MCP server really puts on the wire.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

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
	err := app.Run(ctx, args)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "mcpprobe: %s\n", ee.msg)
		}
		return ee.code
	}
	// Anything urfave/cli rejects (unknown flag, bad value) is a usage error.
	fmt.Fprintf(stderr, "mcpprobe: %v\nRun 'mcpprobe --help' for usage.\n", err)
	return exitUsage
}

func newApp(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:    "mcpprobe",
		Usage:   "see what an MCP server puts on the wire, and what hosts do with it",
		Version: version,
		Writer:  stdout, ErrWriter: stderr,
		Flags: globalFlags(),
		Commands: []*cli.Command{
			wireCommand(),
			reportCommand(),
			budgetCommand(),
		},
		HideHelpCommand: true,
		ExitErrHandler:  func(context.Context, *cli.Command, error) {},
	}
}
