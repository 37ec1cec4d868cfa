//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// onTerminal runs mcpprobe with stdout (or stderr, with onStderr) on a
// pseudo-terminal cols wide, env added to its environment, and returns
// what the terminal showed (line ends as "\n") and the other stream.
func onTerminal(t *testing.T, cols int, onStderr bool, env []string, args ...string) (tty, other string, code int) {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 50, Cols: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	if onStderr {
		cmd.Stdout, cmd.Stderr = &buf, pts
	} else {
		cmd.Stdout, cmd.Stderr = pts, &buf
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	var shown bytes.Buffer
	read := make(chan struct{})
	go func() {
		// The read ends with EIO once the child has gone and the
		// terminal has no writer left.
		_, _ = io.Copy(&shown, ptm)
		close(read)
	}()
	err = cmd.Wait()
	<-read
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	return strings.ReplaceAll(shown.String(), "\r\n", "\n"), buf.String(), code
}

// TestOutputFitsTheTerminal: with COLUMNS=100 on a terminal, no line of
// wire, budget, diff, bench, faults or malformed is wider than 100
// columns (as a terminal counts them), severities and verdicts are
// coloured, and NO_COLOR, --no-color, --wide and a pipe each turn that
// off as they should.
func TestOutputFitsTheTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string // shown, coloured
	}{
		{"wire", []string{"wire", "--", bin.raw, "-banner"}, "\x1b[31merror\x1b[0m"},
		{"budget", []string{"budget", bin.good}, "\x1b[33mwarning\x1b[0m"},
		{"diff", []string{"diff", bin.good, "--", bin.raw}, "instructions"},
		{"bench", []string{"bench", "--startup", "1", "-n", "5", "--warmup", "1", bin.good}, "find_orders"},
		{"faults", []string{"faults", "--crash-at", "2", "--calls", "3", bin.good}, "not_connected"},
		{"malformed", []string{"malformed", "--timeout", secs(time.Second), "--call", "find_orders", bin.good}, "\x1b[32m✓ pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The terminal is wider than COLUMNS: COLUMNS wins, as it does
			// for ls and git.
			shown, stderr, code := onTerminal(t, 200, false, []string{"COLUMNS=100"}, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			widest := 0
			for _, l := range strings.Split(shown, "\n") {
				widest = max(widest, terminal.Width(l))
				if terminal.Width(l) > 100 {
					t.Errorf("a line of %d columns:\n%s", terminal.Width(l), l)
				}
			}
			if !strings.Contains(shown, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, shown)
			}
			// Piped: full width, no colour, whatever COLUMNS says.
			piped := mcpprobe(t, tc.args...)
			if strings.Contains(piped.stdout, "\x1b[") {
				t.Errorf("colour in piped output:\n%s", piped.stdout)
			}
			pipedWidest := 0
			for _, l := range strings.Split(piped.stdout, "\n") {
				pipedWidest = max(pipedWidest, terminal.Width(l))
			}
			if pipedWidest <= 100 && tc.name != "faults" {
				t.Errorf("piped output is only %d columns: it should not be fitted", pipedWidest)
			}
		})
	}
	t.Run("no colour", func(t *testing.T) {
		t.Parallel()
		for _, env := range [][]string{{"NO_COLOR=1"}, {"TERM=dumb"}} {
			shown, _, _ := onTerminal(t, 100, false, env, "wire", "--", bin.raw, "-banner")
			if strings.Contains(shown, "\x1b[") {
				t.Errorf("%s: colour shown:\n%s", env, shown)
			}
		}
		shown, _, _ := onTerminal(t, 100, false, nil, "wire", "--no-color", "--", bin.raw, "-banner")
		if strings.Contains(shown, "\x1b[") {
			t.Errorf("--no-color: colour shown:\n%s", shown)
		}
	})
	t.Run("terminal size and --wide", func(t *testing.T) {
		t.Parallel()
		shown, _, _ := onTerminal(t, 72, false, nil, "budget", bin.good)
		for _, l := range strings.Split(shown, "\n") {
			if terminal.Width(l) > 72 {
				t.Errorf("a line of %d columns on a 72-column terminal:\n%s", terminal.Width(l), l)
			}
		}
		wide, _, _ := onTerminal(t, 72, false, nil, "budget", "--wide", bin.good)
		widest := 0
		for _, l := range strings.Split(wide, "\n") {
			widest = max(widest, terminal.Width(l))
		}
		if widest <= 72 {
			t.Errorf("--wide is still fitted (%d columns)", widest)
		}
	})
}

// TestProgressOnTerminal: on a terminal's stderr a silent server is seen
// being waited for, against the limit the user chose, and the line is
// cleared before the message; piped, stderr holds the message alone.
func TestProgressOnTerminal(t *testing.T) {
	t.Parallel()
	args := []string{"wire", "--startup-timeout", "2s", "--discover-timeout", "500ms", "--", bin.raw, "-silent"}
	shown, _, code := onTerminal(t, 100, true, nil, args...)
	if code != 3 {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	for _, want := range []string{"wire · starting", "\r\x1b[2Kmcpprobe: the server did not answer initialize within 2s"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal did not show %q:\n%q", want, shown)
		}
	}
	// The line ticks each second of the whole run, and initialize starts
	// after discovery's 500 ms: on a loaded machine its own elapsed time
	// rounds to 1 s or 2 s at a tick, never beyond the limit.
	if !regexp.MustCompile(`waiting for initialize \([12] s of 2 s\)`).MatchString(shown) {
		t.Errorf("the terminal did not show initialize being waited for against the 2 s limit:\n%q", shown)
	}
	piped := mcpprobe(t, args...)
	if strings.Contains(piped.stderr, "waiting for") || strings.Contains(piped.stderr, "\x1b[") {
		t.Errorf("progress on a pipe:\n%q", piped.stderr)
	}
	quiet, _, _ := onTerminal(t, 100, true, nil, append([]string{"wire", "--quiet"}, args[1:]...)...)
	if strings.Contains(quiet, "waiting for") {
		t.Errorf("progress with --quiet:\n%q", quiet)
	}
}

// TestEveryCommandFitsTheTerminal: at COLUMNS=80 and COLUMNS=100 on a
// terminal, no line of any command's text output on the fixtures is wider
// than the terminal (issue 26). What is not text is not fitted, and not
// here: --json and snapshot's lock file (JSON), report, budget --view and
// survey summary (markdown, for a file or a forge), proxy (a host's
// stdio), survey (JSON lines).
func TestEveryCommandFitsTheTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	servers := map[string]any{
		"good":  map[string]any{"command": bin.good},
		"raw":   map[string]any{"command": bin.raw, "args": []string{"-banner", "-instructions-len", "600"}},
		"crash": map[string]any{"command": bin.raw, "args": []string{"-exit-before-init", "7"}},
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ref, _ := filepath.Abs("../../fixtures/goodserver/reference.anthropic.json")
	lock := filepath.Join(dir, "lock.json")
	if r := mcpprobe(t, "snapshot", "-o", lock, bin.good); r.code != 0 {
		t.Fatalf("snapshot: %s", r.stderr)
	}
	md := filepath.Join(dir, "MCPPROBE.md")
	if r := mcpprobe(t, "report", "--date", "2026-12-02", "-o", md, bin.good); r.code != 0 {
		t.Fatalf("report: %s", r.stderr)
	}
	// A stale report: --check says what changed.
	stale := filepath.Join(dir, "STALE.md")
	old, _ := os.ReadFile(md)
	if err := os.WriteFile(stale, bytes.Replace(old, []byte("orders-server"), []byte("orders-server-"+strings.Repeat("x", 120)), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	quick := secs(time.Second)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"wire", []string{"wire", bin.good}, 0},
		{"wire raw", []string{"wire", "--", bin.raw, "-banner", "-pages", "3", "-instructions-len", "600", "-ansi", "-unknown-id"}, 0},
		{"wire --all", []string{"wire", "--config", cfg, "--all"}, 0},
		{"budget", []string{"budget", bin.good}, 0},
		{"budget --verbose", []string{"budget", "--verbose", bin.good}, 0},
		{"budget --all", []string{"budget", "--config", cfg, "--all"}, 0},
		{"budget --all --verbose", []string{"budget", "--config", cfg, "--all", "--verbose"}, 0},
		{"diff two servers", []string{"diff", bin.good, "--", bin.raw}, 0},
		{"diff --ref", []string{"diff", "--ref", ref, bin.good}, 0},
		{"diff --ref lock", []string{"diff", "--ref", lock, bin.good}, 0},
		{"bench", []string{"bench", "--startup", "1", "-n", "5", "--warmup", "1", bin.good}, 0},
		{"faults", []string{"faults", "--crash-at", "2", "--calls", "3", bin.good}, 0},
		{"faults --restart", []string{"faults", "--crash-at", "2", "--restart", "--calls", "3", "--client", "all", bin.good}, 0},
		{"malformed", []string{"malformed", "--timeout", quick, "--call", "find_orders", bin.good}, 0},
		{"check", []string{"check", "--skip-malformed", "--", bin.raw, "-ping-result", `{"pong":"` + strings.Repeat("long ", 40) + `"}`, "-logging-missing"}, 1},
		{"call", []string{"call", bin.good, "order_total", "--args", `{"id":"A1"}`}, 0},
		{"read", []string{"read", bin.good, "orders://recent"}, 0},
		{"prompt", []string{"prompt", bin.good, "summarize_order", "--args", `{"id":"A1"}`}, 0},
		{"servers", []string{"servers", "--config", cfg}, 0},
		{"hosts", []string{"hosts"}, 0},
		{"hosts vscode", []string{"hosts", "vscode"}, 0},
		{"report --check", []string{"report", "--check", md, bin.good}, 0},
		{"report --check stale", []string{"report", "--check", stale, bin.good}, 1},
		{"version", []string{"version"}, 0},
	}
	// --verbose shows the full tables: they fit too.
	for _, c := range tests[:len(tests)-1] {
		if c.args[0] != "budget" && c.args[0] != "report" && takesFlag(c.args[0], "verbose") {
			tests = append(tests, struct {
				name string
				args []string
				code int
			}{c.name + " --verbose", append([]string{c.args[0], "--verbose"}, c.args[1:]...), c.code})
		}
	}
	for _, tc := range tests {
		for _, cols := range []int{80, 100} {
			t.Run(fmt.Sprintf("%s %d", tc.name, cols), func(t *testing.T) {
				t.Parallel()
				shown, stderr, code := onTerminal(t, cols, false, []string{fmt.Sprintf("COLUMNS=%d", cols)}, tc.args...)
				if code != tc.code {
					t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
				}
				if strings.TrimSpace(shown) == "" && tc.name != "report --check" {
					t.Fatalf("nothing shown; stderr: %s", stderr)
				}
				for _, l := range strings.Split(shown, "\n") {
					if w := terminal.Width(l); w > cols {
						t.Errorf("a line of %d columns on a %d-column terminal:\n%s", w, cols, l)
					}
				}
			})
		}
	}
}
