package main

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
	"golang.org/x/term"
)

// screenFor is how text output will be seen: on a terminal, tables fit
// its width (COLUMNS, else the terminal's size) unless --wide, and
// severities and verdicts are coloured unless NO_COLOR, --no-color or
// TERM=dumb. Written to a file or a pipe, it is full width and plain.
func (rs *runState) screenFor(cmd *cli.Command, w io.Writer) *terminal.Screen {
	s := &terminal.Screen{W: w, Verbose: cmd.Bool("verbose")}
	out := cmd.Root().Writer
	if p := cmd.String("out"); (p != "" && p != "-") || !isTerminal(out) {
		return s
	}
	if !cmd.Bool("wide") {
		s.Width = termWidth(out, rs.getenv)
	}
	s.Color = !cmd.Bool("no-color") && rs.getenv("NO_COLOR") == "" && rs.getenv("TERM") != "dumb"
	return s
}

// termWidth is COLUMNS when it is a number, else the terminal's width, else
// 0 (no limit).
func termWidth(w io.Writer, getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// flush writes what was rendered on s into b, fitted to the screen.
func (rs *runState) flush(cmd *cli.Command, s *terminal.Screen, b *bytes.Buffer) error {
	return rs.write(cmd, cmd.Root().Writer, nil, terminal.Fit(b.Bytes(), s.Width))
}
