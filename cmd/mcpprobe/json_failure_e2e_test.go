//go:build e2e

package main

// --json on a failure (issue 26): a run that cannot probe its target, or
// is interrupted, still prints one envelope, with an error member that
// says what happened; a CI step piping it to jq never gets empty input.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"
)

// jsonCommands are the commands that take --json, each with the words
// that put a target where it takes one (TARGET stands for it).
var jsonCommands = map[string][]string{
	"wire":      {"TARGET"},
	"report":    {"--date", "2026-12-02", "TARGET"},
	"budget":    {"TARGET"},
	"diff":      {"--ref", "../../fixtures/goodserver/reference.anthropic.json", "TARGET"},
	"snapshot":  {"TARGET"},
	"bench":     {"--startup", "1", "TARGET"},
	"faults":    {"TARGET"},
	"malformed": {"TARGET"},
	"check":     {"--skip-malformed", "TARGET"},
	"auth":      {"TARGET"},
	"call":      {"TARGET", "echo"},
	"read":      {"TARGET", "x://y"},
	"prompt":    {"TARGET", "p"},
	"load":      {"--rate", "10/s", "--requests", "1", "TARGET"},
	// load merge reads files and hosts reads the profiles; neither
	// starts a server: no target to fail.
	"load merge": nil,
	"hosts":      nil,
}

// withTarget puts target in place of TARGET; a command after -- goes
// last, with the tool (or URI, or prompt) before the --.
func withTarget(words, target []string) []string {
	var out []string
	dashed := target[0] == "--"
	for _, w := range words {
		if w == "TARGET" {
			if !dashed {
				out = append(out, target...)
			}
			continue
		}
		out = append(out, w)
	}
	if dashed {
		out = append(out, target...)
	}
	return out
}

func TestJSONFailureEnvelope(t *testing.T) {
	t.Parallel()
	quick := []string{"--startup-timeout", "2s", "--discover-timeout", "300ms", "--timeout", "1s", "--grace", "200ms"}
	targets := []struct {
		name   string
		target []string
		what   string // in error.what
	}{
		{"missing binary", []string{"/nonexistent/mcp-server-x"}, "could not start"},
		{"exits at once", []string{"--", "sh", "-c", "exit 3"}, "exited before it answered"},
		{"refused URL", []string{"http://127.0.0.1:1/mcp"}, "could not reach"},
	}
	for name, words := range jsonCommands {
		if words == nil {
			continue
		}
		for _, tg := range targets {
			if name == "auth" && !strings.HasPrefix(tg.target[0], "http") {
				continue // auth audits a URL; a command is a usage error
			}
			t.Run(name+" "+tg.name, func(t *testing.T) {
				t.Parallel()
				bounds := quick
				if name == "auth" {
					bounds = []string{"--timeout", "1s"} // its one bound: it starts nothing
				}
				args := append(append([]string{name, "--json"}, bounds...), withTarget(words, tg.target)...)
				r := mcpprobe(t, args...)
				if r.code != 3 {
					t.Fatalf("%s: exit %d, want 3:\n%s", strings.Join(args, " "), r.code, r.stderr)
				}
				if n := strings.Count(strings.TrimSpace(r.stdout), "\n"); n != 0 {
					t.Fatalf("not one line of JSON (%d newlines):\n%s", n, r.stdout)
				}
				v := envelope(t, name, r.stdout)
				e := v.Get("error")
				if e.Get("exit_code").Int() != 3 {
					t.Errorf("error.exit_code %s, want 3: %s", e.Get("exit_code").Raw, e.Raw)
				}
				if !strings.Contains(e.Get("what").String(), tg.what) {
					t.Errorf("error.what %q lacks %q", e.Get("what").String(), tg.what)
				}
				for _, part := range []string{"received", "try"} {
					if e.Get(part).String() == "" {
						t.Errorf("error.%s is empty: %s", part, e.Raw)
					}
				}
				// The same three parts as the message on stderr.
				if !strings.Contains(r.stderr, e.Get("what").String()) || !strings.Contains(r.stderr, "Try: "+e.Get("try").String()) {
					t.Errorf("error %s is not the message on stderr:\n%s", e.Raw, r.stderr)
				}
				if v.Get("target").String() == "" {
					t.Errorf("no target: %s", r.stdout)
				}
				// wire keeps what it captured before the failure; every
				// other command had nothing yet.
				if sec := v.Get(name); name != "wire" && sec.Type != gjson.Null {
					t.Errorf("section %s, want null", sec.Raw)
				}
			})
		}
	}
}

// --config FILE --all where no server could be probed exits 3 like a
// single server that cannot be, and its envelope has the same error
// member, beside the rows that say why each failed.
func TestJSONFailureEnvelopeConfigAll(t *testing.T) {
	t.Parallel()
	servers := map[string]any{
		"crash":   map[string]any{"command": bin.raw, "args": []string{"-exit-before-init", "7"}},
		"missing": map[string]any{"command": "/nonexistent/mcp-server-x"},
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wire", "budget", "report"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, name, "--json", "--startup-timeout", "5s", "--config", cfg, "--all")
			if r.code != 3 {
				t.Fatalf("exit %d, want 3:\n%s", r.code, r.stderr)
			}
			v := envelope(t, name, r.stdout)
			e := v.Get("error")
			if e.Get("exit_code").Int() != 3 || !strings.Contains(e.Get("what").String(), "no server of "+cfg+" could be probed") {
				t.Errorf("error member %s, want exit 3 and no server probed", e.Raw)
			}
			for _, s := range []string{"server crash: ", "server missing: "} {
				if !strings.Contains(e.Get("received").String(), s) {
					t.Errorf("error.received lacks %q: %s", s, e.Raw)
				}
			}
			if e.Get("try").String() == "" {
				t.Errorf("error.try is empty: %s", e.Raw)
			}
			if got := v.Get(name + ".servers.#(status==\"failed\")#.name").Raw; got != `["crash","missing"]` {
				t.Errorf("failed rows %s, want both servers", got)
			}
		})
	}
}

// jsonCommands is every command that takes --json: one the tree gains is
// listed, and one the tree has that is not listed refuses --json.
func TestJSONCommandsListed(t *testing.T) {
	t.Parallel()
	var listed, inTree []string
	for name := range jsonCommands {
		listed = append(listed, name)
	}
	var walk func(c *cli.Command, path []string)
	walk = func(c *cli.Command, path []string) {
		for _, s := range c.Commands {
			if s.Hidden || meta(s.Name) {
				continue
			}
			p := append(append([]string{}, path...), s.Name)
			if lookupFlag(s, "json") != nil {
				inTree = append(inTree, strings.Join(p, " "))
			} else if _, ok := jsonCommands[strings.Join(p, " ")]; !ok {
				r := mcpprobe(t, append(p, "--json")...)
				if r.code != 2 || !strings.Contains(r.stderr, "--json does not apply to ") {
					t.Errorf("%s --json: exit %d, want 2 naming --json (or list it in jsonCommands):\n%s", strings.Join(p, " "), r.code, r.stderr)
				}
			}
			walk(s, p)
		}
	}
	walk(testApp(), nil)
	sort.Strings(listed)
	sort.Strings(inTree)
	if !slices.Equal(listed, inTree) {
		t.Errorf("jsonCommands %v, but the commands that take --json are %v", listed, inTree)
	}
}

// An interrupt before the result still prints the envelope, with the
// signal's exit code in its error member.
func TestJSONFailureEnvelopeOnInterrupt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		sig     syscall.Signal
		code    int
	}{
		{"budget", syscall.SIGINT, 130},
		{"snapshot", syscall.SIGTERM, 143},
	} {
		t.Run(tc.command, func(t *testing.T) {
			t.Parallel()
			pids := pidFile(t)
			cmd := exec.Command(bin.mcpprobe, tc.command, "--json", "--", bin.raw, "-silent", "-pidfile", pids)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 500 && len(pidsIn(t, pids)) < 1; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			_ = cmd.Process.Signal(tc.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("still running 20 s after the signal")
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, errb.String())
			}
			v := envelope(t, tc.command, out.String())
			e := v.Get("error")
			if e.Get("exit_code").Int() != int64(tc.code) || !strings.Contains(e.Get("what").String(), "interrupted by") {
				t.Errorf("error %s, want exit_code %d and the interrupt", e.Raw, tc.code)
			}
			if !strings.Contains(errb.String(), "the --json envelope says so") {
				t.Errorf("stderr does not say the envelope was printed:\n%s", errb.String())
			}
			noneLeft(t, pidsIn(t, pids))
		})
	}
}

// An output that cannot be written before the result (wire --save into a
// path under a file) is exit 4, and the envelope says which write failed.
func TestJSONFailureEnvelopeOnWriteFailure(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mcpprobe(t, "wire", "--json", "--save", filepath.Join(file, "dir"), bin.good)
	if r.code != 4 {
		t.Fatalf("exit %d, want 4:\n%s", r.code, r.stderr)
	}
	e := envelope(t, "wire", r.stdout).Get("error")
	if e.Get("exit_code").Int() != 4 || !strings.Contains(e.Get("what").String(), "writing --save") {
		t.Errorf("error %s, want exit_code 4 and the failed write", e.Raw)
	}
}
