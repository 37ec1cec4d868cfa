package dial

import (
	"strings"
	"testing"
)

func TestStderrExcerptLeadsWithTheError(t *testing.T) {
	node := []string{
		"node:internal/modules/cjs/loader:1228",
		"  throw err;",
		"  ^",
		"",
		"Error: Cannot find module '/srv/orders/dist/index.js'",
		"    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
		"    at Module._load (node:internal/modules/cjs/loader:1051:27)",
		"    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:174:12)",
		"    at node:internal/main/run_main_module:28:49 {",
		"  code: 'MODULE_NOT_FOUND',",
		"  requireStack: []",
		"}",
		"",
		"Node.js v20.11.0",
	}
	python := []string{
		"Traceback (most recent call last):",
		`  File "/srv/orders/server.py", line 3, in <module>`,
		"    from mcp.server.fastmcp import FastMCP",
		"ModuleNotFoundError: No module named 'mcp'",
	}
	chained := []string{
		"Traceback (most recent call last):",
		`  File "/srv/orders/server.py", line 9, in main`,
		`    key = os.environ["ORDERS_API_KEY"]`,
		`  File "<frozen os>", line 714, in __getitem__`,
		"KeyError: 'ORDERS_API_KEY'",
		"",
		"During handling of the above exception, another exception occurred:",
		"",
		"Traceback (most recent call last):",
		`  File "/srv/orders/server.py", line 12, in <module>`,
		"    main()",
		"SystemExit: 1",
	}
	goPanic := []string{
		"panic: open /etc/orders.json: no such file or directory",
		"",
		"goroutine 1 [running]:",
		"main.main()",
		"\t/srv/orders/main.go:12 +0x65",
	}
	plain := []string{"orders server 1.2.0", "reading config", "shutting down", "bye"}
	long := append(append([]string{}, plain...), "a", "b", "c", "d")
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		// The error first, then what the tail keeps: never a frame alone.
		{"node, Cannot find module", node, []string{
			"Error: Cannot find module '/srv/orders/dist/index.js'", "… (5 lines)", "  requireStack: []", "}", "Node.js v20.11.0"}},
		// A traceback's error is its last line.
		{"python traceback", python, []string{
			"ModuleNotFoundError: No module named 'mcp'", "Traceback (most recent call last):",
			`  File "/srv/orders/server.py", line 3, in <module>`, "    from mcp.server.fastmcp import FastMCP"}},
		{"python, chained: the first error", chained, []string{
			"KeyError: 'ORDERS_API_KEY'", "… (2 lines)", `  File "/srv/orders/server.py", line 12, in <module>`, "    main()", "SystemExit: 1"}},
		{"go panic", goPanic, []string{
			"panic: open /etc/orders.json: no such file or directory", "goroutine 1 [running]:", "main.main()", "\t/srv/orders/main.go:12 +0x65"}},
		{"npm error", []string{"npm warn exec The following package was not found and will be installed: @x/y", "npm error code E404", "npm error 404 Not Found - GET https://registry.npmjs.org/@x%2fy - Not found"},
			[]string{"npm error code E404", "npm warn exec The following package was not found and will be installed: @x/y", "npm error 404 Not Found - GET https://registry.npmjs.org/@x%2fy - Not found"}},
		{"rust", []string{"   Compiling orders v0.1.0", "error[E0425]: cannot find value `x` in this scope"},
			[]string{"error[E0425]: cannot find value `x` in this scope", "   Compiling orders v0.1.0"}},
		// No line states an error: the tail, as it was.
		{"plain text", plain, plain},
		{"plain text, longer than the excerpt", long, long[len(long)-5:]},
		{"one line", []string{"fatal: ORDERS_API_KEY is not set"}, []string{"fatal: ORDERS_API_KEY is not set"}},
		{"none", nil, nil},
		// A word that starts like an error is not one.
		{"not errors", []string{"ErrorReporting: on", "Error handling ready", "DeprecationWarning: x", "ok"},
			[]string{"ErrorReporting: on", "Error handling ready", "DeprecationWarning: x", "ok"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stderrExcerpt(tc.lines, 5)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || len(got) != len(tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if len(got) > 5 {
				t.Errorf("%d lines, over 5", len(got))
			}
		})
	}
}

func TestDownloadHint(t *testing.T) {
	tests := []struct {
		command string
		args    []string
		want    string // in the hint; "" for none
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-memory"}, "run `npx -y @modelcontextprotocol/server-memory --help` once"},
		{"/usr/local/bin/npx", []string{"-p", "@x/pkg", "x-server", "--port", "1"}, "run `npx -p @x/pkg x-server --help` once"},
		{"uvx", []string{"--from", "mcp-server-git", "mcp-server-git", "--repository", "."}, "run `uvx --from mcp-server-git mcp-server-git --help` once"},
		{"uvx", []string{"mcp-server-fetch"}, "a first run of uvx downloads"},
		{"pnpm", []string{"dlx", "@x/server"}, "run `pnpm dlx @x/server --help` once"},
		{"bunx", []string{"@x/server"}, "run `bunx @x/server --help` once"},
		{"docker", []string{"run", "-i", "--rm", "-e", "GITHUB_TOKEN", "ghcr.io/github/github-mcp-server"}, "run `docker pull ghcr.io/github/github-mcp-server` once"},
		{"docker", []string{"run", "-i", "--rm", "--env=A=b", "mcp/fetch"}, "docker pull mcp/fetch"},
		{"npx", []string{"-y", "@x/server"}, "raise --startup-timeout"},
		{"node", []string{"server.js"}, ""},
		{"pnpm", []string{"start"}, ""},
		{"docker", []string{"exec", "-i", "c", "server"}, ""},
	}
	for _, tc := range tests {
		got := downloadHint(tc.command, tc.args)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: %q, want one with %q", tc.command, tc.args, got, tc.want)
		}
	}
}
