package launch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mcpprobe/mcpprobe/probe/jsonerr"
	"github.com/tailscale/hujson"
)

// ConfigServer is one server of a host config file, as `mcpprobe servers`
// lists it.
type ConfigServer struct {
	Name   string
	Target Target // as FromConfig reads it; zero when Err is set
	Err    error  // why it cannot be probed as written
}

// ListConfig reads every server of a host config file, in name order. A
// server that cannot be read (a variable not set, no command) is listed
// with its error; a file that cannot be read at all is the error.
func ListConfig(path string, lookup func(string) (string, bool)) ([]ConfigServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(std, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s", path, jsonerr.Explain(err))
	}
	seen := map[string]bool{}
	var names []string
	for _, m := range []map[string]json.RawMessage{doc.MCPServers, doc.Servers} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	out := make([]ConfigServer, 0, len(names))
	for _, n := range names {
		t, err := FromConfig(path, n, lookup)
		out = append(out, ConfigServer{Name: n, Target: t, Err: err})
	}
	return out, nil
}

// HostConfig is a config file a host reads MCP servers from.
type HostConfig struct {
	Host  string // Claude Code, Claude Desktop, Cursor, VS Code
	Scope string // project (this folder) or user
	Path  string
}

// HostConfigs lists the files the hosts mcpprobe knows read for the
// folder dir and the user whose home is home and whose configuration
// folder is userConfig (os.UserConfigDir: ~/.config, ~/Library/Application
// Support, %AppData%), whether they exist or not.
func HostConfigs(dir, home, userConfig string) []HostConfig {
	return []HostConfig{
		{"Claude Code", "project", filepath.Join(dir, ".mcp.json")},
		{"Claude Code", "user", filepath.Join(home, ".claude.json")},
		{"Claude Desktop", "user", filepath.Join(userConfig, "Claude", "claude_desktop_config.json")},
		{"Cursor", "project", filepath.Join(dir, ".cursor", "mcp.json")},
		{"Cursor", "user", filepath.Join(home, ".cursor", "mcp.json")},
		{"VS Code", "project", filepath.Join(dir, ".vscode", "mcp.json")},
		{"VS Code", "user", filepath.Join(userConfig, "Code", "User", "mcp.json")},
	}
}
