//go:build e2e

package main

// The README's commands run as written (issue 26: the Quick start's
// install line failed). Every sh, bash and console block of README.md is
// run line by line, in order, in a fresh copy of the checkout; a block
// with an <!-- illustrative: why --> comment before it is not.

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

const readmeMD = "../../README.md"

// readmeCommand is one command line of the README, with the output a
// console block shows under it.
type readmeCommand struct {
	line int // 1-based, in README.md
	cmd  string
	want []string // console blocks: lines the output must hold
}

// readmeBlock is one fenced block of the README.
type readmeBlock struct {
	lang         string
	line         int
	illustrative bool
	commands     []readmeCommand
}

// readmeBlocks parses the README's fenced blocks with goldmark, and the
// shell lines of each: sh and bash lines (a trailing "\" joins the next),
// and in console the "$ " lines, the lines after each being its output.
func readmeBlocks(src []byte) []readmeBlock {
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	lineOf := func(offset int) int { return bytes.Count(src[:offset], []byte("\n")) + 1 }
	var out []readmeBlock
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok {
			continue
		}
		b := readmeBlock{lang: string(fc.Language(src))}
		if prev, ok := n.PreviousSibling().(*ast.HTMLBlock); ok {
			var h []byte
			for i := 0; i < prev.Lines().Len(); i++ {
				seg := prev.Lines().At(i)
				h = append(h, seg.Value(src)...)
			}
			b.illustrative = bytes.HasPrefix(bytes.TrimSpace(h), []byte("<!-- illustrative"))
		}
		lines := fc.Lines()
		if lines.Len() > 0 {
			b.line = lineOf(lines.At(0).Start)
		}
		pending := ""
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			l := strings.TrimRight(string(seg.Value(src)), "\n")
			at := lineOf(seg.Start)
			switch b.lang {
			case "console":
				if c, ok := strings.CutPrefix(l, "$ "); ok {
					b.commands = append(b.commands, readmeCommand{line: at, cmd: c})
				} else if len(b.commands) > 0 && strings.TrimSpace(l) != "" {
					last := &b.commands[len(b.commands)-1]
					last.want = append(last.want, l)
				}
			default:
				if pending == "" && (strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#")) {
					continue
				}
				if c, ok := strings.CutSuffix(l, `\`); ok {
					if pending == "" {
						b.commands = append(b.commands, readmeCommand{line: at})
					}
					pending += c + "\n"
					continue
				}
				if pending == "" {
					b.commands = append(b.commands, readmeCommand{line: at})
				}
				b.commands[len(b.commands)-1].cmd = pending + l
				pending = ""
			}
		}
		out = append(out, b)
	}
	return out
}

func TestReadmeBlocksParse(t *testing.T) {
	src := []byte("# t\n\n```sh\nmake build   # x\n\n# a comment\na \\\n  b\n```\n\n" +
		"<!-- illustrative: net -->\n\n```sh\ncurl x\n```\n\n```console\n$ mcpprobe wire x\nfirst line\n\n$ true\n```\n\n```yaml\nk: v\n```\n")
	bs := readmeBlocks(src)
	if len(bs) != 4 {
		t.Fatalf("%d blocks: %+v", len(bs), bs)
	}
	if bs[0].illustrative || len(bs[0].commands) != 2 || bs[0].commands[0].cmd != "make build   # x" ||
		bs[0].commands[0].line != 4 || bs[0].commands[1].cmd != "a \n  b" || bs[0].commands[1].line != 7 {
		t.Errorf("sh block: %+v", bs[0])
	}
	if !bs[1].illustrative || bs[1].lang != "sh" {
		t.Errorf("illustrative block: %+v", bs[1])
	}
	c := bs[2].commands
	if len(c) != 2 || c[0].cmd != "mcpprobe wire x" || strings.Join(c[0].want, "|") != "first line" || c[1].cmd != "true" || len(c[1].want) != 0 {
		t.Errorf("console block: %+v", bs[2])
	}
	if bs[3].lang != "yaml" || bs[3].illustrative {
		t.Errorf("yaml block: %+v", bs[3])
	}
}

// copyCheckout copies the checkout's files (tracked and untracked, not
// ignored: what a clone with this change would hold) into dir.
func copyCheckout(t *testing.T, root, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
			continue
		}
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		o, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(o, in)
		in.Close()
		if cerr := o.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestREADMECommands runs every command line of the README in a fresh
// copy of the checkout, in the README's order, each with bash: it must
// exit 0, and a console block's shown output must be in what it printed.
// HOME is empty, so host config files of this machine play no part; the
// Go caches are kept, so `make build` compiles only what changed.
func TestREADMECommands(t *testing.T) {
	src, err := os.ReadFile(readmeMD)
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(src)
	var run []readmeCommand
	for _, b := range blocks {
		switch b.lang {
		case "sh", "bash", "console":
			if !b.illustrative {
				run = append(run, b.commands...)
			}
		case "":
			t.Errorf("README.md:%d: a code block without a language; say sh, console, text, yaml, …", b.line)
		}
	}
	if len(run) < 10 {
		t.Fatalf("only %d runnable README lines: %+v", len(run), blocks)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	clone := filepath.Join(work, "mcpprobe")
	home := filepath.Join(work, "home")
	gobin := filepath.Join(work, "gobin")
	for _, d := range []string{clone, home, gobin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyCheckout(t, root, clone)
	env := []string{"HOME=" + home, "GOBIN=" + gobin, "NO_COLOR=1", "COLUMNS=100",
		"PATH=" + filepath.Join(clone, "bin") + string(os.PathListSeparator) + gobin + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN"} {
		v, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(v)))
	}
	for _, c := range run {
		// a hang guard, not a bound on speed: make build on a loaded machine takes minutes
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", c.cmd)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Errorf("README.md:%d: %s: %v\nstdout:\n%s\nstderr:\n%s", c.line, c.cmd, err, tail(stdout.String()), tail(stderr.String()))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("README.md:%d: %s: the README shows %q, which it did not print:\n%s", c.line, c.cmd, w, tail(stdout.String()))
			}
		}
	}
	for _, c := range run {
		if strings.HasPrefix(c.cmd, "go install ./cmd/mcpprobe") {
			if _, err := os.Stat(filepath.Join(gobin, "mcpprobe")); err != nil {
				t.Errorf("README.md:%d: go install ./cmd/mcpprobe left no binary in GOBIN: %v", c.line, err)
			}
		}
	}
}

// tail is the last 40 lines of s.
func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = append([]string{"…"}, lines[len(lines)-40:]...)
	}
	return strings.Join(lines, "\n")
}
