//go:build e2e && unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/reports/inertcheck"
)

// A server whose every string carries URLs, e-mail addresses, HTML, link
// and image syntax, entities and stray backticks: in every markdown
// mcpprobe writes of it, goldmark with GitHub's extensions (Linkify
// among them) finds no link, image or HTML but mcpprobe's own.
func TestHostileTextNeverLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileName := "http://evil.example/n www.evil.example u@evil.example [x](http://evil.example/l) <b>b</b>"
	cfg := filepath.Join(dir, ".mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		hostileName: map[string]any{"command": bin.raw, "args": []string{"-hostile-text"}},
		"plain":     map[string]any{"command": bin.raw},
	}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		name string
		args []string
	}{
		{"report", []string{"report", "--", bin.raw, "-hostile-text"}},
		{"report --all", []string{"report", "--config", cfg, "--all"}},
		{"budget --view", []string{"budget", "--view", "claude-code", "--", bin.raw, "-hostile-text"}},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out.md")
			r := mcpprobe(t, append([]string{run.args[0], "--out", out}, run.args[1:]...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			md, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			// The server's text is there, to be read.
			if n := bytes.Count(md, []byte("evil.example")); n < 10 {
				t.Fatalf("only %d mentions of evil.example: the hostile text did not reach the report", n)
			}
			if live := inertcheck.Live(md); len(live) > 0 {
				t.Errorf("%d live elements, the first: %s", len(live), strings.Join(live[:min(len(live), 10)], "\n"))
			}
		})
	}
}

// report --check on a committed file that is not a regular file of a
// sane size: refused at once, exit 2, in little memory, and what a
// symlink points at is never printed.
func TestCheckRefusesUntrustedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const canary = "CANARY-c0ffee-never-printed"
	secret := filepath.Join(dir, "token")
	if err := os.WriteFile(secret, []byte("GITHUB_TOKEN="+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The links sit in a checkout (a folder with .git) and point out of it.
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(repo, "MCPPROBE.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	environ := filepath.Join(repo, "environ.md")
	if err := os.Symlink("/proc/self/environ", environ); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.md")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct{ name, file, want string }{
		{"symlink to a token", link, "is a symlink"},
		{"symlink to /proc/self/environ", environ, "is a symlink"},
		{"FIFO", fifo, "is a named pipe (FIFO)"},
		{"/dev/zero", "/dev/zero", "is a device"},
		{"2 GiB sparse", sparse, "is 2.0 GiB, over the 64 MiB cap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, "report", "--check", tc.file, "--", bin.raw)
			t.Logf("exit %d in %v, peak RSS %d KiB", r.code, r.took.Round(time.Millisecond), r.peakKB)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not say %q: %s", tc.want, r.stderr)
			}
			for _, leak := range []string{canary, secret, "/proc/self/environ", "PATH="} {
				if strings.Contains(r.stdout+r.stderr, leak) {
					t.Errorf("the output holds %q", leak)
				}
			}
			if r.peakKB == 0 || r.peakKB > 100<<10 {
				t.Errorf("peak RSS %d KiB, want under 100 MiB", r.peakKB)
			}
		})
	}
}

// A committed report whose lines carry a clipboard write (OSC 52), a
// hyperlink (OSC 8), a clear screen and C1 and bidi controls, stale on
// those lines: the check's diff shows them escaped, with no ESC and no C1
// byte in anything printed.
func TestCheckDiffEscapesCommittedLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.md")
	if r := mcpprobe(t, "report", "--out", fresh, "--", bin.raw); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	md, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(md), "\n")
	lines[0] += " \x1b]52;c;Y3VybCBldmlsfHNo\x07 \x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
	lines = append(lines[:3], append([]string{"\x1b[2J\x1b[3J\x1b[H cleared \u009b2J \u202eesrever\u202c"}, lines[3:]...)...)
	committed := filepath.Join(dir, "MCPPROBE.md")
	if err := os.WriteFile(committed, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mcpprobe(t, "report", "--check", committed, "--", bin.raw)
	if r.code != exitGate {
		t.Fatalf("exit %d, want %d: %s", r.code, exitGate, r.stderr)
	}
	out := r.stdout + r.stderr
	if strings.Contains(out, "\x1b") {
		t.Errorf("an ESC byte reached the output:\n%q", out)
	}
	if regexp.MustCompile("[\u0080-\u009f\u202a-\u202e\u2066-\u2069]").MatchString(out) {
		t.Errorf("a C1 or bidi control reached the output:\n%q", out)
	}
	for _, want := range []string{`-# rawserver 0.0.1 — mcpprobe report \x1b]52;c;Y3VybCBldmlsfHNo\x07`, `\x1b]8;;http://evil.example/\x1b\click`, `-\x1b[2J\x1b[3J\x1b[H cleared \u009b2J \u202eesrever\u202c`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the diff does not show %q:\n%s", want, r.stdout)
		}
	}
}

// Every other file a pull request could put in the checkout is refused
// as a symlink too, without its target's content.
func TestInputFilesRefuseSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const canary = "CANARY-input-never-printed"
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"mcpServers":{"`+canary+`":{"command":"`+canary+`"}},"hosts":[{"id":"`+canary+`"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(repo, "link.json")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"--config", []string{"wire", "--config", link, "x"}},
		{"--config --all", []string{"report", "--config", link, "--all"}},
		{"servers --config", []string{"servers", "--config", link}},
		{"--hosts", []string{"budget", "--hosts", link, "--", bin.raw}},
		{"diff --ref", []string{"diff", "--ref", link, "--", bin.raw}},
		{"report --ref", []string{"report", "--ref", link, "--", bin.raw}},
		{"survey input", []string{"survey", link, "-o", filepath.Join(dir, "out.jsonl")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			if !strings.Contains(r.stderr, "is a symlink") {
				t.Errorf("stderr does not say it is a symlink: %s", r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, canary) || strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("the output holds the target or its content:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
}

// Ctrl-C while a huge input is being read (a survey over a 900 MiB file
// of zeros): mcpprobe ends with 130, as for any interrupt.
func TestInterruptDuringHugeInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "fleet.jsonl")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(900 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(bin.mcpprobe, "survey", in, "-o", filepath.Join(dir, "out.jsonl"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // past signal.Notify: the read is under way
	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("still running 30 s after SIGINT")
	}
	t.Logf("ended %v after SIGINT", time.Since(sent).Round(time.Millisecond))
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted by SIGINT") {
		t.Errorf("stderr: %s", errb.String())
	}
}

// A symlink that stays inside its checkout to a file committed there is an
// ordinary file (a report kept in docs/ and linked from the root): --check
// reads it.
func TestCheckFollowsSymlinkInsideTree(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := mcpprobe(t, "report", "--", bin.raw)
	if first.code != 0 {
		t.Fatalf("report: exit %d\n%s", first.code, first.stderr)
	}
	if err := os.WriteFile(filepath.Join(repo, "docs", "MCPPROBE.md"), []byte(first.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCheckout(t, repo, "docs/MCPPROBE.md")
	link := filepath.Join(repo, "MCPPROBE.md")
	if err := os.Symlink(filepath.Join("docs", "MCPPROBE.md"), link); err != nil {
		t.Fatal(err)
	}
	r := mcpprobe(t, "report", "--check", link, "--", bin.raw)
	if r.code != 0 {
		t.Errorf("report --check through an in-tree link: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
