//go:build e2e

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inFolder runs mcpprobe in dir with HOME (and the user config folder)
// at home, as a user in a project would.
func inFolder(t *testing.T, dir, home string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "SERVER_TOKEN=tok-s3cret")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServersLists: `mcpprobe servers` lists every server of the config
// files the hosts read for this folder and user, with where each came
// from and no secret; `--config FILE` alone lists that file's.
func TestServersLists(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(project, ".mcp.json"), `{"mcpServers": {"orders": {"command": "./bin/server", "cwd": "srv", "env": {"TOKEN": "${SERVER_TOKEN}"}}}}`)
	writeFile(t, filepath.Join(project, ".cursor", "mcp.json"), `{"mcpServers": {"remote": {"url": "https://example.test/mcp?api_key=k3y-s3cret", "headers": {"Authorization": "Bearer b3arer-s3cret"}}}}`)
	writeFile(t, filepath.Join(project, ".vscode", "mcp.json"), "{\n // comment\n \"servers\": {\"vs\": {\"type\": \"stdio\", \"command\": \"node\", \"args\": [\"s.mjs\"],},},\n}")
	writeFile(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {"user-wide": {"command": "npx", "args": ["-y", "pkg"]}}}`)
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"needs-var": {"command": "x", "env": {"K": "${MCPPROBE_UNSET_VAR}"}}}}`)
	writeFile(t, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), `{"mcpServers": {"desktop": {"command": "/usr/bin/desk"}}}`)

	r := inFolder(t, project, home, "servers")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"orders", "stdio", "TOKEN=*** " + filepath.Join(project, "srv", "bin", "server"), "Claude Code, project: .mcp.json",
		"remote", "http", "https://example.test/mcp?api_key=***", "Cursor, project: .cursor/mcp.json",
		"vs", "node s.mjs", "VS Code, project: .vscode/mcp.json",
		"user-wide", "npx -y pkg", "Claude Code, user: ~/.claude.json",
		"needs-var", "cannot be probed: ${MCPPROBE_UNSET_VAR} is not set", "Cursor, user: ~/.cursor/mcp.json",
		"desktop", "Claude Desktop, user: ~/.config/Claude/claude_desktop_config.json",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("servers lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, secret := range []string{"tok-s3cret", "k3y-s3cret", "b3arer-s3cret"} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("a secret is shown: %s", secret)
		}
	}

	// --config FILE alone, and servers --config FILE: that file's servers.
	for _, args := range [][]string{{"--config", ".mcp.json"}, {"servers", "--config", ".mcp.json"}} {
		r := inFolder(t, project, home, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "orders") || strings.Contains(r.stdout, "user-wide") {
			t.Errorf("%s: exit %d:\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	// A flag listing does not use is refused, not ignored.
	r = inFolder(t, project, home, "--config", ".mcp.json", "--json")
	checkUsageError(t, r, "", "--json does not apply to servers")
	// No config anywhere: said so, exit 0.
	r = inFolder(t, t.TempDir(), t.TempDir(), "servers")
	if r.code != 0 || !strings.Contains(r.stdout, "No host config file found") {
		t.Errorf("empty: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A file that is not a config: the user's terms, not Go's.
	writeFile(t, filepath.Join(project, "list.json"), `[1, 2]`)
	r = inFolder(t, project, home, "servers", "--config", "list.json")
	checkUsageError(t, r, "servers", "--config list.json: expected an object, got a list")
}

// TestConfigRelativeCommand: a config entry's relative command is found
// in its cwd, as the host that spawns it there finds it, wherever
// mcpprobe runs from.
func TestConfigRelativeCommand(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	cfg := filepath.Join(project, ".mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"good": {"command": "./`+filepath.Base(bin.good)+`", "cwd": "`+filepath.Dir(bin.good)+`"}}}`)
	r := inFolder(t, t.TempDir(), t.TempDir(), "wire", "--json", "--config", cfg, "good")
	if r.code != 0 || !strings.Contains(r.stdout, `"orders-server"`) {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// A hosts file of the wrong shape: said in the user's terms.
	writeFile(t, filepath.Join(project, "hosts.json"), `[{"id": "x"}]`)
	r = mcpprobe(t, "budget", "--hosts", filepath.Join(project, "hosts.json"), bin.good)
	checkUsageError(t, r, "budget", "expected an object with a hosts list, got a list")
	if strings.Contains(r.stderr, "Go value") || strings.Contains(r.stderr, "budget.") {
		t.Errorf("Go internals in: %s", r.stderr)
	}
}

// TestServersCodexHome checks that servers reads Codex's user config from
// $CODEX_HOME, as Codex does, and not from ~/.codex then.
func TestServersCodexHome(t *testing.T) {
	t.Parallel()
	home, codexHome := t.TempDir(), t.TempDir()
	for dir, name := range map[string]string{filepath.Join(home, ".codex"): "in_home", codexHome: "in_codex_home"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "[mcp_servers." + name + "]\ncommand = \"/bin/true\"\n"
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := mcpprobeEnv(t, []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "XDG_CONFIG_HOME=" + home}, "servers", "--wide")
	if r.code != 0 || !strings.Contains(r.stdout, "in_codex_home") || strings.Contains(r.stdout, "in_home") {
		t.Errorf("with CODEX_HOME: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	r = mcpprobeEnv(t, []string{"HOME=" + home, "CODEX_HOME=", "XDG_CONFIG_HOME=" + home}, "servers", "--wide")
	if r.code != 0 || !strings.Contains(r.stdout, "in_home") {
		t.Errorf("CODEX_HOME empty: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}
