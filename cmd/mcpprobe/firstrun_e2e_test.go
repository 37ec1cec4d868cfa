//go:build e2e

package main

// The first hour (issue 26): a server fetched by npx on its first run,
// and `call TOOL ./server` (the words the wrong way round), each get a
// message that says what to do.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A launcher still downloading when --startup-timeout ends: the message
// says that a first download may be the cause, and how to warm it.
func TestStartupTimeoutOfADownloaderSaysHowToWarmIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, prog := range []string{"npx", "uvx"} {
		script := "#!/bin/sh\necho 'npm warn exec The following package was not found and will be installed: @x/server' >&2\nexec sleep 30\n"
		if err := os.WriteFile(filepath.Join(dir, prog), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
	quick := []string{"--startup-timeout", "1s", "--discover-timeout", "500ms", "--grace", "200ms"}
	tests := []struct {
		server []string
		want   string
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-memory"}, "run `npx -y @modelcontextprotocol/server-memory --help` once"},
		{[]string{"uvx", "mcp-server-fetch"}, "run `uvx mcp-server-fetch --help` once"},
	}
	for _, tc := range tests {
		t.Run(tc.server[0], func(t *testing.T) {
			t.Parallel()
			r := mcpprobeEnv(t, env, append(append([]string{"wire"}, quick...), append([]string{"--"}, tc.server...)...)...)
			if r.code != 3 {
				t.Fatalf("exit %d, want 3:\n%s", r.code, r.stderr)
			}
			try := r.stderr[strings.Index(r.stderr, "\nTry: ")+1:]
			for _, w := range []string{"a first run of " + tc.server[0] + " downloads", tc.want, "raise --startup-timeout"} {
				if !strings.Contains(try, w) {
					t.Errorf("the Try line lacks %q:\n%s", w, r.stderr)
				}
			}
			if !strings.Contains(r.stderr, "did not answer") || !strings.Contains(r.stderr, "(--startup-timeout)") {
				t.Errorf("not a startup timeout:\n%s", r.stderr)
			}
		})
	}
	// Any other command that times out gets no such hint.
	r := mcpprobe(t, append(append([]string{"wire"}, quick...), "--", bin.raw, "-silent")...)
	if r.code != 3 || strings.Contains(r.stderr, "downloads") {
		t.Errorf("exit %d; a server that is no downloader got the hint:\n%s", r.code, r.stderr)
	}
}

// A server that exits with a stack trace is shown by its error line
// first, not by the trace's last frames.
func TestStartupFailureLeadsWithTheErrorLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	server := filepath.Join(dir, "server")
	script := "#!/bin/sh\ncat >&2 <<'X'\nnode:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\n" +
		"Error: Cannot find module '/srv/orders/dist/index.js'\n" +
		"    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n" +
		"    at Module._load (node:internal/modules/cjs/loader:1051:27)\n" +
		"    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:174:12)\n" +
		"    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.11.0\nX\nexit 1\n"
	if err := os.WriteFile(server, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := mcpprobe(t, "wire", server)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "Received: stderr: Error: Cannot find module '/srv/orders/dist/index.js'\n") {
		t.Errorf("the error line does not lead what was received:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "stderr: Node.js v20.11.0") {
		t.Errorf("the tail is gone:\n%s", r.stderr)
	}
}

// call TOOL ./server: the words are the wrong way round; the message
// says so and gives the two forms, exit 2, and nothing is started.
func TestCallWithTheToolFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"call", "find_orders", bin.good}, []string{
			`"find_orders" is not a file or a command, and "` + bin.good + `" is a file`,
			"mcpprobe call " + bin.good + " find_orders", "mcpprobe call find_orders -- " + bin.good}},
		{[]string{"read", "orders://recent", bin.good}, []string{"mcpprobe read " + bin.good + " orders://recent"}},
		{[]string{"prompt", "summarize", "http://127.0.0.1:1/mcp"}, []string{"is a URL", "mcpprobe prompt http://127.0.0.1:1/mcp summarize"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			if r.code != 2 || r.stdout != "" {
				t.Fatalf("exit %d, want 2 and no output:\n%s%s", r.code, r.stdout, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("the message lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
	// The right way round still runs.
	if r := mcpprobe(t, "call", bin.good, "find_orders"); r.code != 0 {
		t.Errorf("call ./server TOOL: exit %d:\n%s", r.code, r.stderr)
	}
}
