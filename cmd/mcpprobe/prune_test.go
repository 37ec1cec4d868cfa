package main

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestCommandNames: the names appFor picks a command by are the names
// the commands are built with, and no command has an alias (an alias
// would be a word appFor does not know, and would get the whole tree).
func TestCommandNames(t *testing.T) {
	t.Parallel()
	rs := newRunState(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) (string, bool) { return "", false }, func() []string { return nil })
	for _, c := range rs.commands() {
		built := c.build()
		if built.Name != c.name {
			t.Errorf("command %q is built as %q", c.name, built.Name)
		}
		if len(built.Aliases) > 0 {
			t.Errorf("command %q has aliases %q", c.name, built.Aliases)
		}
	}
}

// TestOneCommandTreeAnswersAsTheWhole: a run that builds only the command
// it runs (appFor) prints what the whole tree prints, byte for byte, and
// exits the same: each command's help, and every usage error, whose
// advice reads the other commands' flags.
func TestOneCommandTreeAnswersAsTheWhole(t *testing.T) {
	t.Parallel()
	var lines [][]string
	for _, c := range testApp().Commands {
		lines = append(lines, []string{c.Name, "--help"}, []string{c.Name, "--bogus"},
			[]string{c.Name, "--json", "--timout", "1s"}, []string{c.Name, "--ref", "x", "--fail-on", "drift"},
			[]string{c.Name, "./no-such-server", "-banner"}, []string{c.Name, "--inherit-env", "--wide", "--jobs", "2"})
		for _, s := range c.Commands {
			lines = append(lines, []string{c.Name, s.Name, "--help"}, []string{c.Name, s.Name, "--timeout", "1s"})
		}
	}
	lines = append(lines, []string{"--help"}, []string{"help", "wire"}, []string{"wrie"}, []string{"--json", "wire"},
		[]string{"wire", "--json", "--", "./no-such-server", "-x"})
	for _, args := range lines {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			one, whole := runBoth(args)
			if one != whole {
				t.Errorf("one command's tree:\n%s\nthe whole tree:\n%s", one, whole)
			}
		})
	}
}

// runBoth runs args in process, once as main does and once with the whole
// tree, and returns each run's exit code and output.
func runBoth(args []string) (string, string) {
	run := func(whole bool) string {
		var out, errb bytes.Buffer
		rs := newRunState(strings.NewReader(""), &out, &errb, func(string) (string, bool) { return "", false }, func() []string { return nil })
		tree := rs.appFor
		if whole {
			tree = func([]string) *cli.Command { return rs.newApp() }
		}
		code := rs.runTree(context.Background(), append([]string{"mcpprobe"}, args...), tree)
		return "exit " + strconv.Itoa(code) + "\nstdout:\n" + out.String() + "\nstderr:\n" + errb.String()
	}
	return run(false), run(true)
}

// TestAppForBuildsOneCommand: a command line that names a command builds
// that command alone; help, version, completion and anything else build
// the whole tree.
func TestAppForBuildsOneCommand(t *testing.T) {
	t.Parallel()
	all := len(testApp().Commands)
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"mcpprobe", "wire", "./server"}, 1},
		{[]string{"mcpprobe", "survey", "merge", "a"}, 1},
		{[]string{"mcpprobe"}, all},
		{[]string{"mcpprobe", "help", "wire"}, all},
		{[]string{"mcpprobe", "version"}, all},
		{[]string{"mcpprobe", "--json", "wire"}, all},
		{[]string{"mcpprobe", "wrie"}, all},
		{[]string{"mcpprobe", "wire", "--generate-shell-completion"}, all},
	}
	for _, tc := range tests {
		rs := newRunState(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) (string, bool) { return "", false }, func() []string { return nil })
		app := rs.appFor(tc.args)
		if got := len(app.Commands); got != tc.want {
			t.Errorf("%q: %d commands, want %d", tc.args, got, tc.want)
		}
		if tc.want == 1 && !slices.ContainsFunc(app.Commands, func(c *cli.Command) bool { return c.Name == tc.args[1] }) {
			t.Errorf("%q: built %q", tc.args, app.Commands[0].Name)
		}
	}
}
