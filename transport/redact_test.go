package transport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactor(t *testing.T) {
	tests := []struct {
		name        string
		secrets     []string
		in          string
		want        string
		wantChanged bool
	}{
		{"plain", []string{"tok-123456"}, `Authorization: Bearer tok-123456`, `Authorization: Bearer ***`, true},
		{"every occurrence", []string{"abc"}, `abc-abc.abc`, `***-***.***`, true},
		{"nothing matched", []string{"tok-123456"}, `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{"no secrets", nil, `anything`, `anything`, false},
		{"shorter than MinSecretLen ignored", []string{"on", "1", ""}, `on 1 on`, `on 1 on`, false},
		{"exactly MinSecretLen hidden", []string{"xyz"}, `axyzb`, `a***b`, true},
		{"short ignored long kept", []string{"ab", "abcdef"}, `ab abcdef`, `ab ***`, true},
		{"quote: JSON-escaped form", []string{`pa"ss`}, `{"password":"pa\"ss"}`, `{"password":"***"}`, true},
		{"quote: plain form", []string{`pa"ss`}, `password=pa"ss`, `password=***`, true},
		{"backslash: JSON-escaped form", []string{`C:\key\x`}, `{"path":"C:\\key\\x"}`, `{"path":"***"}`, true},
		{"backslash: plain form", []string{`C:\key\x`}, `path C:\key\x`, `path ***`, true},
		{"newline: JSON-escaped form", []string{"line1\nline2"}, `{"v":"line1\nline2"}`, `{"v":"***"}`, true},
		{"both forms in one text", []string{`a"bc`}, `a"bc and "a\"bc"`, `*** and "***"`, true},
		{"longest first: container hidden whole", []string{"abc", "abcdef"}, `xabcdefx abc`, `x***x ***`, true},
		{"longest first regardless of order given", []string{"abcdef", "abc"}, `xabcdefx abc`, `x***x ***`, true},
		{"overlapping secrets", []string{"secret-one", "one-two"}, `secret-one-two`, `***-two`, true},
		{"duplicates", []string{"dup-secret", "dup-secret"}, `dup-secret`, `***`, true},
		{"several secrets", []string{"alpha-1", "beta-22"}, `alpha-1/beta-22`, `***/***`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRedactor(tc.secrets)
			in := []byte(tc.in)
			orig := append([]byte(nil), in...)
			got, changed := r.Bytes(in)
			if string(got) != tc.want {
				t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if changed != tc.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tc.wantChanged)
			}
			if !bytes.Equal(in, orig) {
				t.Errorf("input modified in place: %q", in)
			}
			if s := r.String(tc.in); s != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, s, tc.want)
			}
			for _, s := range tc.secrets {
				if len(s) >= MinSecretLen && strings.Contains(string(got), s) {
					t.Errorf("secret %q still in %q", s, got)
				}
			}
		})
	}
}

func TestRedactorGoEncodedSecret(t *testing.T) {
	// A secret echoed by a server built on encoding/json, whatever it holds.
	secret := `p<&>"\ss`
	r := NewRedactor([]string{secret})
	msg, _ := json.Marshal(map[string]string{"echo": secret})
	got, changed := r.Bytes(msg)
	if !changed || string(got) != `{"echo":"***"}` {
		t.Fatalf("Bytes(%s) = %s, %v", msg, got, changed)
	}
}

func TestRedactorNil(t *testing.T) {
	var r *Redactor
	got, changed := r.Bytes([]byte("abc"))
	if string(got) != "abc" || changed {
		t.Fatalf("nil Redactor: %q, %v", got, changed)
	}
	if s := r.String("abcdef"); s != "abcdef" {
		t.Fatalf("nil Redactor String: %q", s)
	}
}

func TestRedactorNonGoEscaping(t *testing.T) {
	// encoding/json escapes <, > and & as \u003c, \u003e, \u0026, so those are
	// the JSON forms NewRedactor looks for. A server written in JavaScript
	// (JSON.stringify), Python (json.dumps) or Rust (serde_json) writes
	// those characters as they are, and escapes only the quote.
	r := NewRedactor([]string{`p&ss"wd`})
	got, changed := r.Bytes([]byte(`{"echo":"p&ss\"wd"}`))
	if !changed || string(got) != `{"echo":"***"}` {
		t.Fatalf("got %s, %v", got, changed)
	}
}
