//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// badValue is one flag given a value it cannot take.
type badValue struct {
	flag string   // as the message must name it: --timeout, -n
	args []string // the flag and its value as typed
}

// globalBad are bad values of every global flag; each is tried on every
// command that takes the flag (declares it).
func globalBad(dir string) []badValue {
	arrayFile := filepath.Join(dir, "array.json")
	_ = os.WriteFile(arrayFile, []byte(`[1, 2]`), 0o644)
	return []badValue{
		{"--json", []string{"--json=maybe"}},
		{"--out", []string{"--out", filepath.Join(dir, "no-such-folder", "out.txt")}},
		{"--out", []string{"--out", dir}},
		{"--timeout", []string{"--timeout", "0"}},
		{"--timeout", []string{"--timeout", "-5s"}},
		{"--timeout", []string{"--timeout", "soon"}},
		{"--timeout", []string{"--timeout"}},
		{"--startup-timeout", []string{"--startup-timeout", "0"}},
		{"--discover-timeout", []string{"--discover-timeout", "-1s"}},
		{"--discover-timeout", []string{"--discover-timeout", "40s"}}, // longer than --startup-timeout's 30s
		{"--protocol", []string{"--protocol", "1999-01-01"}},
		{"--env", []string{"--env", "NOEQUALS"}},
		{"--header", []string{"--header", "no colon"}},
		{"--header-env", []string{"--header-env", "X-Key"}},
		{"--header-env", []string{"--header-env", "X-Key=MCPPROBE_TEST_UNSET_VARIABLE"}},
		{"--transport", []string{"--transport", "carrier-pigeon"}},
		{"--insecure", []string{"--insecure=maybe"}},
		{"--config", []string{"--config", filepath.Join(dir, "no-such.json"), "name"}},
		{"--config", []string{"--config", arrayFile, "name"}},
		{"--trace", []string{"--trace", filepath.Join(dir, "no-such-folder", "t.jsonl")}},
		{"--max-line", []string{"--max-line", "0"}},
		{"--max-line", []string{"--max-line", "lots"}},
		{"--max-pages", []string{"--max-pages", "0"}},
		{"--grace", []string{"--grace", "-1s"}},
		{"--grace", []string{"--grace", "0"}},
		{"--fail-on", []string{"--fail-on", "sometimes"}},
		{"--quiet", []string{"--quiet=maybe"}},
		{"--no-color", []string{"--no-color=maybe"}},
		{"--wide", []string{"--wide=maybe"}},
	}
}

// commandBad are bad values of each command's own flags.
func commandBad(dir string) map[string][]badValue {
	arrayFile := filepath.Join(dir, "array.json")
	file := filepath.Join(dir, "a-file")
	_ = os.WriteFile(file, []byte("x"), 0o644)
	missing := filepath.Join(dir, "no-such.json")
	hosts := []badValue{
		{"--host", []string{"--host", "netscape"}},
		{"--host", []string{"--host", "claude-code=-3"}},
		{"--hosts", []string{"--hosts", missing}},
		{"--hosts", []string{"--hosts", arrayFile}},
	}
	m := map[string][]badValue{
		"wire": {
			{"--save", []string{"--save", file}},
		},
		"report": append([]badValue{
			{"--ref", []string{"--ref", missing}},
			{"--faults", []string{"--faults=maybe"}},
			{"--malformed", []string{"--malformed=maybe"}},
			{"--bench", []string{"--bench=maybe"}},
			{"--date", []string{"--date", "2025-13-45"}},
			{"--date", []string{"--date", "yesterday"}},
		}, hosts...),
		"budget": append([]badValue{
			{"--show-cut", []string{"--show-cut=maybe"}},
			{"--view", []string{"--view", "netscape"}},
			{"--view", []string{"--view", "codex", "--json"}},
			{"--show-cut", []string{"--show-cut", "--view", "codex"}},
		}, hosts...),
		"diff": {
			{"--ref", []string{"--ref", missing}},
			{"--ignore", []string{"--ignore", "colours"}},
			{"--ref", []string{"--ref", file, "A", "--", "B"}},
		},
		"bench": {
			{"--call", []string{"--call", ""}},
			{"--args", []string{"--call", "x", "--args", "[1]"}},
			{"--args", []string{"--args", "{}"}},
			{"-n", []string{"-n", "-1"}},
			{"--warmup", []string{"--warmup", "-1"}},
			{"--startup", []string{"--startup", "-1"}},
			{"--concurrency", []string{"--concurrency", "0"}},
			{"--rate", []string{"--rate", "fast"}},
			{"--rate", []string{"--rate", "100/s", "--concurrency", "4"}},
			{"--duration", []string{"--rate", "10/s", "--duration", "0"}},
			{"--duration", []string{"--duration", "5s"}},
			{"--vs", []string{"--vs", ""}},
			{"--vs", []string{"--vs", "./other", "--rate", "10/s"}},
		},
		"faults": {
			{"--seed", []string{"--seed", "-1"}},
			{"--client", []string{"--client", "netscape"}},
			{"--restart", []string{"--restart=maybe"}},
			{"--call", []string{"--call", ""}},
			{"--args", []string{"--call", "x", "--args", "nope"}},
			{"--args", []string{"--args", "{}"}},
			{"--calls", []string{"--calls", "-5"}},
		},
		"malformed": {
			{"--call", []string{"--call", ""}},
			{"--args", []string{"--call", "x", "--args", "nope"}},
			{"--args", []string{"--args", "{}"}},
		},
		"servers": {
			{"--config", []string{"--config", missing}},
			{"--config", []string{"--config", arrayFile}},
		},
	}
	// Every fault flag, from the registry, in both commands that take
	// them (a fault that acts only in proxy is refused by faults anyway).
	for _, k := range faults.Kinds() {
		for _, f := range k.Flags {
			var v []string
			switch f.Type {
			case faults.Switch:
				v = []string{"--" + f.Name + "=maybe"}
			case faults.Count:
				v = []string{"--" + f.Name, "-5"}
			case faults.Duration:
				v = []string{"--" + f.Name, "-1s"}
			default:
				v = []string{"--" + f.Name, "whenever"}
			}
			for _, c := range []string{"faults", "proxy"} {
				m[c] = append(m[c], badValue{"--" + f.Name, v})
			}
		}
	}
	return m
}

// TestEveryBadValueIsAUsageError: every command with every flag given a
// value it cannot take, or a combination that cannot hold, exits 2 with
// one line on stderr naming the flag and the help pointer under it, and
// nothing on stdout. The target would start (or be reached) if the value
// were let through, so a flag accepted and ignored shows as exit 3.
func TestEveryBadValueIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	commands := []string{"wire", "report", "budget", "diff", "snapshot", "bench", "faults", "malformed", "proxy", "servers"}
	type tc struct {
		command string
		bad     badValue
	}
	var cases []tc
	for _, b := range globalBad(dir) {
		name := strings.TrimLeft(b.flag, "-")
		for _, c := range commands {
			if name == "fail-on" && (c == "proxy" || c == "servers") {
				continue // refused as not applying: TestUnusedFlagsRefused
			}
			if takesFlag(c, name) || name == "fail-on" {
				cases = append(cases, tc{c, b})
			}
		}
	}
	for c, bs := range commandBad(dir) {
		for _, b := range bs {
			cases = append(cases, tc{c, b})
		}
	}
	for _, c := range cases {
		t.Run(c.command+" "+strings.Join(c.bad.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{c.command}, c.bad.args...)
			switch {
			case c.command == "servers":
			case c.command == "proxy":
				args = append(args, "--", "./no-such-server")
			case strings.HasPrefix(c.bad.flag, "--header") || c.bad.flag == "--insecure" || c.bad.flag == "--transport":
				args = append(args, "http://127.0.0.1:9/mcp")
				if c.command == "diff" {
					args = append(args, "--", "http://127.0.0.1:9/mcp")
				}
			case c.bad.flag == "--config" || slices.Contains(c.bad.args, "--"):
				if c.command == "diff" && !slices.Contains(c.bad.args, "--") {
					args = append(args, "--", "name")
				}
			case c.command == "diff":
				args = append(args, "./no-such-server", "--", "./no-such-server-b")
			default:
				args = append(args, "./no-such-server")
			}
			r := mcpprobe(t, args...)
			checkUsageError(t, r, c.command, c.bad.flag)
		})
	}
}

// checkUsageError is checkUsage (cli_test.go) on a run of the binary.
func checkUsageError(t *testing.T, r result, command, what string) {
	t.Helper()
	checkUsage(t, inProcess{code: r.code, stdout: r.stdout, stderr: r.stderr}, command, what)
}

// TestUsageErrors is in cli_test.go: in process, with no binary.

// TestHelpVersionCompletion: help [COMMAND], version and --version, and
// a shell completion script per shell, each on stdout with exit 0.
func TestHelpVersionCompletion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"COMMANDS:", "wire", "servers", "completion"}},
		{[]string{}, []string{"COMMANDS:", "wire"}},
		{[]string{"help", "wire"}, []string{"mcpprobe wire", "--save"}},
		{[]string{"wire", "--help"}, []string{"mcpprobe wire", "--save"}},
		{[]string{"version"}, []string{"mcpprobe version "}},
		{[]string{"--version"}, []string{"mcpprobe version "}},
		{[]string{"completion", "bash"}, []string{"complete -o", "mcpprobe"}},
		{[]string{"completion", "zsh"}, []string{"compdef", "mcpprobe"}},
		{[]string{"completion", "fish"}, []string{"complete -c mcpprobe"}},
		// What the scripts ask the binary for: the commands, then a
		// command's flags.
		{[]string{"--generate-shell-completion"}, []string{"wire:", "budget:"}},
		{[]string{"wire", "--", "--generate-shell-completion"}, nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
	// version prints the version -ldflags set.
	dir := t.TempDir()
	exe := filepath.Join(dir, "mcpprobe")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// Both spellings print the one same line.
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(exe, args...).Output()
		if err != nil || string(out) != "mcpprobe version v9.8.7\n" {
			t.Errorf("%s: %q, %v", args, out, err)
		}
	}
}

// TestUsageLinesMatchBehaviour: each probing command's usage line names
// every --fail-on gate it accepts and no other, and every target form,
// each of which it accepts (a form refused is exit 2; accepted, the
// missing server is exit 3).
func TestUsageLinesMatchBehaviour(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"s": {"command": "./no-such-server"}}}`)
	for name := range usageLines() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			help := mcpprobe(t, "help", name)
			i := strings.Index(help.stdout, "USAGE:\n")
			if help.code != 0 || i < 0 {
				t.Fatalf("help %s: exit %d:\n%s", name, help.code, help.stdout)
			}
			usage := help.stdout[i+len("USAGE:\n"):]
			// The help wraps it to the terminal: read it as one line.
			usage = strings.Join(strings.Fields(usage[:strings.Index(usage, "\n\n")]), " ")
			target := []string{"./no-such-server"}
			if name == "diff" {
				target = []string{"./no-such-a", "--", "./no-such-b"}
			}
			// call, read and prompt take a tool, URI or prompt after the
			// target (before a "--").
			oneRequest := name == "call" || name == "read" || name == "prompt"
			if oneRequest {
				target = append(target, "x")
			}
			for _, g := range findings.Gates {
				r := mcpprobe(t, append([]string{name, "--fail-on", g.Name}, target...)...)
				accepted := !strings.Contains(r.stderr, "mcpprobe: --fail-on")
				listed := regexp.MustCompile(`[\s\[|]` + regexp.QuoteMeta(g.Name) + `[\]|]`).MatchString(usage)
				if accepted != listed {
					t.Errorf("--fail-on %s: accepted %v, in the usage line %v:\n%s\n%s", g.Name, accepted, listed, usage, r.stderr)
				}
			}
			forms := []struct {
				form string
				args []string
			}{
				{"./server", []string{"./no-such-server"}},
				{"-- CMD ARGS…", []string{"--", "./no-such-server", "-x"}},
				{"URL", []string{"http://127.0.0.1:9/mcp"}},
				{"--config FILE NAME", []string{"--config", cfg, "s"}},
			}
			for _, f := range forms {
				form := f.form
				args := append([]string{name}, f.args...)
				if name == "diff" {
					// diff's B follows --: each form is tried as B.
					form = strings.TrimPrefix(form, "-- ")
					args = append([]string{"diff", "./no-such-a", "--"}, f.args...)
					switch f.form {
					case "-- CMD ARGS…":
						args = []string{"diff", "./no-such-a", "--", "./no-such-server", "-x"}
					case "--config FILE NAME":
						args = []string{"diff", "--config", cfg, "s", "--", "s"}
					}
				}
				if oneRequest {
					if f.form == "-- CMD ARGS…" {
						args = append([]string{name, "x"}, f.args...)
					} else {
						args = append(args, "x")
					}
				}
				if !strings.Contains(usage, form) {
					t.Errorf("the usage line lacks %s:\n%s", form, usage)
				}
				if r := mcpprobe(t, args...); r.code != 3 {
					t.Errorf("%s: exit %d, want 3 (accepted, then not found): %s", f.form, r.code, r.stderr)
				}
			}
		})
	}
}

// takesFlag is whether the command (a path of words) declares the flag.
func takesFlag(command, flag string) bool {
	c := testApp()
	for _, w := range strings.Fields(command) {
		if c = c.Command(w); c == nil {
			return false
		}
	}
	return lookupFlag(c, flag) != nil
}
