package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000)
	tests := []struct {
		name string
		s    Syntax
		in   string
		want int
	}{
		{"flat", JSON, `{"a":1}`, 1},
		{"brackets in a string", JSON, `{"a":"[[[{{{\"[["}`, 1},
		{"deep", JSON, deep, MaxDepth + 1},
		{"closers in a string do not hide depth", JSON, strings.Repeat(`["]",`, 2000), MaxDepth + 1},
		{"jsonc comments", JSONC, "{// [[[[\n/* {{{{ */ \"a\": [1]}", 2},
		{"jsonc closers in a comment do not hide depth", JSONC, strings.Repeat("[/*]*/", 2000), MaxDepth + 1},
		{"jsonc unterminated comment", JSONC, "[/* [[[", 1},
		{"json has no comments", JSON, "[// [[\n]", 3},
		{"toml", TOML, "[mcp_servers.a]\ncommand = \"x[\" # [[[\nargs = ['[', \"\"\"\n[[[\n\"\"\"\"\", '''[''']\n", 1},
		{"toml table array", TOML, "[[a]]\nb = [[1], [2]]\n", 2},
		{"toml deep", TOML, "a = " + deep, MaxDepth + 1},
		{"toml inline tables", TOML, "a = " + strings.Repeat("{b = ", 2000), MaxDepth + 1},
		{"toml closers in a literal do not hide depth", TOML, "a = " + strings.Repeat(`[']',`, 2000), MaxDepth + 1},
		{"toml basic string ends at its line", TOML, "a = \"x\nb = " + strings.Repeat("[", 2000), MaxDepth + 1},
	}
	for _, tc := range tests {
		if got := Depth([]byte(tc.in), tc.s); got != tc.want {
			t.Errorf("%s: Depth = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A host config, reference or profiles file 300,000 levels deep is refused
// before a parser sees it, by the message naming the limit.
func TestReadJSONRefusesDeep(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "deep.json")
	os.WriteFile(p, []byte(`{"mcpServers":`+strings.Repeat("[", 300_000)), 0o644)
	_, err := ReadJSON(p, MaxConfig, JSONC)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "nests more than 1000 levels deep") {
		t.Fatalf("got %v", err)
	}
}
