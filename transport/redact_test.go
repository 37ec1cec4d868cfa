package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
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
		// Overlapping matches are hidden as their union: hiding the longer one
		// first would leave the rest of the other in view.
		{"overlapping secrets", []string{"secret-one", "one-two"}, `secret-one-two`, `***`, true},
		{"duplicates", []string{"dup-secret", "dup-secret"}, `dup-secret`, `***`, true},
		{"several secrets", []string{"alpha-1", "beta-22"}, `alpha-1/beta-22`, `***/***`, true},
		// A display limit that cut a secret leaves its head before "…".
		{"cut by a display limit", []string{"sk-live-0123456789"}, `key: sk-live-01…`, `key: ***…`, true},
		{"cut, JSON-escaped", []string{`pa"ssword-long`}, `{"d":"pa\"ssw…"}`, `{"d":"***…"}`, true},
		{"cut, its base64 form", []string{"client:s3cret-value"}, `Basic Y2xpZW50OnMzY3J…`, `Basic ***…`, true},
		{"a head shorter than 4 stays", []string{"sk-live-0123456789"}, `see sk-…`, `see sk-…`, false},
		{"a head without the mark stays", []string{"sk-live-0123456789"}, `sk-live is a prefix`, `sk-live is a prefix`, false},
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

// perChar writes s as JSON \u escapes, one character at a time, with the
// case of the hex digits given.
func perChar(s string, upper bool) string {
	var b strings.Builder
	for _, r := range s {
		f := `\u%04x`
		if upper {
			f = `\u%04X`
		}
		fmt.Fprintf(&b, f, r)
	}
	return b.String()
}

// decodedForms is every way a reader of an output would get the secret
// back: what a redacted output must hold none of.
func decodedHolds(t *testing.T, out []byte, secret string) bool {
	t.Helper()
	text := string(out)
	for range 4 {
		if strings.Contains(text, secret) {
			return true
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			for off := 0; off < 3; off++ {
				for _, field := range strings.FieldsFunc(text, func(r rune) bool {
					return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+/-_=", r))
				}) {
					if off < len(field) {
						dec, _ := enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(field[off:], "="))
						if strings.Contains(string(dec), secret) {
							return true
						}
					}
				}
			}
		}
		if strings.Contains(strings.ToLower(text), hex.EncodeToString([]byte(secret))) {
			return true
		}
		if u, err := url.QueryUnescape(text); err == nil && strings.Contains(u, secret) {
			return true
		}
		if u, err := url.PathUnescape(text); err == nil && strings.Contains(u, secret) {
			return true
		}
		s := jsonEscape.ReplaceAllStringFunc(text, func(e string) string {
			var d string
			if json.Unmarshal([]byte(`"`+e+`"`), &d) != nil {
				return e
			}
			return d
		})
		if s == text {
			break
		}
		text = s
	}
	return false
}

var jsonEscape = regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|["\\/bfnrt])`)

func TestRedactorEncodedForms(t *testing.T) {
	const secret = "Zq9-live/Key+8"
	b64 := func(enc *base64.Encoding, prefix string) string {
		return enc.EncodeToString([]byte(prefix + secret + "!tail"))
	}
	tests := []struct {
		name string
		in   string
	}{
		{"plain", "token " + secret + " used"},
		{"JSON escapes, one a character", `{"d":"` + perChar(secret, false) + `"}`},
		{"JSON escapes, upper-case hex", `{"d":"` + perChar(secret, true) + `"}`},
		{"JSON escapes, mixed with plain", `{"d":"Zq\u0039-live\/K\u0065y+8"}`},
		{"JSON escapes, two layers", `{"raw":"{\"d\":\"` + strings.ReplaceAll(perChar(secret, false), `\`, `\\`) + `\"}"}`},
		{"JSON escapes, three layers", `"` + strings.ReplaceAll(perChar(secret, false), `\`, `\\\\`) + `"`},
		{"base64 std, offset 0", "data " + base64.StdEncoding.EncodeToString([]byte(secret))},
		{"base64 std, offset 1", "data " + b64(base64.StdEncoding, "a")},
		{"base64 std, offset 2", "data " + b64(base64.StdEncoding, "ab")},
		{"base64 url, offset 0", "data " + base64.URLEncoding.EncodeToString([]byte(secret))},
		{"base64 url, offset 1", "data " + b64(base64.URLEncoding, "a")},
		{"base64 url, offset 2, unpadded", "data " + b64(base64.RawURLEncoding, "xy")},
		{"base64 std unpadded", "data " + base64.RawStdEncoding.EncodeToString([]byte(secret))},
		{"base64 inside JSON escapes", `{"d":"` + perChar(base64.StdEncoding.EncodeToString([]byte(secret)), false) + `"}`},
		{"percent, query", "q=" + url.QueryEscape(secret)},
		{"percent, every byte, upper", "q=" + pctAll(secret, "%%%02X")},
		{"percent, every byte, lower", "q=" + pctAll(secret, "%%%02x")},
		{"percent, path", "/p/" + url.PathEscape(secret)},
		{"hex lower", "h=" + hex.EncodeToString([]byte(secret))},
		{"hex upper", "h=" + strings.ToUpper(hex.EncodeToString([]byte(secret)))},
	}
	r := NewRedactor([]string{secret})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !decodedHolds(t, []byte(tc.in), secret) {
				t.Fatalf("the test's own checker does not find the secret in %q", tc.in)
			}
			got, changed := r.Bytes([]byte(tc.in))
			if !changed {
				t.Errorf("Bytes(%q) changed nothing", tc.in)
			}
			if decodedHolds(t, got, secret) {
				t.Errorf("Bytes(%q) = %q: the secret can still be decoded", tc.in, got)
			}
			if strings.HasPrefix(tc.in, "{") && !json.Valid(got) {
				t.Errorf("Bytes(%q) = %q: no longer valid JSON", tc.in, got)
			}
		})
	}
}

func pctAll(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

// Decoding views find secrets; what holds none is left byte for byte,
// escapes and all.
func TestRedactorKeepsWhatHoldsNoSecret(t *testing.T) {
	r := NewRedactor([]string{"abcdef123456"})
	for _, in := range []string{
		`{"d":"caf\u00e9 \ud83d\ude00 \/ \"q\" \\ \n"}`,
		`{"u":"https://x.test/a%20b?c=d+e%zz"}`,
		`\`, `\u12`, `%`, `%4`, `a\uZZZZb`, `\ud800 lone`,
		"bad \xff bytes",
	} {
		got, changed := r.Bytes([]byte(in))
		if changed || string(got) != in {
			t.Errorf("Bytes(%q) = %q, %v; want it unchanged", in, got, changed)
		}
	}
}

// The replacement covers whole escapes: the rest of the text, and of the
// JSON string, is kept.
func TestRedactorEscapedSpan(t *testing.T) {
	r := NewRedactor([]string{"Zq9xyz"})
	in := `{"a":"before \u005a\u0071\u0039\u0078\u0079\u007a after","b":"\n"}`
	got, _ := r.Bytes([]byte(in))
	if want := `{"a":"before *** after","b":"\n"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// A redactor on a 1 MB frame with five secrets, one of them present; and
// the same frame with no secret registered, the path every frame takes.
func BenchmarkRedactor(b *testing.B) {
	frame := benchFrame(1 << 20)
	secrets := []string{"sk-live-0123456789abcdef", "ghp_abcdefghijklmnopqrstuv", "hunter2hunter2", "p@ss w0rd/with+chars", "AKIAABCDEFGHIJKLMNOP"}
	frame = append(frame[:len(frame)/2:len(frame)/2], append([]byte(`\u0073k-live-0123456789abcdef`), frame[len(frame)/2+26:]...)...)
	for _, c := range []struct {
		name    string
		secrets []string
	}{{"5 secrets, one present", secrets}, {"5 secrets, none present", secrets[1:]}, {"no secrets", nil}} {
		b.Run(c.name, func(b *testing.B) {
			r := NewRedactor(c.secrets)
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				r.Bytes(frame)
			}
		})
	}
}

// benchFrame is a tools/list-like frame of about n bytes: descriptions
// with escapes, URLs with %, base64 blobs.
func benchFrame(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Returns the matching records for query %d.\nSee https://example.test/docs?q=a%%20b&n=%d \u00e9\u2014 \"quoted\"","icon":"%s","inputSchema":{"type":"object"}},`,
			i, i, i, base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("image bytes %d %d", i, i*7))))
	}
	b.WriteString(`{}]}}`)
	return b.Bytes()
}

// TestRedactorBasicAuth: the HTTP Basic value of a client whose secret
// holds characters a form escapes (base64 of "id:" and the escaped
// secret), echoed in any text, and the secret form- and URL-encoded.
func TestRedactorBasicAuth(t *testing.T) {
	for _, secret := range []string{"s3cr3t/with+chars=&more", "pa ss:wörd!*'()~", "plain-secret-value"} {
		r := NewRedactor([]string{secret})
		for _, id := range []string{"mcpprobe-ci", "a", "ab", "client:x"} {
			basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
			for _, text := range []string{
				"Authorization: Basic " + basic,
				`{"echo":"Basic ` + basic + `"}`,
				"client_secret=" + url.QueryEscape(secret) + "&grant_type=client_credentials",
				"path/" + url.PathEscape(secret),
				`{"q":"` + strings.ReplaceAll(url.QueryEscape(secret), "%", `\u0025`) + `"}`,
			} {
				out := r.String(text)
				if !strings.Contains(out, "***") {
					t.Errorf("secret %q id %q: nothing hidden in %q", secret, id, text)
					continue
				}
				// What is left of the base64 run carries at most a few bits
				// at each end: no 4-character run of the secret's own base64.
				if dec, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(out, "Authorization: Basic ")); err == nil && strings.Contains(string(dec), url.QueryEscape(secret)) {
					t.Errorf("secret %q id %q: still decodes: %q", secret, id, out)
				}
			}
		}
	}
}
