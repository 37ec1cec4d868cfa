package oauth

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

func TestUnionScope(t *testing.T) {
	for _, tc := range []struct{ current, asked, want string }{
		{"mcp", "mcp admin", "mcp admin"},
		{"mcp", "admin", "mcp admin"},
		{"", "admin", "admin"},
		{"mcp admin", "admin", "mcp admin"},
		{"mcp", "", "mcp"},
		{"a b", "c  b\td", "a b c d"},
	} {
		if got := unionScope(tc.current, tc.asked); got != tc.want {
			t.Errorf("unionScope(%q, %q) = %q, want %q", tc.current, tc.asked, got, tc.want)
		}
	}
}

// What a step-up refuses, before any request: another error, a scope
// already held, no retry left, a grant that cannot ask again; a token
// already replaced is no error (the request is sent with the new one).
func TestStepUpRefusals(t *testing.T) {
	for _, tc := range []struct {
		name      string
		challenge string
		scope     string
		done      int
		grant     string
		refused   string
		want      string // in the error; "" for none
	}{
		{"invalid_token", `Bearer error="invalid_token"`, "mcp", 0, "client_credentials", "Bearer a", `error="invalid_token", not insufficient_scope`},
		{"no error", `Bearer scope="admin"`, "mcp", 0, "client_credentials", "Bearer a", "not insufficient_scope"},
		{"scope held", `Bearer error="insufficient_scope", scope="mcp"`, "mcp", 0, "client_credentials", "Bearer a", "already holds"},
		{"no retry left", `Bearer error="insufficient_scope", scope="admin"`, "mcp", maxStepUps, "client_credentials", "Bearer a", "after 2 step-ups"},
		{"a refresh token given", `Bearer error="insufficient_scope", scope="admin"`, "mcp", 0, "refresh_token (--refresh-token-env)", "Bearer a", "--scope \"mcp admin\""},
		{"already replaced", `Bearer error="insufficient_scope", scope="admin"`, "mcp", 0, "client_credentials", "Bearer old", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(Options{URL: "https://h/mcp"})
			h.tok, h.scope, h.stepUps, h.grant = &oauth2.Token{AccessToken: "a"}, tc.scope, tc.done, tc.grant
			err := h.StepUp(context.Background(), tc.refused, []string{tc.challenge}, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			if h.scope != tc.scope {
				t.Errorf("scope %q after a refused step-up, want %q kept", h.scope, tc.scope)
			}
		})
	}
}

// A client secret the authorization server issued by dynamic registration
// goes back to its token endpoint, wherever it is; the user's own secret
// only to the resource's origin or --issuer's.
func TestMayCredentialRegisteredSecret(t *testing.T) {
	for _, tc := range []struct {
		name, given, held string
		ok                bool
	}{
		{"issued by registration", "", "dcr-secret", true},
		{"the user's", "user-secret", "user-secret", false},
		{"none", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(Options{URL: "https://mcp.example/mcp", ClientSecret: tc.given})
			h.as = &asMeta{TokenEndpoint: "https://auth.example/token"}
			h.issuer, h.client = "https://auth.example", client{id: "c", secret: tc.held}
			if err := h.mayCredential(h.client.secret != "", false); (err == nil) != tc.ok {
				t.Errorf("err %v, want ok %v", err, tc.ok)
			}
		})
	}
}
