package archtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The probe's MCP client is its own, so that it sees the raw bytes a
// server sends; the MCP SDKs are peers in fixtures and tests, never a
// part of the shipped binary (issue 41). This keeps a new import of one
// (the audit once parsed WWW-Authenticate with the Go SDK's oauthex,
// which linked 16 SDK packages) from slipping back in.
func TestShippedBinaryHasNoMCPSDK(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"cmd/mcpprobe")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, bad := range sdkImports(string(out)) {
		t.Errorf("the shipped binary links an MCP SDK package: %s", bad)
	}
}

// sdkImports reads go list's "pkg imp imp…" lines and names every MCP SDK
// package in them with the package that imports it, so a failure says
// where to cut.
func sdkImports(list string) []string {
	var bad []string
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || isMCPSDK(f[0]) {
			continue
		}
		for _, imp := range f[1:] {
			if isMCPSDK(imp) {
				bad = append(bad, imp+" (imported by "+f[0]+")")
			}
		}
	}
	return bad
}

// isMCPSDK matches the official SDKs' module paths (github.com/
// modelcontextprotocol/go-sdk and any sibling) and the community Go SDK
// the fixtures use (github.com/mark3labs/mcp-go).
func isMCPSDK(pkg string) bool {
	p := strings.ToLower(pkg)
	return strings.HasPrefix(p, "github.com/modelcontextprotocol/") || strings.HasPrefix(p, "github.com/mark3labs/mcp-go")
}

func TestSDKImports(t *testing.T) {
	list := "example.com/m/cmd a b\n" +
		"example.com/m/probe/authz fmt github.com/modelcontextprotocol/go-sdk/oauthex\n" +
		"github.com/modelcontextprotocol/go-sdk/oauthex github.com/modelcontextprotocol/go-sdk/internal/json\n" +
		"example.com/m/x github.com/mark3labs/mcp-go/mcp\n"
	got := sdkImports(list)
	want := []string{
		"github.com/modelcontextprotocol/go-sdk/oauthex (imported by example.com/m/probe/authz)",
		"github.com/mark3labs/mcp-go/mcp (imported by example.com/m/x)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
