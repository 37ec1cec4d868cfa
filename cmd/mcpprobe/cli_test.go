package main

// CLI scenarios run in process: the app built from its own run value
// (runInProcess: fake stdin, stdout and stderr, an environment of its
// own), no binary and no exec. Usage errors and help need no server, so
// they live here; what needs a server stays in the e2e tests.

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v3"
)

// checkUsage asserts exit 2, nothing on stdout, and on stderr one line
// holding what and the help pointer of command ("" for mcpprobe's).
func checkUsage(t *testing.T, r inProcess, command, what string) {
	t.Helper()
	if r.code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	pointer := "Run 'mcpprobe " + command + " --help' for usage."
	if command == "" {
		pointer = "Run 'mcpprobe --help' for usage."
	}
	if len(lines) != 2 || lines[1] != pointer {
		t.Fatalf("stderr is not one line and %q:\n%s", pointer, r.stderr)
	}
	if !strings.HasPrefix(lines[0], "mcpprobe: ") || !strings.Contains(lines[0], what) {
		t.Errorf("the message does not name %s: %s", what, lines[0])
	}
}

// TestUsageErrors: mistakes a new user makes get one line that names the
// mistake and the fix, the help pointer, exit 2, and never the help.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		command string // whose --help the pointer names; "" for mcpprobe's
		want    []string
	}{
		{"unknown flag", []string{"wire", "--bogus", "./server"}, "wire", []string{"unknown flag --bogus"}},
		{"typo of a flag", []string{"wire", "--timout", "5s", "./server"}, "wire", []string{"unknown flag --timout", "did you mean --timeout?"}},
		{"root flag unknown", []string{"--bogus"}, "", []string{"unknown flag --bogus"}},
		{"server flag without --", []string{"wire", "./server", "-banner"}, "wire",
			[]string{"unknown flag -banner", "goes after --: mcpprobe wire -- ./server -banner"}},
		{"server flag without --, ours kept before it", []string{"budget", "--json", "./server", "-banner", "-x"}, "budget",
			[]string{"mcpprobe budget --json -- ./server -banner -x"}},
		{"quoted command line", []string{"wire", "no-such-node ./server"}, "wire",
			[]string{`"no-such-node ./server" is not a file or a command`, "mcpprobe wire -- no-such-node ./server"}},
		{"bad duration", []string{"wire", "--timeout", "soon", "./server"}, "wire", []string{`--timeout "soon": want a duration such as 10s`}},
		{"negative duration, from the validator", []string{"wire", "--timeout", "-5s", "./server"}, "wire", []string{"--timeout -5s: want a duration above 0, such as 10s"}},
		{"zero count, from the validator", []string{"wire", "--max-line", "0", "./server"}, "wire", []string{"--max-line 0: want 1 or more"}},
		{"negative max-bytes", []string{"wire", "--max-bytes", "-1", "./server"}, "wire", []string{"--max-bytes -1: give a number of bytes, or 0 for no bound"}},
		{"unknown protocol", []string{"wire", "--protocol", "1999-01-01", "./server"}, "wire", []string{`--protocol "1999-01-01": mcpprobe speaks auto, `}},
		{"unknown transport", []string{"wire", "--transport", "pigeon", "http://127.0.0.1:9/mcp"}, "wire", []string{`--transport "pigeon": want auto, streamable or sse`}},
		{"discover longer than startup", []string{"wire", "--discover-timeout", "40s", "./server"}, "wire", []string{"--discover-timeout 40s is longer than --startup-timeout 30s"}},
		{"a gate the command cannot trip", []string{"wire", "--fail-on", "drift", "./server"}, "wire", []string{"--fail-on drift does not apply to wire, which takes error, warning, info"}},
		{"missing value", []string{"bench", "./server", "--rate"}, "bench", []string{"--rate needs a value"}},
		{"unknown command", []string{"frobnicate"}, "", []string{`unknown command "frobnicate"`, "wire, report"}},
		{"command typo", []string{"wrie", "./server"}, "", []string{`unknown command "wrie"; did you mean wire?`}},
		{"target as command", []string{"./server"}, "", []string{"a target comes after a command: mcpprobe wire ./server"}},
		{"URL scheme typo", []string{"wire", "htp://127.0.0.1:9/mcp"}, "wire", []string{"a server is reached over http:// or https://; did you mean http://127.0.0.1:9/mcp?"}},
		{"command typo, then a flag", []string{"wyre", "--json", "./server"}, "", []string{`unknown command "wyre"; did you mean wire?`}},
		{"target as command, then a flag", []string{"./server", "--json"}, "", []string{"a target comes after a command: mcpprobe wire ./server"}},
		{"command typo after mcpprobe's own flag", []string{"--config", "x.json", "wyre", "--json"}, "", []string{`unknown command "wyre"; did you mean wire?`}},
		{"help of no command", []string{"help", "frobnicate"}, "", []string{`unknown command "frobnicate"`}},
		{"no target", []string{"wire"}, "wire", []string{"no target"}},
		{"config without a name", []string{"wire", "--config", "testdata/no-such.json"}, "wire", []string{"--config testdata/no-such.json"}},
		// A flag another command declares: which do, from the tree.
		{"flag of other commands", []string{"survey", "--json", "fleet.jsonl"}, "survey",
			[]string{"--json does not apply to survey; it applies to wire, report, budget, diff, snapshot, bench, load, load merge, faults, malformed, check, auth, call, read, prompt"}},
		{"shared flag after the target is still ours", []string{"survey", "fleet.jsonl", "--json"}, "survey",
			[]string{"--json does not apply to survey; it applies to wire,"}},
		{"flag of other commands, in a subcommand", []string{"survey", "merge", "--timeout", "1s", "part"}, "survey",
			[]string{"--timeout does not apply to survey merge; it applies to wire,"}},
		{"flag not taken, and why", []string{"proxy", "--inherit-env", "--", "./server"}, "proxy",
			[]string{"--inherit-env does not apply to proxy: the proxy passes its server the whole environment its host gave it"}},
		{"no gates", []string{"snapshot", "--fail-on", "error", "./server"}, "snapshot", []string{"--fail-on does not apply to snapshot; it applies to wire,"}},
		{"a command's flag before the command", []string{"--json", "wire", "./server"}, "wire", []string{"--json goes after the command, whose flag it is: mcpprobe wire --json …"}},
		{"mcpprobe's own flag before a command", []string{"--wide", "wire", "./server"}, "wire", []string{"--wide goes after the command: mcpprobe wire --wide …"}},
		{"--args twice in call", []string{"call", "--args", `{"a":1}`, "--args", `{"b":2}`, "./server", "echo"}, "call", []string{"--args is given 2 times: a call sends one set of arguments"}},
		{"--args not an object", []string{"prompt", "--args", `[1]`, "./server", "p"}, "prompt", []string{`--args "[1]" is not a JSON object`}},
		{"a command's flag and its value before the command", []string{"--fail-on", "warning", "malformed", "./server"}, "malformed", []string{"--fail-on goes after the command, whose flag it is: mcpprobe malformed --fail-on …"}},
		{"mcpprobe --config and a flag servers does not take", []string{"--config", "x.json", "--json"}, "", []string{"--json does not apply to servers"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runInProcess(nil, tc.args...)
			checkUsage(t, r, tc.command, "")
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "OPTIONS:") || strings.Contains(r.stderr, "Incorrect Usage") {
				t.Errorf("stderr holds the help:\n%s", r.stderr)
			}
		})
	}
}

// commandTree is every visible command and subcommand of the tree, with
// the words that run it.
func commandTree(root *cli.Command) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, c := range visibleCommands(root) {
		out[c.path] = c.cmd
	}
	return out
}

// declared are the names of the flags cmd declares, help and version
// (urfave's) left out.
func declared(cmd *cli.Command) []string {
	var names []string
	for _, f := range cmd.Flags {
		if n := f.Names()[0]; n != "help" && n != "version" {
			names = append(names, n)
		}
	}
	return names
}

// Every flag of the tree that a command does not declare is an ordinary
// usage error there, exit 2 naming the flag, before anything runs: no
// flag is accepted and ignored. (The flag matrix e2e tests show that each
// flag a command declares has its effect.)
func TestUndeclaredFlagsAreUsageErrors(t *testing.T) {
	t.Parallel()
	tree := commandTree(testApp())
	every := map[string]bool{}
	for _, c := range tree {
		for _, n := range declared(c) {
			every[n] = true
		}
	}
	if len(tree) < 15 || len(every) < 40 {
		t.Fatalf("only %d commands and %d flags found", len(tree), len(every))
	}
	for path, c := range tree {
		if meta(c.Name) {
			continue
		}
		mine := declared(c)
		for name := range every {
			if slices.Contains(mine, name) {
				continue
			}
			args := append(strings.Fields(path), dash(name), "./server")
			r := runInProcess(nil, args...)
			pointer := strings.Fields(path)[0]
			checkUsage(t, r, pointer, dash(name)+" does not apply to "+path)
		}
	}
}

// Each command's help lists the flags it declares and no other, and the
// command accepts each flag its help lists (parsing gets past it).
func TestHelpListsOnlyTheFlagsACommandTakes(t *testing.T) {
	t.Parallel()
	listed := regexp.MustCompile(`(?m)^   (--[a-z][a-z0-9-]*|-[a-zA-Z])[ ,\n]`)
	for path, c := range commandTree(testApp()) {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			r := runInProcess(nil, append(strings.Fields(path), "--help")...)
			if r.code != 0 || !strings.HasPrefix(r.stdout, "NAME:\n") {
				t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
			}
			var shown []string
			for _, m := range listed.FindAllStringSubmatch(r.stdout, -1) {
				if n := strings.TrimLeft(m[1], "-"); n != "help" && n != "h" && c.Command(n) == nil {
					shown = append(shown, n)
				}
			}
			want := declared(c)
			slices.Sort(shown)
			slices.Sort(want)
			if !slices.Equal(shown, want) {
				t.Errorf("the help lists %v, the command declares %v:\n%s", shown, want, r.stdout)
			}
			if len(c.Commands) > 0 {
				return // survey: its usage line and flags are its own
			}
			for _, f := range c.Flags {
				if d, ok := f.(cli.DocGenerationFlag); ok && !d.TakesValue() {
					r := runInProcess(nil, append(strings.Fields(path), dash(f.Names()[0]), "--help")...)
					if r.code != 0 {
						t.Errorf("%s --%s --help: exit %d: %s", path, f.Names()[0], r.code, r.stderr)
					}
				}
			}
		})
	}
}

// Every help, of mcpprobe and of every command and subcommand, fits an
// 80- and a 100-column terminal.
func TestHelpFitsTheTerminal(t *testing.T) {
	t.Parallel()
	root := testApp()
	cmds := map[string]*cli.Command{"mcpprobe": root}
	for p, c := range commandTree(root) {
		cmds[p] = c
	}
	for p, c := range cmds {
		for _, width := range []int{40, 80, 100} {
			t.Run(p+" "+strconv.Itoa(width), func(t *testing.T) {
				t.Parallel()
				help := helpText(c, width)
				if !strings.HasPrefix(help, "NAME:\n") {
					t.Fatalf("no NAME:\n%s", help)
				}
				for i, l := range strings.Split(help, "\n") {
					if n := utf8.RuneCountInString(l); n > width {
						t.Errorf("line %d is %d wide, over %d:\n%s", i+1, n, width, l)
					}
				}
			})
		}
	}
}

// TestRootHelpNamesNoGlobalOptions: the flags mcpprobe itself takes are
// servers' (mcpprobe --config FILE) and refused before a command, so its
// help lists them as that, never as global options.
func TestRootHelpNamesNoGlobalOptions(t *testing.T) {
	t.Parallel()
	r := runInProcess([]string{"COLUMNS=100"}, "--help")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"   mcpprobe COMMAND [options] TARGET\n", "\nOPTIONS OF mcpprobe --config FILE:\n   --config FILE"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, bad := range []string{"global options", "\nTARGET:\n", "\nOUTPUT:\n"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("help says %q:\n%s", bad, r.stdout)
		}
	}
	// A command's help keeps its groups.
	if w := runInProcess([]string{"COLUMNS=100"}, "wire", "--help"); !strings.Contains(w.stdout, "\nTARGET:\n") {
		t.Errorf("wire's help lost its TARGET group:\n%s", w.stdout)
	}
}
