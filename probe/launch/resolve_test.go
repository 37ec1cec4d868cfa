package launch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"orders":{"command":"./orders","env":{"ORDERS_KEY":"plainword"}},"docs":{"url":"https://docs.example/mcp"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TOKEN_VAR": "s3cr3t-header-value", "SHORT": "abc", "GITHUB_TOKEN": "ghp_inheritedCredentialValue123"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	environ := func() []string { return []string{"GITHUB_TOKEN=ghp_inheritedCredentialValue123", "LANG=C"} }
	tests := []struct {
		name        string
		a           Asked
		wantErr     string // in the message; "" for none
		configErr   bool   // a *ConfigError
		wantKind    string
		wantSecrets []string // among t.Secrets
		notSecrets  []string
		wantHeaders []string
	}{
		{name: "command inherits the environment's credentials", a: Asked{Words: []string{"./server", "--port", "0"}},
			wantKind: "stdio", wantSecrets: []string{"ghp_inheritedCredentialValue123"}, notSecrets: []string{"C"}},
		{name: "--secret-env makes a plain value secret", a: Asked{Words: []string{"./server"}, Env: []string{"SHORT=abc"}, SecretEnv: []string{"SHORT"}},
			wantKind: "stdio", wantSecrets: []string{"abc"}},
		{name: "--secret-env wants a name", a: Asked{Words: []string{"./server"}, SecretEnv: []string{"A=b"}}, wantErr: "--secret-env \"A=b\": want the NAME"},
		{name: "bad --env", a: Asked{Words: []string{"./server"}, Env: []string{"=x"}}, wantErr: "--env \"=x\": want KEY=VALUE"},
		{name: "URL headers are secrets, inherited ones are not", a: Asked{Words: []string{"https://h.example/mcp"}, HeaderEnv: []string{"X-Key=TOKEN_VAR"}, Headers: []string{"Authorization: Bearer tok123456"}},
			wantKind: "http", wantSecrets: []string{"s3cr3t-header-value", "tok123456"}, notSecrets: []string{"ghp_inheritedCredentialValue123"},
			wantHeaders: []string{"X-Key: s3cr3t-header-value", "Authorization: Bearer tok123456"}},
		{name: "--header-env of an unset variable", a: Asked{Words: []string{"https://h.example/mcp"}, HeaderEnv: []string{"X-Key=NOPE"}}, wantErr: "--header-env X-Key: environment variable NOPE is not set"},
		{name: "--header-env without =", a: Asked{Words: []string{"https://h.example/mcp"}, HeaderEnv: []string{"X-Key"}}, wantErr: `--header-env "X-Key": want Name=VAR`},
		{name: "--header without a colon", a: Asked{Words: []string{"https://h.example/mcp"}, Headers: []string{"nocolon"}}, wantErr: `--header "nocolon": want 'Name: value'`},
		{name: "no words", a: Asked{}, wantErr: "no target"},
		{name: "config server", a: Asked{Config: cfg, Words: []string{"orders"}}, wantKind: "stdio"},
		{name: "config without a name lists its servers", a: Asked{Config: cfg}, wantErr: "--config " + cfg + " needs the name of one of its servers after it: docs, orders"},
		{name: "config with two words", a: Asked{Config: cfg, Words: []string{"orders", "x"}}, wantErr: "takes one server name, got 2 words; its servers: docs, orders"},
		{name: "config without that server", a: Asked{Config: cfg, Words: []string{"nope"}}, wantErr: "nope", configErr: true},
		{name: "config file missing", a: Asked{Config: filepath.Join(dir, "none.json"), Words: []string{"x"}}, wantErr: "none.json", configErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			a.LookupEnv, a.Environ = lookup, environ
			got, err := Resolve(a)
			var ce *ConfigError
			if errors.As(err, &ce) != tc.configErr {
				t.Errorf("err %v: a *ConfigError: %v, want %v", err, !tc.configErr, tc.configErr)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one holding %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != tc.wantKind {
				t.Errorf("Kind = %q, want %q", got.Kind, tc.wantKind)
			}
			for _, s := range tc.wantSecrets {
				if !slices.Contains(got.Secrets, s) {
					t.Errorf("Secrets %q lack %q", got.Secrets, s)
				}
			}
			for _, s := range tc.notSecrets {
				if slices.Contains(got.Secrets, s) {
					t.Errorf("Secrets %q hold %q", got.Secrets, s)
				}
			}
			if tc.wantHeaders != nil && !slices.Equal(got.Headers, tc.wantHeaders) {
				t.Errorf("Headers = %q, want %q", got.Headers, tc.wantHeaders)
			}
		})
	}
}
