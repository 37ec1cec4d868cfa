package launch

import (
	"reflect"
	"strings"
	"testing"
)

func TestHostEnv(t *testing.T) {
	environ := []string{"HOME=/h", "PATH=/bin", "GITHUB_TOKEN=ghp_x", "TERM=xterm", "NODE_EXTRA_CA_CERTS=/ca",
		"SHELL=() { :; }", "USER=u", "LOGNAME=u", "=C:=C:\\dir", "Path=C:\\bin", "SystemRoot=C:\\Windows", "TEMP=C:\\t"}
	tests := []struct {
		windows       bool
		kept, dropped []string
	}{
		// SHELL holds a bash function: skipped, as the SDK skips it.
		{false, []string{"HOME=/h", "PATH=/bin", "TERM=xterm", "USER=u", "LOGNAME=u"},
			[]string{"GITHUB_TOKEN", "NODE_EXTRA_CA_CERTS", "Path", "SHELL", "SystemRoot", "TEMP"}},
		// Windows names match whatever their case; HOME is not on its list.
		{true, []string{"PATH=/bin", "Path=C:\\bin", "SystemRoot=C:\\Windows", "TEMP=C:\\t"},
			[]string{"GITHUB_TOKEN", "HOME", "LOGNAME", "NODE_EXTRA_CA_CERTS", "SHELL", "TERM", "USER"}},
	}
	for _, tc := range tests {
		kept, dropped := hostEnv(environ, tc.windows)
		if !reflect.DeepEqual(kept, tc.kept) || !reflect.DeepEqual(dropped, tc.dropped) {
			t.Errorf("windows=%v: kept %q dropped %q, want %q and %q", tc.windows, kept, dropped, tc.kept, tc.dropped)
		}
	}
}

func TestBaseEnv(t *testing.T) {
	t.Setenv("MCPPROBE_TEST_EXTRA", "x")
	t.Setenv("MCPPROBE_TEST_GIVEN", "y")
	has := func(env []string, k string) bool {
		for _, kv := range env {
			if strings.HasPrefix(kv, k+"=") {
				return true
			}
		}
		return false
	}
	contains := func(s []string, v string) bool {
		for _, x := range s {
			if x == v {
				return true
			}
		}
		return false
	}
	base, dropped := baseEnv(Target{Env: []string{"MCPPROBE_TEST_GIVEN=z"}})
	if has(base, "MCPPROBE_TEST_EXTRA") || !has(base, "PATH") {
		t.Errorf("host env: base %q", base)
	}
	if !contains(dropped, "MCPPROBE_TEST_EXTRA") || contains(dropped, "MCPPROBE_TEST_GIVEN") {
		t.Errorf("dropped %q: want the extra, not the one --env gives", dropped)
	}
	base, dropped = baseEnv(Target{InheritEnv: true})
	if !has(base, "MCPPROBE_TEST_EXTRA") || len(dropped) != 0 {
		t.Errorf("--inherit-env: base lacks the extra, or dropped %q", dropped)
	}
	base, dropped = baseEnv(Target{BaseEnv: []string{"A=1"}})
	if !reflect.DeepEqual(base, []string{"A=1"}) || len(dropped) != 0 {
		t.Errorf("BaseEnv: base %q dropped %q", base, dropped)
	}
}

func TestRelevantDropped(t *testing.T) {
	dropped := []string{"CI", "GITHUB_TOKEN", "GOPATH", "NODE_EXTRA_CA_CERTS", "NPM_CONFIG_REGISTRY", "ORDERS_API_KEY", "PYTHONPATH", "UV_INDEX_URL", "XPATHS"}
	tests := []struct {
		command string
		stderr  []string
		want    []string
	}{
		{"node", nil, []string{"NODE_EXTRA_CA_CERTS", "NPM_CONFIG_REGISTRY"}},
		{"/usr/bin/npx", nil, []string{"NODE_EXTRA_CA_CERTS", "NPM_CONFIG_REGISTRY"}},
		{"python3.12", nil, []string{"PYTHONPATH"}},
		{"uvx", nil, []string{"PYTHONPATH", "UV_INDEX_URL"}},
		{"github-mcp-server", nil, []string{"GITHUB_TOKEN"}},
		// A server named like no runtime does not draw GOPATH by "go".
		{"./goodserver", nil, nil},
		{"./server", []string{"fatal: ORDERS_API_KEY is not set", "CIS and XPATH"}, []string{"ORDERS_API_KEY"}},
	}
	for _, tc := range tests {
		if got := RelevantDropped(tc.command, dropped, tc.stderr); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.command, got, tc.want)
		}
	}
}
