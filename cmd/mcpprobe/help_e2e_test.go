package main

// Help that fits (issue 26): every --help, of mcpprobe and of every
// command and subcommand, fits an 80- and a 100-column terminal, and a
// command's help lists the global flags it takes and no other.

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v3"
)

// commandPaths is every visible command and subcommand, as the words
// that run it.
func commandPaths() [][]string {
	var paths [][]string
	var walk func(c *cli.Command, path []string)
	walk = func(c *cli.Command, path []string) {
		for _, s := range c.Commands {
			if s.Hidden {
				continue
			}
			p := append(append([]string{}, path...), s.Name)
			paths = append(paths, p)
			walk(s, p)
		}
	}
	walk(testApp(), nil)
	return paths
}

func TestHelpFitsTheTerminal(t *testing.T) {
	t.Parallel()
	paths := append([][]string{{}}, commandPaths()...)
	if len(paths) < 15 {
		t.Fatalf("only %d commands found: %v", len(paths), paths)
	}
	for _, p := range paths {
		for _, width := range []int{80, 100} {
			name := strings.Join(append([]string{"mcpprobe"}, p...), " ")
			t.Run(name+" "+strconv.Itoa(width), func(t *testing.T) {
				t.Parallel()
				r := mcpprobeEnv(t, []string{"COLUMNS=" + strconv.Itoa(width)}, append(append([]string{}, p...), "--help")...)
				if r.code != 0 || !strings.HasPrefix(r.stdout, "NAME:\n") {
					t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
				}
				for i, l := range strings.Split(r.stdout, "\n") {
					if n := utf8.RuneCountInString(l); n > width {
						t.Errorf("line %d is %d wide, over %d:\n%s", i+1, n, width, l)
					}
				}
			})
		}
	}
}

// Each command's help lists, under GLOBAL OPTIONS, the global flags it
// takes: a flag listed is accepted, and one it refuses is not listed.
func TestHelpListsTheGlobalFlagsACommandTakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"s": {"command": "./no-such-server"}}}`)
	values := map[string]string{
		"out": filepath.Join(dir, "out"), "trace": filepath.Join(dir, "trace"), "config": cfg,
		"protocol": "auto", "transport": "auto", "env": "A=b", "header": "X: y", "header-env": "X=HOME",
		"fail-on": "error", "secret-env": "A",
	}
	root := testApp()
	for _, p := range commandPaths() {
		if meta(p[0]) {
			continue // help, version and completion probe nothing
		}
		t.Run(strings.Join(p, " "), func(t *testing.T) {
			t.Parallel()
			help := mcpprobeEnv(t, []string{"COLUMNS=100"}, append(append([]string{}, p...), "--help")...)
			listed := globalSection(help.stdout)
			for _, f := range root.Flags {
				name := f.Names()[0]
				if name == "help" || name == "version" {
					continue
				}
				arg := "--" + name
				switch f.(type) {
				case *cli.BoolFlag:
				case *cli.DurationFlag:
					arg += "=5s"
				case *cli.IntFlag:
					arg += "=5"
				default:
					v, ok := values[name]
					if !ok {
						t.Fatalf("no value to try --%s with", name)
					}
					arg += "=" + v
				}
				r := mcpprobe(t, append(append([]string{}, p...), arg)...)
				refused := r.code == 2 && strings.Contains(r.stderr, "--"+name+" does not apply to ")
				shown := strings.Contains(listed, "\n   --"+name+" ") || strings.Contains(listed, "\n   --"+name+",") ||
					strings.Contains(listed, "\n   --"+name+"\n")
				if refused == shown {
					t.Errorf("--%s: refused %v, listed in the help %v:\n%s\n%s", name, refused, shown, r.stderr, listed)
				}
			}
		})
	}
}

// globalSection is the GLOBAL OPTIONS section of a help, from its
// heading's line end.
func globalSection(help string) string {
	i := strings.Index(help, "GLOBAL OPTIONS")
	if i < 0 {
		return ""
	}
	s := help[i:]
	return s[strings.Index(s, "\n"):]
}
