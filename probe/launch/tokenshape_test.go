package launch

import (
	"strings"
	"testing"
)

// TestTokenShape: each well-known form is recognised whole, and the
// prefix check before the expression turns away nothing it would match.
func TestTokenShape(t *testing.T) {
	t.Parallel()
	yes := []string{"sk-ant-api03-abcdefgh", "sk_live_abcd1234", "rk_test_abcd1234", "ghp_" + strings.Repeat("a", 20),
		"github_pat_" + strings.Repeat("a_", 10), "glpat-abcdefghijklmnop", "xoxb-1234-5678", "xapp-1-abcdefg",
		"AKIA" + strings.Repeat("A", 16), "AIza" + strings.Repeat("x", 35), "hf_" + strings.Repeat("a", 20),
		"npm_" + strings.Repeat("a", 20), "pypi-abcdefghijklmnop", "eyJhbGciOiJI.eyJzdWIiOiIx.sig"}
	no := []string{"", "sk-short", "sk_prod_abcd1234", "ghx_" + strings.Repeat("a", 20), "xoxz-1234-5678",
		"AKIA" + strings.Repeat("a", 16), "eyJhbGciOiJI", "production", "sk-ant-api03-abcdefgh!"}
	for _, v := range yes {
		if !TokenShape(v) {
			t.Errorf("TokenShape(%q) = false", v)
		}
	}
	for _, v := range no {
		if TokenShape(v) {
			t.Errorf("TokenShape(%q) = true", v)
		}
	}
	for _, f := range tokenForms {
		if f.prefix == "" {
			t.Errorf("a form without a prefix (%q) would never be tried", f.rest)
		}
	}
}
