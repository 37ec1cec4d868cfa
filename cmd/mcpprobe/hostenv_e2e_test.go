//go:build e2e

package main

// The environment a stdio server gets (issue 23): what a host passes of
// mcpprobe's own (the TypeScript SDK's stdio client's default list), with
// --env and the config's env on top; everything with --inherit-env; the
// proxy passes on whole what its host gave it.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// envNames runs wire --json on rawserver -print-env and returns the
// variable names the server saw.
func envNames(t *testing.T, env []string, args ...string) map[string]bool {
	t.Helper()
	r := probeRun(t, env, nil, append(append([]string{"wire", "--json"}, args...), "--", bin.raw, "-print-env")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	names := map[string]bool{}
	for _, n := range strings.Split(gjson.Get(r.stdout, "wire.instructions").String(), ",") {
		names[n] = true
	}
	return names
}

func TestServerEnvironmentLikeHost(t *testing.T) {
	t.Parallel()
	extra := []string{"HOSTENV_EXTRA=leak-value-123", "NODE_HOSTENV_X=1"}
	// The host's list, as far as the test's own environment has them.
	var inherited []string
	for _, k := range []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"} {
		if os.Getenv(k) != "" {
			inherited = append(inherited, k)
		}
	}
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		names := envNames(t, extra, "-e", "HOSTENV_GIVEN=1")
		for _, k := range append(inherited, "HOSTENV_GIVEN") {
			if !names[k] {
				t.Errorf("the server did not get %s: it saw %v", k, names)
			}
		}
		for _, k := range []string{"HOSTENV_EXTRA", "NODE_HOSTENV_X", "GOFLAGS", "MCPPROBE_E2E_PEAKRUN"} {
			if names[k] {
				t.Errorf("the server got %s, which a host would not pass", k)
			}
		}
		if len(names) > len(inherited)+1 {
			t.Errorf("the server saw %d variables, want %d: %v", len(names), len(inherited)+1, names)
		}
	})
	t.Run("inherit-env", func(t *testing.T) {
		t.Parallel()
		names := envNames(t, extra, "--inherit-env", "-e", "HOSTENV_GIVEN=1")
		for _, k := range append(inherited, "HOSTENV_GIVEN", "HOSTENV_EXTRA", "NODE_HOSTENV_X") {
			if !names[k] {
				t.Errorf("with --inherit-env the server did not get %s", k)
			}
		}
	})
	t.Run("config env", func(t *testing.T) {
		t.Parallel()
		cfg := filepath.Join(t.TempDir(), "mcp.json")
		writeFile(t, cfg, `{"mcpServers":{"p":{"command":"`+bin.raw+`","args":["-print-env"],"env":{"HOSTENV_CFG":"c"}}}}`)
		r := probeRun(t, extra, nil, "wire", "--json", "--config", cfg, "p")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		got := gjson.Get(r.stdout, "wire.instructions").String()
		if !strings.Contains(","+got+",", ",HOSTENV_CFG,") || strings.Contains(got, "HOSTENV_EXTRA") {
			t.Errorf("the config's server saw %s", got)
		}
	})
	// A server that needs a variable only mcpprobe's environment has
	// fails as under a host, and the explanation says why.
	t.Run("explained", func(t *testing.T) {
		t.Parallel()
		for _, cmd := range [][]string{{"wire"}, {"bench", "--startup", "2", "-n", "0"}, {"call", "echo"}} {
			r := probeRun(t, extra, nil, append(cmd, "--", bin.raw, "-require-env", "HOSTENV_EXTRA")...)
			if r.code != 3 {
				t.Fatalf("%s: exit %d, want 3: %s", cmd[0], r.code, r.stderr)
			}
			for _, want := range []string{"fatal: HOSTENV_EXTRA is not set",
				"mcpprobe passed only HOME, LOGNAME, PATH, SHELL, TERM, USER and --env, as the TypeScript SDK's stdio client does; rerun with --inherit-env to see whether it needs another variable",
				"(not passed: HOSTENV_EXTRA)"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", cmd[0], want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "leak-value-123") || strings.Contains(r.stderr, "NODE_HOSTENV_X") {
				t.Errorf("%s: stderr shows a value, or a variable unrelated to the server:\n%s", cmd[0], r.stderr)
			}
			r = probeRun(t, extra, nil, append(append([]string{cmd[0], "--inherit-env"}, cmd[1:]...), "--", bin.raw, "-require-env", "HOSTENV_EXTRA")...)
			if r.code == 3 {
				t.Errorf("%s --inherit-env: exit 3: %s", cmd[0], r.stderr)
			}
		}
	})
	// The proxy runs under a host, which chose the environment: the
	// server gets all of it.
	t.Run("proxy", func(t *testing.T) {
		t.Parallel()
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
		r := probeRun(t, extra, []byte(init), "proxy", "--", bin.raw, "-print-env")
		if r.code != 0 || !strings.Contains(r.stdout, "HOSTENV_EXTRA") {
			t.Errorf("exit %d; the proxy's server did not see the host's variable: %.500s %s", r.code, r.stdout, r.stderr)
		}
		r = probeRun(t, nil, []byte(init), "proxy", "--inherit-env", "--", bin.raw)
		if r.code != 2 || !strings.Contains(r.stderr, "--inherit-env does not apply to proxy: the proxy passes its server the whole environment its host gave it") {
			t.Errorf("proxy --inherit-env: exit %d: %s", r.code, r.stderr)
		}
	})
}
