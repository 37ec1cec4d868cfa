package launch

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// hostInherited is what of its own environment a host's stdio client
// passes a server it spawns when the config gives the server nothing
// else: the MCP TypeScript SDK's DEFAULT_INHERITED_ENV_VARS
// (src/client/stdio.ts, read by getDefaultEnvironment, "inspired by the
// default env inheritance of sudo"), which Claude Code, Claude Desktop
// and most hosts built on that SDK use, with the config's "env" merged
// on top. The Python SDK keeps the same lists. A server probed with more
// than this works under mcpprobe and fails under the host.
var hostInherited = map[bool][]string{
	false: {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"},
	true: {"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
		"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"},
}

// HostInherited lists the variables a stdio server gets from mcpprobe's
// own environment unless --inherit-env is given, for this platform.
func HostInherited() []string { return hostInherited[runtime.GOOS == "windows"] }

// hostEnv splits environ (KEY=VALUE pairs) into what a host passes on and
// the names of what it drops. A value that starts with "()" is a shell
// function exported by bash: the SDK skips it as a security risk, and so
// does this. Windows names are matched without regard to case, as the
// SDK's lookup of process.env is there.
func hostEnv(environ []string, windows bool) (kept, dropped []string) {
	keep := map[string]bool{}
	for _, k := range hostInherited[windows] {
		keep[k] = true
	}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue // Windows' per-drive "=C:=C:\dir" entries among them
		}
		name := k
		if windows {
			name = strings.ToUpper(k)
		}
		if keep[name] && !strings.HasPrefix(v, "()") {
			kept = append(kept, kv)
			continue
		}
		dropped = append(dropped, k)
	}
	sort.Strings(dropped)
	return kept, dropped
}

// baseEnv is the environment t.Env goes on top of, and the names of the
// variables of mcpprobe's own environment the server does not get.
func baseEnv(t Target) (base, dropped []string) {
	switch {
	case t.BaseEnv != nil:
		return t.BaseEnv, nil
	case t.InheritEnv:
		return os.Environ(), nil
	}
	base, dropped = hostEnv(os.Environ(), runtime.GOOS == "windows")
	given := map[string]bool{}
	for _, kv := range t.Env {
		k, _, _ := strings.Cut(kv, "=")
		given[envKey(k)] = true
	}
	// A variable --env (or the config) gives is not missing.
	out := dropped[:0]
	for _, k := range dropped {
		if !given[envKey(k)] {
			out = append(out, k)
		}
	}
	return base, out
}

func envKey(k string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(k)
	}
	return k
}

// RelevantDropped picks, of the dropped variable names, those a server
// run as command may well read: its runtime's own (NODE_*, NPM_* for
// node and npx, PYTHON* for python and uv, …) and those named after the
// command itself (GITHUB_* for github-mcp-server), and those its stderr
// names ("fatal: GITHUB_TOKEN is not set"). Names only: a value is never
// shown.
func RelevantDropped(command string, dropped, stderr []string) []string {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(command)), ".exe")
	// python3.12, node22: the runtime is the name without its version.
	bare := strings.TrimRight(base, "0123456789.")
	prefixes := append([]string{}, runtimePrefixes[bare]...)
	if len(prefixes) == 0 {
		word := base
		if i := strings.IndexAny(base, "-_."); i >= 0 {
			word = base[:i]
		}
		if len(word) >= 3 {
			prefixes = append(prefixes, strings.ToUpper(word)+"_")
		}
	}
	said := strings.Join(stderr, "\n")
	var out []string
	for _, k := range dropped {
		if len(k) >= 3 && namedIn(said, k) {
			out = append(out, k)
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(strings.ToUpper(k), p) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// namedIn reports whether name stands in text as a word of its own: PATH
// in "PATH is empty", not in "XPATH" or "PATHS".
func namedIn(text, name string) bool {
	word := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !word(text[j-1])) && (end == len(text) || !word(text[end])) {
			return true
		}
		i = j + 1
	}
}

// runtimePrefixes are the variables each interpreter or launcher reads
// of its own, by the start of the command's name.
var runtimePrefixes = map[string][]string{
	"node":   {"NODE_", "NPM_"},
	"npx":    {"NODE_", "NPM_"},
	"npm":    {"NODE_", "NPM_"},
	"pnpm":   {"NODE_", "NPM_", "PNPM_"},
	"yarn":   {"NODE_", "NPM_", "YARN_"},
	"bun":    {"BUN_", "NODE_"},
	"deno":   {"DENO_"},
	"python": {"PYTHON", "VIRTUAL_ENV", "CONDA_"},
	"uv":     {"UV_", "PYTHON", "VIRTUAL_ENV"},
	"pipx":   {"PIPX_", "PYTHON"},
	"java":   {"JAVA_", "JDK_"},
	"docker": {"DOCKER_"},
	"podman": {"CONTAINER", "PODMAN_"},
	"go":     {"GO"},
	"dotnet": {"DOTNET_"},
	"ruby":   {"RUBY", "GEM_", "BUNDLE_"},
	"bundle": {"RUBY", "GEM_", "BUNDLE_"},
	"php":    {"PHP_"},
	"cargo":  {"CARGO_", "RUST"},
	"uvx":    {"UV_", "PYTHON", "VIRTUAL_ENV"},
	"bunx":   {"BUN_", "NODE_"},
}
