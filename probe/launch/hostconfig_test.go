package launch

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func lookupFrom(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestFromConfig(t *testing.T) {
	env := map[string]string{
		"HOME_DIR": "/home/me",
		"TOKEN":    "tok-123456",
		"EMPTY":    "",
		"API_KEY":  "k-abcdef",
	}
	tests := []struct {
		name    string
		dir     string // sub-directory of the temp dir holding the config
		file    string
		content string
		server  string
		check   func(t *testing.T, got Target, cfgDir string)
		wantErr []string
	}{
		{
			name: "claude style",
			file: "claude.json",
			content: `{"mcpServers":{
				"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","${HOME_DIR}/docs"],
				      "env":{"TOKEN":"${TOKEN}","B_LEVEL":"debug"}},
				"other":{"command":"other"}}}`,
			server: "fs",
			check: func(t *testing.T, got Target, _ string) {
				want := Target{
					Kind: "stdio", Name: "fs", Command: "npx",
					Args:    []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/docs"},
					Env:     []string{"B_LEVEL=debug", "TOKEN=tok-123456"},
					Secrets: []string{"tok-123456"}, // B_LEVEL=debug and ${HOME_DIR}, a path, are plainly not secrets
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name: "vs code style with comments and trailing commas",
			dir:  "proj/.vscode",
			file: "mcp.json",
			content: `{
				// VS Code keeps its servers here
				"inputs": [],
				"servers": {
					"local": {
						"type": "stdio",
						"command": "${workspaceFolder}/bin/server", /* block comment */
						"args": ["--root", "${workspaceFolder}", "--key", "${env:API_KEY}",],
						"env": {"LEVEL": "${LEVEL:-info}", "HOME": "${HOME_DIR:-/nope}",},
					},
				},
			}`,
			server: "local",
			check: func(t *testing.T, got Target, cfgDir string) {
				ws := filepath.Dir(cfgDir) // the parent of .vscode
				if filepath.Base(ws) != "proj" {
					t.Fatalf("test setup: workspace %s", ws)
				}
				want := Target{
					Kind: "stdio", Name: "local", Command: ws + "/bin/server",
					Args:    []string{"--root", ws, "--key", "k-abcdef"},
					Env:     []string{"HOME=/home/me", "LEVEL=info"},
					Secrets: []string{"k-abcdef"}, // the value of --key; HOME and LEVEL are plain
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name:    "workspaceFolder outside .vscode is the config's directory",
			dir:     "plain",
			file:    "mcp.json",
			content: `{"servers":{"s":{"command":"${workspaceFolder}/run"}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, cfgDir string) {
				if got.Command != cfgDir+"/run" {
					t.Errorf("Command = %q, want %q", got.Command, cfgDir+"/run")
				}
			},
		},
		{
			name:    "default used when the variable is set but empty",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"srv","args":["${EMPTY:-fallback}","${UNSET_VAR:-d2}","${TOKEN:-x}"]}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, _ string) {
				if want := []string{"fallback", "d2", "tok-123456"}; !reflect.DeepEqual(got.Args, want) {
					t.Errorf("Args = %q, want %q", got.Args, want)
				}
			},
		},
		{
			name:    "a variable set to empty expands to empty",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"srv","args":["a${EMPTY}b"]}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, _ string) {
				if want := []string{"ab"}; !reflect.DeepEqual(got.Args, want) {
					t.Errorf("Args = %q, want %q", got.Args, want)
				}
			},
		},
		{
			name:    "several references in one value",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"srv","args":["${HOME_DIR}:${TOKEN}:${env:API_KEY}"]}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, _ string) {
				if want := "/home/me:tok-123456:k-abcdef"; len(got.Args) != 1 || got.Args[0] != want {
					t.Errorf("Args = %q, want [%q]", got.Args, want)
				}
			},
		},
		{
			name:    "input variable is an error",
			file:    "c.json",
			content: `{"servers":{"s":{"command":"srv","env":{"K":"${input:apiKey}"}}}}`,
			server:  "s",
			wantErr: []string{"${input:apiKey}", "prompt"},
		},
		{
			name:    "unset variable is an error",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"srv","args":["${NOT_SET_ANYWHERE}"]}}}`,
			server:  "s",
			wantErr: []string{"${NOT_SET_ANYWHERE} is not set", `server "s"`},
		},
		{
			name:    "unset env: variable is an error",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"srv","args":["${env:NOPE}"]}}}`,
			server:  "s",
			wantErr: []string{"${env:NOPE} is not set"},
		},
		{
			name:    "unknown server lists the names",
			file:    "c.json",
			content: `{"mcpServers":{"zeta":{"command":"z"},"alpha":{"command":"a"}},"servers":{"mid":{"command":"m"}}}`,
			server:  "nope",
			wantErr: []string{`no server "nope"`, "it has: alpha, mid, zeta"},
		},
		{
			name:    "no name lists the names",
			file:    "c.json",
			content: `{"mcpServers":{"b":{"command":"b"},"a":{"command":"a"}}}`,
			server:  "",
			wantErr: []string{"needs the name of a server", "a, b"},
		},
		{
			name:    "no servers object",
			file:    "c.json",
			content: `{"other":{}}`,
			server:  "x",
			wantErr: []string{`no "mcpServers"`},
		},
		{
			name:    "empty mcpServers",
			file:    "c.json",
			content: `{"mcpServers":{}}`,
			server:  "x",
			wantErr: []string{`has no servers: its "mcpServers" object is empty`},
		},
		{
			name:    "empty VS Code servers",
			file:    "c.json",
			content: `{"servers":{}, "inputs": []}`,
			server:  "x",
			wantErr: []string{`has no servers: its "servers" object is empty`},
		},
		{
			name:    "not JSON",
			file:    "c.json",
			content: `{"mcpServers":`,
			server:  "x",
			wantErr: []string{"not valid JSON"},
		},
		{
			name:    "unknown type",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"type":"websocket","url":"ws://x"}}}`,
			server:  "s",
			wantErr: []string{`type "websocket"`},
		},
		{
			name:    "stdio without command",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"args":["x"]}}}`,
			server:  "s",
			wantErr: []string{"has no command"},
		},
		{
			name:    "http without url",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"type":"http"}}}`,
			server:  "s",
			wantErr: []string{"no url"},
		},
		{
			name: "http with url and headers",
			file: "c.json",
			content: `{"mcpServers":{"remote":{"type":"http","url":"https://api.example.com/mcp?team=${HOME_DIR}",
				"headers":{"X-Team":"eng","Authorization":"Bearer ${TOKEN}"}}}}`,
			server: "remote",
			check: func(t *testing.T, got Target, _ string) {
				want := Target{
					Kind: "http", Name: "remote", URL: "https://api.example.com/mcp?team=/home/me",
					Headers: []string{"Authorization: Bearer tok-123456", "X-Team: eng"},
					Secrets: []string{"/home/me", "Bearer tok-123456", "tok-123456", "eng"}, // the URL's query value first, then each header's value and its token
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name:    "streamable-http spelling",
			file:    "c.json",
			content: `{"servers":{"r":{"type":"streamable-http","url":"http://localhost/mcp"}}}`,
			server:  "r",
			check: func(t *testing.T, got Target, _ string) {
				if got.Kind != "http" || got.URL != "http://localhost/mcp" {
					t.Errorf("got %+v", got)
				}
			},
		},
		{
			name:    "sse",
			file:    "c.json",
			content: `{"mcpServers":{"old":{"type":"sse","url":"http://localhost:8080/sse","headers":{"X-Key":"${API_KEY}"}}}}`,
			server:  "old",
			check: func(t *testing.T, got Target, _ string) {
				want := Target{Kind: "sse", Name: "old", URL: "http://localhost:8080/sse",
					Headers: []string{"X-Key: k-abcdef"}, Secrets: []string{"k-abcdef"}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name:    "url without type is http",
			file:    "c.json",
			content: `{"mcpServers":{"r":{"url":"https://x/mcp"}}}`,
			server:  "r",
			check: func(t *testing.T, got Target, _ string) {
				if got.Kind != "http" || got.URL != "https://x/mcp" {
					t.Errorf("got %+v", got)
				}
			},
		},
		{
			name:    "relative cwd resolved against the config's directory",
			dir:     "cfg",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"./srv","cwd":"sub/dir"}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, cfgDir string) {
				if want := filepath.Join(cfgDir, "sub", "dir"); got.Dir != want {
					t.Errorf("Dir = %q, want %q", got.Dir, want)
				}
			},
		},
		{
			name:    "absolute cwd kept",
			file:    "c.json",
			content: `{"mcpServers":{"s":{"command":"./srv","cwd":"${HOME_DIR}/work"}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, _ string) {
				if got.Dir != "/home/me/work" {
					t.Errorf("Dir = %q", got.Dir)
				}
			},
		},
		{
			name:    "mcpServers wins over servers for the same name",
			file:    "c.json",
			content: `{"servers":{"s":{"command":"from-servers"}},"mcpServers":{"s":{"command":"from-mcpServers"}}}`,
			server:  "s",
			check: func(t *testing.T, got Target, _ string) {
				if got.Command != "from-mcpServers" {
					t.Errorf("Command = %q", got.Command)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, filepath.FromSlash(tc.dir))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.file)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := FromConfig(path, tc.server, lookupFrom(env))
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, got %+v", got)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err = %q, want it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			abs, _ := filepath.Abs(dir)
			tc.check(t, got, abs)
		})
	}
}

func TestFromConfigRelativePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcpServers":{"s":{"command":"x","cwd":"."}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	got, err := FromConfig("c.json", "s", lookupFrom(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(got.Dir) || got.Dir != dir {
		// t.TempDir may sit behind a symlink; compare resolved paths.
		a, _ := filepath.EvalSymlinks(got.Dir)
		b, _ := filepath.EvalSymlinks(dir)
		if a != b {
			t.Errorf("Dir = %q, want %q", got.Dir, dir)
		}
	}
}

func TestFromConfigMissingFile(t *testing.T) {
	_, err := FromConfig(filepath.Join(t.TempDir(), "nope.json"), "s", lookupFrom(nil))
	if err == nil || !strings.Contains(err.Error(), "reading config") || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("err = %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestDisplayFromConfigHidesEnv(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	content := `{"mcpServers":{"s":{"command":"srv","args":["--name","my server"],"env":{"TOKEN":"${TOKEN}"}}}}`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := FromConfig(path, "s", lookupFrom(map[string]string{"TOKEN": "very-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tg.Display(), "TOKEN=*** srv --name 'my server'"; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
}
