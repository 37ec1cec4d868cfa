package oauth

import "testing"

func TestSafeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://as.example/authorize?x=1":        "https://as.example/authorize?x=1",
		"https://as.example/\u202egnp.exe?a=b":    "https://as.example/%E2%80%AEgnp.exe?a=b",
		"https://as.example/a\u0085b\u009bc":      "https://as.example/a%C2%85b%C2%9Bc",
		"https://as.example/a\x1b[31mb":           "https://as.example/a%1B[31mb",
		"https://as.example/\u200bx\u2066y\u2028": "https://as.example/%E2%80%8Bx%E2%81%A6y%E2%80%A8",
		"https://as.example/caf\u00e9":            "https://as.example/caf\u00e9",
		"https://as.example/\xff":                 "https://as.example/%FF",
	} {
		if got := SafeURL(in); got != want {
			t.Errorf("SafeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"issuer https://as.example/x is wrong":   "issuer https://as.example/x is wrong",
		"issuer https://as\u202e.example/\u0085": `issuer https://as\u202e.example/\u0085`,
		"a\x1b[2Jb\xffc":                         `a\u001b[2Jb\xffc`,
		"two\nlines\tand tab":                    "two\nlines\tand tab",
	} {
		if got := safeText(in); got != want {
			t.Errorf("safeText(%q) = %q, want %q", in, got, want)
		}
	}
}
