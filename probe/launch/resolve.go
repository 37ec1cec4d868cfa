package launch

import (
	"fmt"
	"os"
	"strings"
)

// Asked is a target as the user asked for it: its words, or a server's
// name in a host's config file, and what to give it on top (environment,
// headers, which values are secrets).
type Asked struct {
	// Config is a host config file (--config); Words is then the name of
	// one of its servers.
	Config string
	// Words are the target's words: a path, a URL, or a command and its
	// arguments.
	Words []string
	// Env are KEY=VALUE pairs for a command's environment (--env).
	Env []string
	// SecretEnv names variables whose values are secrets, whatever they
	// look like (--secret-env).
	SecretEnv []string
	// InheritEnv gives a command mcpprobe's whole environment.
	InheritEnv bool
	// HeaderEnv are Name=VAR: header Name with the value of VAR
	// (--header-env); Headers are 'Name: value' (--header).
	HeaderEnv, Headers []string
	// LookupEnv and Environ read mcpprobe's own environment (os.LookupEnv
	// and os.Environ if nil).
	LookupEnv func(string) (string, bool)
	Environ   func() []string
}

// ConfigError is a host config file that could not be read, or has no
// such server.
type ConfigError struct {
	Path string
	Err  error
}

func (e *ConfigError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Resolve is the target a asks for, with every secret it was given in
// Secrets: --env values the policy takes for credentials and those
// --secret-env names, header values, and for a command what of
// mcpprobe's own environment it may inherit. A problem with the config
// file is a *ConfigError; any other error is the user's to fix, its
// message naming the flag at fault.
func Resolve(a Asked) (Target, error) {
	lookup, environ := a.LookupEnv, a.Environ
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if environ == nil {
		environ = os.Environ
	}
	t, err := words(a, lookup)
	if err != nil {
		return t, err
	}
	if err := t.WithEnv(a.Env); err != nil {
		return t, err
	}
	// A value the policy takes for plain (short, words) is a secret all
	// the same when the user says so.
	for _, name := range a.SecretEnv {
		if name == "" || strings.ContainsAny(name, "= ") {
			return t, fmt.Errorf("--secret-env %q: want the NAME of an environment variable; its value comes from --env, the config or the environment", name)
		}
		for _, e := range t.Env {
			if k, v, _ := strings.Cut(e, "="); k == name {
				t.Secrets = append(t.Secrets, SecretValue(v)...)
			}
		}
		if v, ok := lookup(name); ok {
			t.Secrets = append(t.Secrets, SecretValue(v)...)
		}
	}
	t.InheritEnv = a.InheritEnv
	if err := headers(&t, a, lookup); err != nil {
		return t, err
	}
	// A server may inherit mcpprobe's own environment (this package builds it):
	// whatever credential is there is a secret of the run too.
	if t.Kind == "stdio" {
		t.Secrets = append(t.Secrets, InheritedSecrets(environ())...)
	}
	return t, nil
}

// words reads the target from the config file or from its words.
func words(a Asked, lookup func(string) (string, bool)) (Target, error) {
	if a.Config == "" {
		return FromArgs(a.Words)
	}
	cfg := a.Config
	if len(a.Words) == 1 {
		t, err := FromConfig(cfg, a.Words[0], lookup)
		if err != nil {
			return t, &ConfigError{Path: cfg, Err: err}
		}
		return t, nil
	}
	list, err := ListConfig(cfg, lookup)
	if err != nil {
		return Target{}, &ConfigError{Path: cfg, Err: err}
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	if len(a.Words) == 0 {
		return Target{}, fmt.Errorf("--config %s needs the name of one of its servers after it: %s", cfg, strings.Join(names, ", "))
	}
	return Target{}, fmt.Errorf("--config %s takes one server name, got %d words; its servers: %s", cfg, len(a.Words), strings.Join(names, ", "))
}

// headers adds --header-env's and --header's headers, their values
// secrets.
func headers(t *Target, a Asked, lookup func(string) (string, bool)) error {
	for _, he := range a.HeaderEnv {
		name, envVar, ok := strings.Cut(he, "=")
		if !ok || name == "" || envVar == "" {
			return fmt.Errorf("--header-env %q: want Name=VAR", he)
		}
		v, set := lookup(envVar)
		if !set {
			return fmt.Errorf("--header-env %s: environment variable %s is not set", name, envVar)
		}
		t.Headers = append(t.Headers, name+": "+v)
		t.Secrets = append(t.Secrets, HeaderSecrets(name, v)...)
	}
	for _, h := range a.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("--header %q: want 'Name: value'", h)
		}
		t.Headers = append(t.Headers, strings.TrimSpace(name)+": "+strings.TrimSpace(value))
		t.Secrets = append(t.Secrets, HeaderSecrets(name, value)...)
	}
	return nil
}
