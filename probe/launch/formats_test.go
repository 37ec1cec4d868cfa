package launch

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestConfigFormats(t *testing.T) {
	env := map[string]string{"PASSED_ON": "p-val-9876", "REMOTE_TOKEN": "tok-abcdef", "REMOTE_KEY": "key-ghijkl",
		"HOME_DIR": "/home/me", "MY_TOKEN": "gem-secret-1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	codex := filepath.Join("testdata", "codex", "config.toml")
	gemini := filepath.Join("testdata", "gemini", ".gemini", "settings.json")
	codexDir, _ := filepath.Abs(filepath.Dir(codex))
	geminiDir, _ := filepath.Abs(filepath.Dir(gemini))
	tests := []struct {
		name   string
		path   string
		server string
		format Format
		check  func(t *testing.T, cs ConfigServer)
	}{
		{name: "codex stdio: env, env_vars, cwd, timeouts, tool filters; no expansion", path: codex, server: "docs", format: FormatCodex,
			check: func(t *testing.T, cs ConfigServer) {
				want := Target{Kind: "stdio", Name: "docs", Command: "npx", Args: []string{"-y", "docs-server", "${NOT_EXPANDED}"},
					Env: []string{"API_KEY=sk-live-123456", "MODE=ro", "PASSED_ON=p-val-9876"}, Dir: filepath.Join(codexDir, "work"),
					Secrets: []string{"sk-live-123456"}} // MODE and PASSED_ON say nothing of secrets, and their values are plain
				if !reflect.DeepEqual(cs.Target, want) {
					t.Errorf("got  %+v\nwant %+v", cs.Target, want)
				}
				if cs.StartupTimeout != 20*time.Second || cs.ToolTimeout != 45500*time.Millisecond {
					t.Errorf("timeouts %v %v", cs.StartupTimeout, cs.ToolTimeout)
				}
				if !cs.Shows("search") || cs.Shows("fetch") || cs.Shows("other") {
					t.Errorf("tool filter: %v %v", cs.IncludeTools, cs.ExcludeTools)
				}
			}},
		{name: "codex url: bearer_token_env_var, http_headers, env_http_headers", path: codex, server: "remote", format: FormatCodex,
			check: func(t *testing.T, cs ConfigServer) {
				tg := cs.Target
				if tg.Kind != "http" || tg.URL != "https://mcp.example.com/mcp" {
					t.Errorf("got %+v", tg)
				}
				wantH := []string{"X-Team: blue", "X-Api-Key: key-ghijkl", "Authorization: Bearer tok-abcdef"}
				if !reflect.DeepEqual(tg.Headers, wantH) {
					t.Errorf("Headers = %q, want %q", tg.Headers, wantH)
				}
				for _, s := range []string{"tok-abcdef", "key-ghijkl"} {
					if !contains(tg.Secrets, s) {
						t.Errorf("secret %q not in %q", s, tg.Secrets)
					}
				}
			}},
		{name: "codex enabled = false", path: codex, server: "off", format: FormatCodex,
			check: func(t *testing.T, cs ConfigServer) {
				if !cs.Disabled || cs.Err != nil {
					t.Errorf("got %+v", cs)
				}
			}},
		{name: "codex entry of the wrong type is its own error", path: codex, server: "broken", format: FormatCodex,
			check: func(t *testing.T, cs ConfigServer) {
				if cs.Err == nil || !strings.Contains(cs.Err.Error(), `server "broken"`) {
					t.Errorf("err = %v", cs.Err)
				}
			}},
		{name: "gemini stdio: $VAR and ${VAR}, cwd, timeout ms, trust, include/exclude", path: gemini, server: "local", format: FormatGemini,
			check: func(t *testing.T, cs ConfigServer) {
				want := Target{Kind: "stdio", Name: "local", Command: "python", Args: []string{"server.py", "/home/me/data", "/home/me/x"},
					Env: []string{"API_KEY=gem-secret-1"}, Dir: filepath.Join(geminiDir, "srv"), Secrets: []string{"gem-secret-1"}} // $HOME is a path, under a name that says nothing of secrets
				if !reflect.DeepEqual(cs.Target, want) {
					t.Errorf("got  %+v\nwant %+v", cs.Target, want)
				}
				if cs.ToolTimeout != 30*time.Second || !cs.Trust || !cs.Shows("a") || cs.Shows("b") {
					t.Errorf("got %+v", cs)
				}
			}},
		{name: "gemini httpUrl is Streamable HTTP", path: gemini, server: "streamable", format: FormatGemini,
			check: func(t *testing.T, cs ConfigServer) {
				if cs.Target.Kind != "http" || cs.Target.URL != "https://mcp.example.com/mcp" || !contains(cs.Target.Secrets, "gem-secret-1") {
					t.Errorf("got %+v", cs.Target)
				}
			}},
		{name: "gemini url is SSE", path: gemini, server: "legacy", format: FormatGemini,
			check: func(t *testing.T, cs ConfigServer) {
				if cs.Target.Kind != "sse" {
					t.Errorf("got %+v", cs.Target)
				}
			}},
		{name: "TOML found by content, without .toml", path: filepath.Join("testdata", "sniff", "servers"), server: "one", format: FormatCodex,
			check: func(t *testing.T, cs ConfigServer) {
				if cs.Target.Command != "one" {
					t.Errorf("got %+v", cs.Target)
				}
			}},
		{name: "Gemini found by content (httpUrl), any file name", path: filepath.Join("testdata", "sniff", "gemini.json"), server: "s", format: FormatGemini,
			check: func(t *testing.T, cs ConfigServer) {
				if cs.Target.Kind != "sse" {
					t.Errorf("got %+v", cs.Target)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ConfigFormat(tc.path)
			if err != nil || f != tc.format {
				t.Fatalf("ConfigFormat = %q, %v; want %q", f, err, tc.format)
			}
			list, err := ListConfig(tc.path, lookup)
			if err != nil {
				t.Fatal(err)
			}
			for _, cs := range list {
				if cs.Name == tc.server {
					if cs.Format != tc.format {
						t.Errorf("Format = %q", cs.Format)
					}
					tc.check(t, cs)
					return
				}
			}
			t.Fatalf("no server %q in %+v", tc.server, list)
		})
	}
}

func TestConfigFormatErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"codex without servers", "config.toml", "model = \"x\"\n", []string{"no [mcp_servers.NAME] table"}},
		{"bad TOML says where", "config.toml", "[mcp_servers.a]\ncommand = \n", []string{"not valid TOML", "line 2"}},
		{"gemini without servers", filepath.Join(".gemini", "settings.json"), `{"theme": "x"}`, []string{`no "mcpServers" object (Gemini CLI)`}},
		{"codex bearer variable not set", "config.toml", "[mcp_servers.r]\nurl = \"http://x\"\nbearer_token_env_var = \"UNSET_VAR_X\"\n", []string{"bearer_token_env_var names UNSET_VAR_X"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name, tc.file)
			writeFile(t, p, tc.body)
			_, err := FromConfig(p, "r", func(string) (string, bool) { return "", false })
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want %q", err, w)
				}
			}
		})
	}
}

func TestHostConfigsKnowCodexAndGemini(t *testing.T) {
	var got []string
	for _, hc := range HostConfigs("/p", "/h", "/u", func(string) (string, bool) { return "", false }) {
		got = append(got, hc.Host+" "+hc.Scope+" "+hc.Path)
	}
	for _, w := range []string{"Codex user /h/.codex/config.toml", "Codex project /p/.codex/config.toml",
		"Gemini CLI user /h/.gemini/settings.json", "Gemini CLI project /p/.gemini/settings.json"} {
		if !contains(got, w) {
			t.Errorf("%q not in %q", w, got)
		}
	}
	// CODEX_HOME moves Codex's user file, and only that one.
	got = nil
	env := func(k string) (string, bool) { return map[string]string{"CODEX_HOME": "/ch"}[k], k == "CODEX_HOME" }
	for _, hc := range HostConfigs("/p", "/h", "/u", env) {
		got = append(got, hc.Host+" "+hc.Scope+" "+hc.Path)
	}
	for _, w := range []string{"Codex user /ch/config.toml", "Codex project /p/.codex/config.toml", "Claude Code user /h/.claude.json"} {
		if !contains(got, w) {
			t.Errorf("with CODEX_HOME: %q not in %q", w, got)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
