package survey

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/tidwall/gjson"
)

// The official MCP registry's server.json (modelcontextprotocol/registry,
// docs/reference/server-json/server.schema.json): a server's name and
// version, the packages it is published as (npm, PyPI, OCI, NuGet, MCPB)
// with the runtime that starts them and the arguments and environment
// they take, and the remotes it serves (streamable-http or sse, with
// headers). The registry's list API wraps each in {"server": …, "_meta"}.

type regInput struct {
	Name        string                     `json:"name"`
	Value       string                     `json:"value"`
	Default     string                     `json:"default"`
	ValueHint   string                     `json:"valueHint"`
	Type        string                     `json:"type"` // arguments: positional or named
	IsRequired  bool                       `json:"isRequired"`
	IsSecret    bool                       `json:"isSecret"`
	Variables   map[string]json.RawMessage `json:"variables"`
	Description string                     `json:"description"`
}

type regPackage struct {
	RegistryType         string     `json:"registryType"`
	Identifier           string     `json:"identifier"`
	Version              string     `json:"version"`
	RuntimeHint          string     `json:"runtimeHint"`
	Transport            regRemote  `json:"transport"`
	RuntimeArguments     []regInput `json:"runtimeArguments"`
	PackageArguments     []regInput `json:"packageArguments"`
	EnvironmentVariables []regInput `json:"environmentVariables"`
}

type regRemote struct {
	Type      string                     `json:"type"`
	URL       string                     `json:"url"`
	Headers   []regInput                 `json:"headers"`
	Variables map[string]json.RawMessage `json:"variables"`
}

type regServer struct {
	Name     string       `json:"name"`
	Version  string       `json:"version"`
	Packages []regPackage `json:"packages"`
	Remotes  []regRemote  `json:"remotes"`
}

// readRegistryDoc reads a server.json document, or a registry list page
// ({"servers": [...]}), one entry per package and remote.
func readRegistryDoc(name string, doc []byte, yield func(Entry) error) error {
	v := gjson.ParseBytes(doc)
	var es []Entry
	if list := v.Get("servers"); list.IsArray() {
		for i, s := range list.Array() {
			es = append(es, registryEntries(fmt.Sprintf("%s#servers[%d]", name, i), s)...)
		}
	} else {
		es = registryEntries(name, v)
	}
	for _, e := range es {
		if err := yield(e); err != nil {
			return err
		}
	}
	return nil
}

// registryEntries maps one server.json to entries: ids NAME@VERSION#packages[i]
// and NAME@VERSION#remotes[i], stable as long as the server's version is.
func registryEntries(src string, v gjson.Result) []Entry {
	if w := v.Get("server"); w.IsObject() {
		v = w
	}
	var s regServer
	if err := json.Unmarshal([]byte(v.Raw), &s); err != nil {
		return []Entry{{ID: src, Source: src, Cause: CauseEntry, Err: "not a server.json: " + err.Error()}}
	}
	if s.Name == "" {
		return []Entry{{ID: src, Source: src, Cause: CauseEntry, Err: "a server.json without \"name\""}}
	}
	base := s.Name
	if s.Version != "" {
		base += "@" + s.Version
	}
	var out []Entry
	for i, p := range s.Packages {
		id := fmt.Sprintf("%s#packages[%d]", base, i)
		e := Entry{ID: id, Source: src}
		t, cause, err := packageTarget(p)
		e.Target, e.Cause, e.Err = t, cause, err
		e.Target.Name = id
		out = append(out, e)
	}
	for i, r := range s.Remotes {
		id := fmt.Sprintf("%s#remotes[%d]", base, i)
		e := Entry{ID: id, Source: src}
		t, cause, err := remoteTarget(r)
		e.Target, e.Cause, e.Err = t, cause, err
		e.Target.Name = id
		out = append(out, e)
	}
	if len(out) == 0 {
		out = append(out, Entry{ID: base, Source: src, Cause: CauseEntry, Err: "the server.json lists no packages and no remotes"})
	}
	return out
}

// resolver gathers the values an entry needs, and the first it lacks.
type resolver struct {
	missing []string
	secrets []string
}

var braceVar = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_.-]*)\}`)

// value is an input's value: its value, else its default, with {var}
// replaced by the variables' values or defaults. A required input with
// none, or a {var} left unresolved, is missing; an optional one with none
// is left out (ok false).
func (r *resolver) value(in regInput, what string) (string, bool) {
	v := in.Value
	if v == "" {
		v = in.Default
	}
	if v == "" {
		if in.IsRequired {
			hint := in.Name
			if hint == "" {
				hint = in.ValueHint
			}
			r.missing = append(r.missing, fmt.Sprintf("%s %s (isRequired, and the entry gives no value or default)", what, hint))
		}
		return "", false
	}
	v = braceVar.ReplaceAllStringFunc(v, func(m string) string {
		name := m[1 : len(m)-1]
		if raw, ok := in.Variables[name]; ok {
			g := gjson.ParseBytes(raw)
			for _, k := range []string{"value", "default"} {
				if x := g.Get(k); x.Exists() && x.String() != "" {
					return x.String()
				}
			}
		}
		r.missing = append(r.missing, fmt.Sprintf("%s %s needs the variable %s, which has no value or default", what, in.Name, m))
		return m
	})
	if in.IsSecret {
		r.secrets = append(r.secrets, v)
	}
	return v, true
}

func (r *resolver) args(ins []regInput, what string) []string {
	var out []string
	for _, in := range ins {
		v, ok := r.value(in, what)
		switch {
		case in.Type == "named" && ok:
			out = append(out, in.Name, v)
		case in.Type == "named" && in.Value == "" && in.Default == "" && !in.IsRequired:
			// A flag with no value given: left out, as the registry's
			// optional inputs are.
		case ok:
			out = append(out, v)
		}
	}
	return out
}

func (r *resolver) failure() (string, string) {
	if len(r.missing) == 0 {
		return "", ""
	}
	return CauseMissingValue, "needs " + strings.Join(r.missing, "; ")
}

// packageTarget is the command a host runs for a package: npm under
// npx -y, PyPI under uvx, OCI under docker run -i --rm (each variable
// passed with -e), NuGet under dnx; runtimeHint replaces the command.
// Arguments are runtimeArguments, the package, then packageArguments.
func packageTarget(p regPackage) (launch.Target, string, string) {
	t := launch.Target{Kind: "stdio"}
	if tt := p.Transport.Type; tt != "" && tt != "stdio" {
		return t, CauseUnsupported, fmt.Sprintf("the package serves %s once started; survey starts stdio packages, and probes a server's remotes", tt)
	}
	if p.Identifier == "" {
		return t, CauseEntry, "a package without \"identifier\""
	}
	r := &resolver{}
	var env []string
	for _, in := range p.EnvironmentVariables {
		if v, ok := r.value(in, "environment variable"); ok {
			env = append(env, in.Name+"="+v)
			t.Secrets = append(t.Secrets, launch.EnvSecrets(in.Name, v)...)
		}
	}
	runtime := r.args(p.RuntimeArguments, "runtime argument")
	pkgArgs := r.args(p.PackageArguments, "package argument")
	cmd, ref := p.RuntimeHint, p.Identifier
	switch p.RegistryType {
	case "npm":
		if p.Version != "" {
			ref += "@" + p.Version
		}
		if cmd == "" {
			cmd = "npx"
		}
		if cmd == "npx" && !hasAny(runtime, "-y", "--yes") {
			runtime = append([]string{"-y"}, runtime...)
		}
	case "pypi":
		if p.Version != "" {
			ref += "==" + p.Version
		}
		if cmd == "" {
			cmd = "uvx"
		}
	case "oci":
		if p.Version != "" && !strings.Contains(ref[strings.LastIndex(ref, "/")+1:], ":") && !strings.Contains(ref, "@") {
			ref += ":" + p.Version
		}
		if cmd == "" {
			cmd = "docker"
		}
		if cmd == "docker" {
			// A container sees none of the runner's environment: each
			// variable is passed by name.
			pre := []string{"run", "-i", "--rm"}
			for _, kv := range env {
				k, _, _ := strings.Cut(kv, "=")
				pre = append(pre, "-e", k)
			}
			runtime = append(pre, runtime...)
		}
	case "nuget":
		if p.Version != "" {
			ref += "@" + p.Version
		}
		if cmd == "" {
			cmd = "dnx"
			pkgArgs = append([]string{"--yes"}, pkgArgs...)
		}
	default:
		return t, CauseUnsupported, fmt.Sprintf("registryType %q: survey runs npm, pypi, oci and nuget packages", p.RegistryType)
	}
	t.Command = cmd
	t.Args = append(append(runtime, ref), pkgArgs...)
	t.Env = env
	t.Secrets = append(append(t.Secrets, r.secrets...), launch.ArgSecrets(t.Args)...)
	cause, msg := r.failure()
	return t, cause, msg
}

func remoteTarget(rm regRemote) (launch.Target, string, string) {
	t := launch.Target{}
	switch rm.Type {
	case "streamable-http", "http", "":
		t.Kind = "http"
	case "sse":
		t.Kind = "sse"
	default:
		return t, CauseUnsupported, fmt.Sprintf("remote type %q: survey probes streamable-http and sse", rm.Type)
	}
	r := &resolver{}
	t.URL, _ = r.value(regInput{Name: "url", Value: rm.URL, IsRequired: true, Variables: rm.Variables}, "url")
	for _, h := range rm.Headers {
		if v, ok := r.value(h, "header"); ok {
			t.Headers = append(t.Headers, h.Name+": "+v)
			t.Secrets = append(t.Secrets, launch.HeaderSecrets(h.Name, v)...)
		}
	}
	if t.URL != "" && !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") && len(r.missing) == 0 {
		return t, CauseEntry, fmt.Sprintf("remote url %q is not http(s)", t.URL)
	}
	t.Secrets = append(append(t.Secrets, r.secrets...), urlSecrets(t.URL)...)
	cause, msg := r.failure()
	return t, cause, msg
}

func hasAny(args []string, want ...string) bool {
	for _, a := range args {
		for _, w := range want {
			if a == w {
				return true
			}
		}
	}
	return false
}
