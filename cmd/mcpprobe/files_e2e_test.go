//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitCheckout makes dir a git work tree whose index tracks files, with
// git itself (skipped where git is not installed).
func gitCheckout(t *testing.T, dir string, files ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, args := range [][]string{{"init", "-q"}, append([]string{"add", "--"}, files...)} {
		if args[0] == "add" && len(files) == 0 {
			continue
		}
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// A checkout as actions/checkout leaves it: the job's token in
// .git/config, a .env an earlier step wrote (git-ignored), and the pull
// request's links into both. report --check and check --baseline refuse
// each, name the rule, and print nothing of the target.
func TestInputLinksIntoGitRefused(t *testing.T) {
	t.Parallel()
	const canary = "CANARY-job-token-extraheader"
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCheckout(t, repo, ".gitignore")
	cfg := filepath.Join(repo, ".git", "config")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Its first line is what --baseline quoted; the canary is on every line.
	planted := "[http \"https://github.com/\"] # " + canary + "\n\textraheader = AUTHORIZATION: basic " + canary + "\n" + string(b)
	if err := os.WriteFile(cfg, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN="+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string {
		p := filepath.Join(repo, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toConfig := link("MCPPROBE.md", ".git/config")
	toGit := link("docs", ".git")
	toEnv := link("env.md", ".env")
	tests := []struct {
		name string
		args []string
		rule string
	}{
		{"report --check, link to .git/config", []string{"report", "--check", toConfig, "--", bin.raw}, "is inside a .git folder"},
		{"report --check, through a link to .git", []string{"report", "--check", filepath.Join(toGit, "config"), "--", bin.raw}, "is inside a .git folder"},
		{"report --check, .git/config itself", []string{"report", "--check", cfg, "--", bin.raw}, "is inside a .git folder"},
		{"report --check, link to an ignored .env", []string{"report", "--check", toEnv, "--", bin.raw}, "is a symlink to a file git does not track"},
		{"check --baseline, link to .git/config", []string{"check", "--baseline", toConfig, "--", bin.raw}, "is inside a .git folder"},
		{"check --baseline, link to an ignored .env", []string{"check", "--baseline", toEnv, "--", bin.raw}, "is a symlink to a file git does not track"},
		{"diff --ref, link to .git/config", []string{"diff", "--ref", toConfig, "--", bin.raw}, "is inside a .git folder"},
		{"--config, link to .git/config", []string{"wire", "--config", toConfig, "x"}, "is inside a .git folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.rule) {
				t.Errorf("stderr does not name the rule %q: %s", tc.rule, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, canary) || strings.Contains(r.stdout+r.stderr, "extraheader") {
				t.Errorf("the target's content is printed:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
		})
	}
}

// Inputs nested 300,000 deep, in every syntax mcpprobe reads, are refused
// before a parser sees them (a host config like this had taken 54 s). The
// time is logged, not asserted: the minute mcpprobe() allows, scaled by the
// load, is the bound.
func TestDeepInputsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	deep := strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jsonCfg := write("mcp.json", `{"mcpServers":{"x":{"command":"y","args":`+deep+`}}}`)
	jsoncCfg := write("settings.json", "// VS Code\n{\"servers\":{\"x\":{\"command\":\"y\",\"args\":"+deep+",}}}")
	if err := os.MkdirAll(filepath.Join(dir, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	tomlCfg := write(filepath.Join(".codex", "config.toml"), "[mcp_servers.x]\ncommand = \"y\"\nargs = "+deep+"\n")
	ref := write("ref.json", `{"tools":[{"name":"t","inputSchema":`+strings.Repeat(`{"a":`, 300_000)+"1"+strings.Repeat("}", 300_000)+`}]}`)
	hostsFile := write("hosts.json", `{"hosts":`+deep+`}`)
	tests := []struct {
		name string
		args []string
	}{
		{"JSON config", []string{"wire", "--config", jsonCfg, "x"}},
		{"JSONC config", []string{"wire", "--config", jsoncCfg, "x"}},
		{"TOML config", []string{"wire", "--config", tomlCfg, "x"}},
		{"servers --config", []string{"servers", "--config", jsonCfg}},
		{"diff --ref", []string{"diff", "--ref", ref, "--", bin.raw}},
		{"budget --hosts", []string{"budget", "--hosts", hostsFile, "--", bin.raw}},
		{"survey input", []string{"survey", jsonCfg, "-o", filepath.Join(dir, "out.jsonl")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			t.Logf("refused in %v, peak %d KiB", r.took.Round(1e6), r.peakKB)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d\n%.2000s", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, "nests more than 1000 levels deep") {
				t.Errorf("stderr: %.2000s", r.stderr)
			}
		})
	}
}

// A committed report a pull request made huge gets a bounded answer: 5
// million lines, or one line of 60 MB, after the real report's own lines:
// exit 1, where the files part, and that no diff follows, in bounded memory.
func TestCheckHugeCommittedReport(t *testing.T) {
	t.Parallel()
	first := mcpprobe(t, "report", "--", bin.raw)
	if first.code != 0 {
		t.Fatalf("report: exit %d\n%s", first.code, first.stderr)
	}
	lines := strings.Count(first.stdout, "\n")
	dir := t.TempDir()
	for name, tail := range map[string]string{
		"5M lines":    strings.Repeat("x\n", 5_000_000),
		"60 MB line":  strings.Repeat("y", 60<<20) + "\n",
		"one changed": "z\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".md")
			if err := os.WriteFile(p, []byte(first.stdout+tail), 0o644); err != nil {
				t.Fatal(err)
			}
			r := mcpprobe(t, "report", "--check", p, "--", bin.raw)
			t.Logf("answered in %v, peak %d KiB", r.took.Round(1e6), r.peakKB)
			if r.code != exitGate {
				t.Errorf("exit %d, want %d\n%s", r.code, exitGate, r.stderr)
			}
			if r.peakKB > maxRSSKB {
				t.Errorf("peak RSS %d KiB, over %d", r.peakKB, maxRSSKB)
			}
			if len(r.stdout) > 64<<10 {
				t.Errorf("stdout is %d bytes", len(r.stdout))
			}
			want := "The files differ from line " + strconv.Itoa(lines+1) + " on:"
			if name == "one changed" {
				want = "+++ " + p + " (fresh)"
				if !strings.Contains(r.stdout, "-z") {
					t.Errorf("the diff lacks the line: %s", r.stdout)
				}
			} else if !strings.Contains(r.stdout, "so no diff is shown") {
				t.Errorf("stdout does not say no diff is shown: %.1000s", r.stdout)
			}
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q: %.1000s", want, r.stdout)
			}
		})
	}
}
