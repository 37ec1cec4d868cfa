package launch

import (
	"path/filepath"
	"time"
)

// ConfigServer is one server of a host config file, as `mcpprobe servers`
// lists it and `--config FILE --all` runs it.
type ConfigServer struct {
	Name   string
	Target Target // as FromConfig reads it; zero when Err is set
	Err    error  // why it cannot be probed as written
	Format Format // of the file it is in
	// Disabled: the file turns it off (Codex enabled = false); the host
	// does not start it.
	Disabled bool
	// What the host reads beside the target: zero when the file does not
	// say. StartupTimeout is Codex's startup_timeout_sec; ToolTimeout is
	// Codex's tool_timeout_sec or Gemini CLI's timeout.
	StartupTimeout time.Duration
	ToolTimeout    time.Duration
	Trust          bool // Gemini CLI trust: its tool calls are not confirmed
	// IncludeTools and ExcludeTools filter the tools the host shows:
	// Gemini CLI's includeTools and excludeTools, Codex's enabled_tools
	// and disabled_tools.
	IncludeTools []string
	ExcludeTools []string
}

// ListConfig reads every server of a host config file, in name order. A
// server that cannot be read (a variable not set, no command) is listed
// with its error; a file that cannot be read at all is the error.
func ListConfig(path string, lookup func(string) (string, bool)) ([]ConfigServer, error) {
	f, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	names := f.names()
	out := make([]ConfigServer, 0, len(names))
	for _, n := range names {
		t, cs, err := f.target(n, lookup)
		cs.Name, cs.Target, cs.Err = n, t, err
		out = append(out, cs)
	}
	return out, nil
}

// Shows reports whether the host shows tool name to the model, after the
// server's include and exclude lists (an exclusion wins).
func (s ConfigServer) Shows(tool string) bool {
	for _, x := range s.ExcludeTools {
		if x == tool {
			return false
		}
	}
	if len(s.IncludeTools) == 0 {
		return true
	}
	for _, x := range s.IncludeTools {
		if x == tool {
			return true
		}
	}
	return false
}

// HostConfig is a config file a host reads MCP servers from.
type HostConfig struct {
	Host  string // Claude Code, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI
	Scope string // project (this folder) or user
	Path  string
}

// HostConfigs lists the files the hosts mcpprobe knows read for the
// folder dir and the user whose home is home and whose configuration
// folder is userConfig (os.UserConfigDir: ~/.config, ~/Library/Application
// Support, %AppData%), whether they exist or not. lookup reads the
// environment: Codex keeps its user config in $CODEX_HOME when set.
func HostConfigs(dir, home, userConfig string, lookup func(string) (string, bool)) []HostConfig {
	codexHome := filepath.Join(home, ".codex")
	if v, ok := lookup("CODEX_HOME"); ok && v != "" {
		// openai/codex docs/config.md: "CODEX_HOME (defaults to ~/.codex)".
		codexHome = v
	}
	return []HostConfig{
		{"Claude Code", "project", filepath.Join(dir, ".mcp.json")},
		{"Claude Code", "user", filepath.Join(home, ".claude.json")},
		{"Claude Desktop", "user", filepath.Join(userConfig, "Claude", "claude_desktop_config.json")},
		{"Cursor", "project", filepath.Join(dir, ".cursor", "mcp.json")},
		{"Cursor", "user", filepath.Join(home, ".cursor", "mcp.json")},
		{"VS Code", "project", filepath.Join(dir, ".vscode", "mcp.json")},
		{"VS Code", "user", filepath.Join(userConfig, "Code", "User", "mcp.json")},
		// Codex reads a project's .codex/config.toml only in a trusted
		// project; listing it is harmless either way.
		{"Codex", "project", filepath.Join(dir, ".codex", "config.toml")},
		{"Codex", "user", filepath.Join(codexHome, "config.toml")},
		{"Gemini CLI", "project", filepath.Join(dir, ".gemini", "settings.json")},
		{"Gemini CLI", "user", filepath.Join(home, ".gemini", "settings.json")},
	}
}
