package launch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/jsonerr"
	"github.com/tailscale/hujson"
)

// configEntry is the union of the host config formats: Claude Code, Claude
// Desktop and Cursor ("mcpServers") and VS Code ("servers").
type configEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// FromConfig reads entry name of a host config file. JSON with comments and
// trailing commas (VS Code) is accepted. Variables are expanded from
// lookup: ${VAR}, ${VAR:-default}, ${env:VAR}, and ${workspaceFolder}.
func FromConfig(path, name string, lookup func(string) (string, bool)) (Target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Target{}, fmt.Errorf("reading config: %w", err)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return Target{}, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(std, &doc); err != nil {
		return Target{}, fmt.Errorf("%s: %s", path, jsonerr.Explain(err))
	}
	all := map[string]json.RawMessage{}
	for k, v := range doc.Servers {
		all[k] = v
	}
	for k, v := range doc.MCPServers {
		all[k] = v
	}
	if len(all) == 0 {
		return Target{}, fmt.Errorf("%s has no \"mcpServers\" (Claude Code, Claude Desktop, Cursor) or \"servers\" (VS Code) object", path)
	}
	raw, ok := all[name]
	if !ok {
		names := make([]string, 0, len(all))
		for k := range all {
			names = append(names, k)
		}
		sort.Strings(names)
		if name == "" {
			return Target{}, fmt.Errorf("--config needs the name of a server; %s has: %s", path, strings.Join(names, ", "))
		}
		return Target{}, fmt.Errorf("%s has no server %q; it has: %s", path, name, strings.Join(names, ", "))
	}
	var e configEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		return Target{}, fmt.Errorf("%s: server %q: %s", path, name, jsonerr.Explain(err))
	}
	abs, _ := filepath.Abs(path)
	workspace := filepath.Dir(abs)
	if filepath.Base(workspace) == ".vscode" {
		workspace = filepath.Dir(workspace)
	}
	x := expander{lookup: lookup, workspace: workspace}
	t := Target{Name: name, Kind: e.Type}
	switch t.Kind {
	case "", "stdio":
		t.Kind = "stdio"
		if e.URL != "" && e.Command == "" {
			t.Kind = "http"
		}
	case "http", "streamable-http", "streamableHttp":
		t.Kind = "http"
	case "sse":
	default:
		return Target{}, fmt.Errorf("%s: server %q has type %q; mcpprobe knows stdio, http and sse", path, name, e.Type)
	}
	t.Command = x.expand(e.Command)
	for _, a := range e.Args {
		t.Args = append(t.Args, x.expand(a))
	}
	for _, k := range sortedKeys(e.Env) {
		v := x.expand(e.Env[k])
		t.Env = append(t.Env, k+"="+v)
		t.Secrets = append(t.Secrets, EnvSecrets(v)...)
	}
	if e.Cwd != "" {
		t.Dir = x.expand(e.Cwd)
		if !filepath.IsAbs(t.Dir) {
			t.Dir = filepath.Join(filepath.Dir(abs), t.Dir)
		}
		// A host spawns the command in cwd, so a relative path to it
		// (./server, bin/server) is found there; a bare name is on PATH.
		if strings.ContainsRune(t.Command, filepath.Separator) && !filepath.IsAbs(t.Command) {
			t.Command = filepath.Join(t.Dir, t.Command)
		}
	}
	t.URL = x.expand(e.URL)
	t.Secrets = append(t.Secrets, urlSecrets(t.URL)...)
	for _, k := range sortedKeys(e.Headers) {
		v := x.expand(e.Headers[k])
		t.Headers = append(t.Headers, k+": "+v)
		t.Secrets = append(t.Secrets, HeaderSecrets(k, v)...)
	}
	if x.err != nil {
		return Target{}, fmt.Errorf("%s: server %q: %v", path, name, x.err)
	}
	t.Secrets = unique(append(t.Secrets, x.values...))
	if t.Kind == "stdio" && t.Command == "" {
		return Target{}, fmt.Errorf("%s: server %q has no command", path, name)
	}
	if t.Kind != "stdio" && t.URL == "" {
		return Target{}, fmt.Errorf("%s: server %q has type %s but no url", path, name, t.Kind)
	}
	return t, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)

type expander struct {
	lookup    func(string) (string, bool)
	workspace string
	err       error
	// values taken from the environment: secrets wherever they land,
	// in args and URLs as much as in env and headers.
	values []string
}

func (x *expander) expand(s string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		ref := m[2 : len(m)-1]
		switch {
		case ref == "workspaceFolder":
			return x.workspace
		case strings.HasPrefix(ref, "env:"):
			ref = strings.TrimPrefix(ref, "env:")
		case strings.HasPrefix(ref, "input:"):
			if x.err == nil {
				x.err = fmt.Errorf("%s asks VS Code to prompt for a value; give it with --env or set it in the config", m)
			}
			return ""
		}
		// Shell semantics: ${VAR:-default} takes the default when VAR is
		// unset or empty; ${VAR} set to "" expands to "".
		name, def, hasDef := strings.Cut(ref, ":-")
		v, ok := x.lookup(name)
		if ok && (v != "" || !hasDef) {
			x.values = append(x.values, v)
			return v
		}
		if hasDef {
			return def
		}
		if x.err == nil {
			x.err = fmt.Errorf("%s is not set in the environment (and has no ${%s:-default})", m, name)
		}
		return ""
	})
}

func unique(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
