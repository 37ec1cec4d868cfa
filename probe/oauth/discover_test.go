package oauth

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestResourceMetadataURLs(t *testing.T) {
	for _, tc := range []struct {
		endpoint, header string
		want             []string
	}{
		{"https://example.com/public/mcp", "", []string{"https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com/public/mcp", "https://meta.example.com/prm", []string{"https://meta.example.com/prm", "https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com", "", []string{"https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com/", "", []string{"https://example.com/.well-known/oauth-protected-resource"}},
		{"https://Example.COM:8443/mcp/", "", []string{"https://example.com:8443/.well-known/oauth-protected-resource/mcp", "https://example.com:8443/.well-known/oauth-protected-resource"}},
	} {
		got := ResourceMetadataURLs(mustURL(t, tc.endpoint), tc.header)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (header %q):\n got %q\nwant %q", tc.endpoint, tc.header, got, tc.want)
		}
	}
}

func TestAuthServerMetadataURLs(t *testing.T) {
	for _, tc := range []struct {
		issuer string
		want   []string
	}{
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
		{"https://auth.example.com", []string{"https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/", []string{"https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/a/b/", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/a/b",
			"https://auth.example.com/.well-known/openid-configuration/a/b",
			"https://auth.example.com/a/b/.well-known/openid-configuration"}},
	} {
		got, err := AuthServerMetadataURLs(tc.issuer)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.issuer, got, err, tc.want)
		}
	}
	for _, bad := range []string{"auth.example.com", "ftp://x/y", ""} {
		if _, err := AuthServerMetadataURLs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestResourceMatches(t *testing.T) {
	for _, tc := range []struct {
		resource, endpoint string
		want               bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"HTTPS://MCP.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/server", "https://mcp.example.com/server/mcp", true},
		{"https://mcp.example.com/serv", "https://mcp.example.com/server/mcp", false},
		{"https://mcp.example.com/other", "https://mcp.example.com/mcp", false},
		{"https://evil.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp", false},
		{"mcp.example.com", "https://mcp.example.com/mcp", false},
	} {
		if got := ResourceMatches(tc.resource, mustURL(t, tc.endpoint)); got != tc.want {
			t.Errorf("ResourceMatches(%q, %q) = %v, want %v", tc.resource, tc.endpoint, got, tc.want)
		}
	}
	if c := Canonical(mustURL(t, "HTTPS://Mcp.Example.com/#frag")); c != "https://mcp.example.com" {
		t.Errorf("Canonical = %q", c)
	}
}

func TestS256(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
		why  string
	}{
		{`{"issuer":"x","code_challenge_methods_supported":["S256"]}`, true, ""},
		{`{"issuer":"x","code_challenge_methods_supported":["plain","S256"]}`, true, ""},
		{`{"issuer":"x"}`, false, "does not support PKCE"},
		{`{"issuer":"x","code_challenge_methods_supported":["plain"]}`, false, "without S256"},
		{`{"issuer":"x","code_challenge_methods_supported":[]}`, false, "without S256"},
	} {
		md, err := ParseServerMetadata([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		ok, why := md.S256()
		if ok != tc.want || (tc.why != "" && !contains(why, tc.why)) {
			t.Errorf("%s: %v %q, want %v %q", tc.doc, ok, why, tc.want, tc.why)
		}
	}
	if _, err := ParseServerMetadata([]byte("<html>")); err == nil {
		t.Errorf("HTML parsed as metadata")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestChooseScope(t *testing.T) {
	for _, tc := range []struct {
		flag, challenged string
		supported        []string
		want             string
	}{
		{"", "files:read", []string{"a", "b"}, "files:read"},
		{"", "", []string{"a", "b"}, "a b"},
		{"", "", nil, ""},
		{"mine", "files:read", []string{"a"}, "mine"},
	} {
		if got := chooseScope(tc.flag, tc.challenged, tc.supported); got != tc.want {
			t.Errorf("chooseScope(%q, %q, %q) = %q, want %q", tc.flag, tc.challenged, tc.supported, got, tc.want)
		}
	}
}

func TestIsMetadataURL(t *testing.T) {
	for id, want := range map[string]bool{
		"mcpprobe-app": false, "https://app.example.com/client.json": true, "https://app.example.com": false,
		"https://app.example.com/": false, "urn:x:y": false, "http://127.0.0.1:8000/c.json": true,
	} {
		if got := IsMetadataURL(id); got != want {
			t.Errorf("IsMetadataURL(%q) = %v, want %v", id, got, want)
		}
	}
}
