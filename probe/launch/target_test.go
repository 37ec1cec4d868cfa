package launch

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFromArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    Target
		wantErr string
	}{
		{"command", []string{"./server"}, Target{Kind: "stdio", Command: "./server", Args: []string{}}, ""},
		{"command and args", []string{"node", "server.mjs", "--port", "0"},
			Target{Kind: "stdio", Command: "node", Args: []string{"server.mjs", "--port", "0"}}, ""},
		{"http url", []string{"http://localhost:3000/mcp"}, Target{Kind: "http", URL: "http://localhost:3000/mcp"}, ""},
		{"https url", []string{"https://example.com/mcp"}, Target{Kind: "http", URL: "https://example.com/mcp"}, ""},
		{"url with extra args", []string{"https://example.com/mcp", "--foo"}, Target{}, "takes no further arguments"},
		{"upper-case scheme", []string{"HTTPS://example.com/mcp"}, Target{Kind: "http", URL: "https://example.com/mcp"}, ""},
		{"scheme typo", []string{"htp://127.0.0.1:9/mcp"}, Target{}, `is a URL of a scheme mcpprobe does not speak (htp): a server is reached over http:// or https://; did you mean http://127.0.0.1:9/mcp?`},
		{"scheme typo, secure", []string{"htps://example.com/mcp"}, Target{}, "did you mean https://example.com/mcp?"},
		{"another scheme", []string{"ws://example.com/mcp"}, Target{}, "(ws): a server is reached over http:// or https://"},
		{"no args", nil, Target{}, "no target"},
		{"empty args", []string{}, Target{}, "no target"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromArgs(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if !reflect.DeepEqual(got, Target{}) {
					t.Errorf("target on error = %+v, want zero", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got.Kind != tc.want.Kind || got.Command != tc.want.Command || got.URL != tc.want.URL {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if len(got.Args) != len(tc.want.Args) || (len(got.Args) > 0 && !reflect.DeepEqual(got.Args, tc.want.Args)) {
				t.Errorf("Args = %q, want %q", got.Args, tc.want.Args)
			}
			if got.Env != nil || got.Secrets != nil || got.Name != "" {
				t.Errorf("unexpected env/secrets/name: %+v", got)
			}
		})
	}
}

func TestFromArgsURLExtraArgsNamed(t *testing.T) {
	_, err := FromArgs([]string{"http://h/mcp", "a", "b"})
	if err == nil || !strings.Contains(err.Error(), `["a" "b"]`) {
		t.Fatalf("err = %v, want the extra arguments quoted", err)
	}
}

func TestWithEnv(t *testing.T) {
	tg := Target{Kind: "stdio", Command: "srv"}
	if err := tg.WithEnv([]string{"A_SECRET=secret-a", "B_TOKEN=x=y", "C_KEY=", "MCP_VARIANT=rich", "D=abc123xyz789"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A_SECRET=secret-a", "B_TOKEN=x=y", "C_KEY=", "MCP_VARIANT=rich", "D=abc123xyz789"}; !reflect.DeepEqual(tg.Env, want) {
		t.Errorf("Env = %q", tg.Env)
	}
	if want := []string{"secret-a", "x=y", "", "abc123xyz789"}; !reflect.DeepEqual(tg.Secrets, want) {
		t.Errorf("Secrets = %q", tg.Secrets)
	}
	for _, bad := range []string{"NOEQUALS", "=value"} {
		if err := (&Target{}).WithEnv([]string{bad}); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
			t.Errorf("WithEnv(%q) err = %v", bad, err)
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		name string
		t    Target
		want string
	}{
		{"plain", Target{Kind: "stdio", Command: "./server", Args: []string{"--port", "8080"}}, "./server --port 8080"},
		{"env hidden", Target{Kind: "stdio", Command: "node", Args: []string{"s.mjs"}, Env: []string{"TOKEN=tok-123456", "LEVEL=debug"}},
			"TOKEN=*** LEVEL=*** node s.mjs"},
		{"env value with equals hidden whole", Target{Kind: "stdio", Command: "x", Env: []string{"K=a=b"}}, "K=*** x"},
		{"arg with spaces", Target{Kind: "stdio", Command: "/opt/My Tools/srv", Args: []string{"hello world", "plain"}},
			"'/opt/My Tools/srv' 'hello world' plain"},
		{"arg with single quote", Target{Kind: "stdio", Command: "echo", Args: []string{"it's"}}, `echo 'it'\''s'`},
		{"empty arg", Target{Kind: "stdio", Command: "echo", Args: []string{""}}, "echo ''"},
		{"shell metacharacters", Target{Kind: "stdio", Command: "sh", Args: []string{"-c", "a;b", "$HOME", "*"}},
			"sh -c 'a;b' '$HOME' '*'"},
		{"safe punctuation unquoted", Target{Kind: "stdio", Command: "npx", Args: []string{"-y", "@scope/pkg@1.2.3", "--a=b,c:d", "100%"}},
			"npx -y @scope/pkg@1.2.3 --a=b,c:d 100%"},
		{"credential args masked", Target{Kind: "stdio", Command: "srv", Args: []string{"--token=sk-live-123456789", "--api-key", "hunter2hunter2", "--port", "8080", "ghp_abcdefghijklmnopqrstuvwx"}},
			"srv --token=*** --api-key *** --port 8080 ***"},
		{"http shows url", Target{Kind: "http", URL: "https://x/mcp", Headers: []string{"Authorization: Bearer s3cret"}}, "https://x/mcp"},
		{"sse shows url", Target{Kind: "sse", URL: "http://x/sse"}, "http://x/sse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.t.Display()
			if got != tc.want {
				t.Fatalf("Display() = %q, want %q", got, tc.want)
			}
			for _, s := range tc.t.Env {
				_, v, _ := strings.Cut(s, "=")
				if len(v) >= 3 && strings.Contains(got, v) {
					t.Errorf("env value %q shown in %q", v, got)
				}
			}
		})
	}
}

func TestURLSecrets(t *testing.T) {
	tg, err := FromArgs([]string{"https://user:pa55word@mcp.example.test/mcp?api_key=sk-live-1&team=eng"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(tg.Secrets, ",")
	for _, want := range []string{"sk-live-1", "eng", "pa55word"} {
		if !strings.Contains(got, want) {
			t.Errorf("secrets %q lack %q", got, want)
		}
	}
}

// TestInRepository: the target a committed report names is the same
// wherever the repository sits and however its paths were typed.
func TestInRepository(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bin/server", "dist/server.js", "sub/x"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(root, "sub")
	for _, tc := range []struct {
		name string
		t    Target
		wd   string
		want string
	}{
		{"as typed in the root", Target{Kind: "stdio", Command: "./bin/server"}, root, "./bin/server"},
		{"absolute", Target{Kind: "stdio", Command: filepath.Join(root, "bin/server")}, root, "./bin/server"},
		{"without ./", Target{Kind: "stdio", Command: "bin/server"}, root, "./bin/server"},
		{"from a subfolder", Target{Kind: "stdio", Command: "../bin/server"}, sub, "./bin/server"},
		{"an absolute script argument", Target{Kind: "stdio", Command: "node", Args: []string{filepath.Join(root, "dist/server.js"), "--port", "0"}}, root, "node ./dist/server.js --port 0"},
		{"a relative script argument", Target{Kind: "stdio", Command: "node", Args: []string{"dist/server.js"}}, root, "node ./dist/server.js"},
		{"an argument that is no file", Target{Kind: "stdio", Command: "npx", Args: []string{"@scope/pkg"}}, root, "npx @scope/pkg"},
		{"outside the repository", Target{Kind: "stdio", Command: "/usr/local/bin/server"}, root, "/usr/local/bin/server"},
		{"a config's cwd", Target{Kind: "stdio", Command: "./x", Dir: "sub"}, root, "./sub/x"},
		{"a URL", Target{Kind: "http", URL: "http://127.0.0.1:9/mcp"}, root, "http://127.0.0.1:9/mcp"},
		{"credentials still hidden", Target{Kind: "stdio", Command: "./bin/server", Args: []string{"--token=abc123secretvalue"}}, root, "./bin/server --token=***"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.t.InRepository(RepositoryRoot(tc.wd), tc.wd); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := RepositoryRoot(sub); got != root {
		t.Errorf("RepositoryRoot(%s) = %s, want %s", sub, got, root)
	}
}
