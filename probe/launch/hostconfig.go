package launch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/mcpprobe/mcpprobe/probe/jsonerr"
	"github.com/tailscale/hujson"
)

// Format is the format of a host config file, as mcpprobe reads it.
type Format string

const (
	// FormatJSON: "mcpServers" (Claude Code, Claude Desktop, Cursor) or
	// "servers" (VS Code), JSON with comments and trailing commas.
	FormatJSON Format = "json"
	// FormatCodex: Codex's config.toml, one [mcp_servers.NAME] table per
	// server.
	FormatCodex Format = "codex"
	// FormatGemini: Gemini CLI's settings.json, whose "mcpServers" entries
	// take httpUrl (Streamable HTTP) beside url (SSE).
	FormatGemini Format = "gemini"
)

// configEntry is the union of the JSON host config formats: Claude Code,
// Claude Desktop and Cursor ("mcpServers"), VS Code ("servers") and Gemini
// CLI ("mcpServers" with httpUrl, timeout, trust, includeTools and
// excludeTools).
type configEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Gemini CLI
	HTTPURL      string   `json:"httpUrl"`
	Timeout      *float64 `json:"timeout"` // milliseconds
	Trust        *bool    `json:"trust"`
	IncludeTools []string `json:"includeTools"`
	ExcludeTools []string `json:"excludeTools"`
}

// codexEntry is one [mcp_servers.NAME] table of Codex's config.toml (the
// keys of Codex's documentation, "Configuration Options" of its MCP page).
type codexEntry struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	EnvVars           []string          `toml:"env_vars"` // names whose values Codex passes on
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"` // header: name of the variable with its value
	StartupTimeoutSec *float64          `toml:"startup_timeout_sec"`
	StartupTimeoutMs  *int64            `toml:"startup_timeout_ms"`
	ToolTimeoutSec    *float64          `toml:"tool_timeout_sec"`
	Enabled           *bool             `toml:"enabled"`
	EnabledTools      []string          `toml:"enabled_tools"`
	DisabledTools     []string          `toml:"disabled_tools"`
}

// entry is a server of any format, before its variables are expanded.
type entry struct {
	kind           string // as the file says: "", "stdio", "http", "sse", …
	typeWord       string // the type the file gave, for the error about it
	command        string
	args           []string
	env            map[string]string
	passEnv        []string // names of variables passed from the environment
	cwd            string
	url            string
	headers        map[string]string
	headerEnv      map[string]string // header name → variable holding its value
	bearerEnv      string
	enabled        *bool
	startupTimeout time.Duration
	toolTimeout    time.Duration
	trust          *bool
	include        []string
	exclude        []string
	err            error // the entry cannot be decoded
}

// configFile is a host config file read: its format and its servers.
type configFile struct {
	path    string
	format  Format
	entries map[string]entry
}

// FromConfig reads entry name of a host config file. JSON with comments and
// trailing commas (VS Code) is accepted. Variables are expanded from
// lookup: ${VAR}, ${VAR:-default}, ${env:VAR}, and ${workspaceFolder};
// Gemini CLI's $VAR too; Codex expands none.
func FromConfig(path, name string, lookup func(string) (string, bool)) (Target, error) {
	f, err := readConfig(path)
	if err != nil {
		return Target{}, err
	}
	if _, ok := f.entries[name]; !ok {
		names := f.names()
		if name == "" {
			return Target{}, fmt.Errorf("--config needs the name of a server; %s has: %s", path, strings.Join(names, ", "))
		}
		return Target{}, fmt.Errorf("%s has no server %q; it has: %s", path, name, strings.Join(names, ", "))
	}
	t, _, err := f.target(name, lookup)
	return t, err
}

// ConfigFormat says which format the file at path is read as.
func ConfigFormat(path string) (Format, error) {
	f, err := readConfig(path)
	if err != nil {
		return "", err
	}
	return f.format, nil
}

func readConfig(path string) (*configFile, error) {
	data, err := inputfile.Read(path, inputfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	// Before any parser, the sniffing of isCodex's included: a file that
	// is not .toml is tried as JSONC and then as TOML.
	syntaxes := []inputfile.Syntax{inputfile.JSONC, inputfile.TOML}
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		syntaxes = syntaxes[1:]
	}
	for _, s := range syntaxes {
		if err := inputfile.CheckDepth(path, data, s); err != nil {
			return nil, fmt.Errorf("reading config: %w", err)
		}
	}
	if isCodex(path, data) {
		return readCodex(path, data)
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
	all := map[string]json.RawMessage{}
	for k, v := range doc.Servers {
		all[k] = v
	}
	for k, v := range doc.MCPServers {
		all[k] = v
	}
	if len(all) == 0 {
		// Present but empty is not missing: saying the object is not
		// there sends the user looking for a typo that is not in it.
		switch {
		case doc.MCPServers != nil:
			return nil, fmt.Errorf("%s has no servers: its \"mcpServers\" object is empty", path)
		case doc.Servers != nil:
			return nil, fmt.Errorf("%s has no servers: its \"servers\" object is empty", path)
		}
		if isGeminiName(path) {
			return nil, fmt.Errorf("%s has no \"mcpServers\" object (Gemini CLI)", path)
		}
		return nil, fmt.Errorf("%s has no \"mcpServers\" (Claude Code, Claude Desktop, Cursor, Gemini CLI) or \"servers\" (VS Code) object", path)
	}
	f := &configFile{path: path, format: FormatJSON, entries: map[string]entry{}}
	decoded := map[string]configEntry{}
	for name, raw := range all {
		var e configEntry
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&e); err != nil {
			f.entries[name] = entry{err: fmt.Errorf("%s: server %q: %s", path, name, jsonerr.Explain(err))}
			continue
		}
		decoded[name] = e
		if e.HTTPURL != "" || e.Trust != nil || e.IncludeTools != nil || e.ExcludeTools != nil {
			f.format = FormatGemini
		}
	}
	if isGeminiName(path) {
		f.format = FormatGemini
	}
	for name, e := range decoded {
		en := entry{kind: e.Type, typeWord: e.Type, command: e.Command, args: e.Args, env: e.Env, cwd: e.Cwd,
			url: e.URL, headers: e.Headers, trust: e.Trust, include: e.IncludeTools, exclude: e.ExcludeTools}
		if f.format == FormatGemini {
			// Gemini CLI: httpUrl is Streamable HTTP, url is SSE, and
			// httpUrl wins when both are given.
			switch {
			case e.HTTPURL != "":
				en.kind, en.url = "http", e.HTTPURL
			case e.URL != "" && e.Command == "" && e.Type == "":
				en.kind = "sse"
			}
			if e.Timeout != nil && *e.Timeout > 0 {
				en.toolTimeout = time.Duration(*e.Timeout * float64(time.Millisecond))
			}
		}
		f.entries[name] = en
	}
	return f, nil
}

// isGeminiName: Gemini CLI reads .gemini/settings.json, in a project or
// the home folder. Claude Code's .claude/settings.json holds no servers.
func isGeminiName(path string) bool {
	abs, _ := filepath.Abs(path)
	return filepath.Base(abs) == "settings.json" && filepath.Base(filepath.Dir(abs)) == ".gemini"
}

// isCodex: a .toml file, or one that is not JSON but a TOML document
// with an mcp_servers table.
func isCodex(path string, data []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		return true
	}
	if _, err := hujson.Standardize(data); err == nil {
		return false
	}
	var sniff struct {
		MCPServers map[string]toml.Primitive `toml:"mcp_servers"`
	}
	_, err := toml.Decode(string(data), &sniff)
	return err == nil && sniff.MCPServers != nil
}

func readCodex(path string, data []byte) (*configFile, error) {
	var doc struct {
		MCPServers map[string]toml.Primitive `toml:"mcp_servers"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s is not valid TOML: line %d, column %d: %s", path, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(doc.MCPServers) == 0 {
		return nil, fmt.Errorf("%s has no [mcp_servers.NAME] table (Codex)", path)
	}
	f := &configFile{path: path, format: FormatCodex, entries: map[string]entry{}}
	for name, prim := range doc.MCPServers {
		var e codexEntry
		if err := md.PrimitiveDecode(prim, &e); err != nil {
			f.entries[name] = entry{err: fmt.Errorf("%s: server %q: %v", path, name, err)}
			continue
		}
		en := entry{command: e.Command, args: e.Args, env: e.Env, passEnv: e.EnvVars, cwd: e.Cwd, url: e.URL,
			headers: e.HTTPHeaders, headerEnv: e.EnvHTTPHeaders, bearerEnv: e.BearerTokenEnvVar, enabled: e.Enabled,
			include: e.EnabledTools, exclude: e.DisabledTools}
		if e.URL != "" && e.Command == "" {
			en.kind = "http" // Codex speaks Streamable HTTP to a url
		}
		switch {
		case e.StartupTimeoutSec != nil && *e.StartupTimeoutSec > 0:
			en.startupTimeout = time.Duration(*e.StartupTimeoutSec * float64(time.Second))
		case e.StartupTimeoutMs != nil && *e.StartupTimeoutMs > 0:
			en.startupTimeout = time.Duration(*e.StartupTimeoutMs) * time.Millisecond
		}
		if e.ToolTimeoutSec != nil && *e.ToolTimeoutSec > 0 {
			en.toolTimeout = time.Duration(*e.ToolTimeoutSec * float64(time.Second))
		}
		f.entries[name] = en
	}
	return f, nil
}

func (f *configFile) names() []string {
	names := make([]string, 0, len(f.entries))
	for k := range f.entries {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// target makes entry name a Target, and says what else the host reads of
// it.
func (f *configFile) target(name string, lookup func(string) (string, bool)) (Target, ConfigServer, error) {
	path := f.path
	e := f.entries[name]
	cs := ConfigServer{Name: name, Format: f.format, StartupTimeout: e.startupTimeout, ToolTimeout: e.toolTimeout,
		IncludeTools: e.include, ExcludeTools: e.exclude}
	if e.enabled != nil && !*e.enabled {
		cs.Disabled = true
	}
	if e.trust != nil {
		cs.Trust = *e.trust
	}
	if e.err != nil {
		return Target{}, cs, e.err
	}
	abs, _ := filepath.Abs(path)
	workspace := filepath.Dir(abs)
	if b := filepath.Base(workspace); b == ".vscode" || b == ".gemini" || b == ".codex" {
		workspace = filepath.Dir(workspace)
	}
	x := expander{lookup: lookup, workspace: workspace, dollar: f.format == FormatGemini, none: f.format == FormatCodex}
	t := Target{Name: name, Kind: e.kind}
	switch t.Kind {
	case "", "stdio":
		t.Kind = "stdio"
		if e.url != "" && e.command == "" {
			t.Kind = "http"
		}
	case "http", "streamable-http", "streamableHttp":
		t.Kind = "http"
	case "sse":
	default:
		return Target{}, cs, fmt.Errorf("%s: server %q has type %q; mcpprobe knows stdio, http and sse", path, name, e.typeWord)
	}
	t.Command = x.expand(e.command)
	for _, a := range e.args {
		t.Args = append(t.Args, x.expand(a))
	}
	t.Secrets = append(t.Secrets, ArgSecrets(t.Args)...)
	for _, k := range sortedKeys(e.env) {
		v := x.expand(e.env[k])
		t.Env = append(t.Env, k+"="+v)
		t.Secrets = append(t.Secrets, EnvSecrets(k, v)...)
	}
	// Codex env_vars: each named variable's value from the environment,
	// as Codex passes it on; one not set is not passed.
	for _, k := range e.passEnv {
		if v, ok := lookup(k); ok {
			t.Env = append(t.Env, k+"="+v)
			t.Secrets = append(t.Secrets, EnvSecrets(k, v)...)
		}
	}
	if e.cwd != "" {
		t.Dir = x.expand(e.cwd)
		if !filepath.IsAbs(t.Dir) {
			t.Dir = filepath.Join(filepath.Dir(abs), t.Dir)
		}
		// A host spawns the command in cwd, so a relative path to it
		// (./server, bin/server) is found there; a bare name is on PATH.
		if strings.ContainsRune(t.Command, filepath.Separator) && !filepath.IsAbs(t.Command) {
			t.Command = filepath.Join(t.Dir, t.Command)
		}
	}
	t.URL = x.expand(e.url)
	t.Secrets = append(t.Secrets, urlSecrets(t.URL)...)
	for _, k := range sortedKeys(e.headers) {
		v := x.expand(e.headers[k])
		t.Headers = append(t.Headers, k+": "+v)
		t.Secrets = append(t.Secrets, HeaderSecrets(k, v)...)
	}
	for _, k := range sortedKeys(e.headerEnv) {
		v, err := fromEnv(lookup, e.headerEnv[k], "env_http_headers."+k)
		if err != nil {
			return Target{}, cs, fmt.Errorf("%s: server %q: %v", path, name, err)
		}
		t.Headers = append(t.Headers, k+": "+v)
		t.Secrets = append(t.Secrets, v)
		t.Secrets = append(t.Secrets, HeaderSecrets(k, v)...)
	}
	if e.bearerEnv != "" {
		v, err := fromEnv(lookup, e.bearerEnv, "bearer_token_env_var")
		if err != nil {
			return Target{}, cs, fmt.Errorf("%s: server %q: %v", path, name, err)
		}
		t.Headers = append(t.Headers, "Authorization: Bearer "+v)
		t.Secrets = append(t.Secrets, v)
		t.Secrets = append(t.Secrets, HeaderSecrets("Authorization", "Bearer "+v)...)
	}
	if x.err != nil {
		return Target{}, cs, fmt.Errorf("%s: server %q: %v", path, name, x.err)
	}
	t.Secrets = unique(append(t.Secrets, x.values...))
	if t.Kind == "stdio" && t.Command == "" {
		return Target{}, cs, fmt.Errorf("%s: server %q has no command", path, name)
	}
	if t.Kind != "stdio" && t.URL == "" {
		return Target{}, cs, fmt.Errorf("%s: server %q has type %s but no url", path, name, t.Kind)
	}
	cs.Target = t
	return t, cs, nil
}

// fromEnv is the value of a variable a Codex entry names, which must be
// set: Codex would send no credentials without it.
func fromEnv(lookup func(string) (string, bool), name, key string) (string, error) {
	v, ok := lookup(name)
	if !ok || v == "" {
		return "", fmt.Errorf("%s names %s, which is not set in the environment", key, name)
	}
	return v, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var (
	varRef    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) })
	dollarRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`) })
)

type expander struct {
	lookup    func(string) (string, bool)
	workspace string
	dollar    bool // $VAR too (Gemini CLI)
	none      bool // no expansion at all (Codex)
	err       error
	// values taken from the environment that are secrets by their
	// variable's name or shape (EnvSecrets): secrets wherever they land,
	// in args and URLs as much as in env and headers.
	values []string
}

func (x *expander) expand(s string) string {
	if x.none {
		return s
	}
	re := varRef()
	if x.dollar {
		re = dollarRef()
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		ref := strings.TrimPrefix(m, "$")
		if strings.HasPrefix(ref, "{") {
			ref = ref[1 : len(ref)-1]
		}
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
			x.values = append(x.values, EnvSecrets(name, v)...)
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
