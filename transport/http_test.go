package transport

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestHeaderValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"file:///tmp/a b", "file:///tmp/a b"},
		{" padded", "=?base64?IHBhZGRlZA==?="},
		{"café", "=?base64?Y2Fmw6k=?="},
		{"a\nb", "=?base64?YQpi?="},
	}
	for _, tc := range tests {
		if got := headerValue(tc.in); got != tc.want {
			t.Errorf("headerValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShortID(t *testing.T) {
	tests := []struct{ in, want string }{{"", ""}, {"abc", "…"}, {"57U2LTVWWUKL4476", "57U2…"}}
	for _, tc := range tests {
		if got := ShortID(tc.in); got != tc.want {
			t.Errorf("ShortID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestConnErrorHints(t *testing.T) {
	c, err := NewHTTP(HTTPOptions{URL: "http://example.test/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		err  error
		hint string
	}{
		{&net.DNSError{Err: "no such host", Name: "example.test", IsNotFound: true}, "does not resolve"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}, "nothing listens there"},
		{errors.New("net/http: timeout awaiting response headers"), "no response headers within"},
		{errors.New("tls: first record does not look like a TLS handshake"), "TLS handshake failed"},
	}
	for _, tc := range tests {
		got := c.connError(tc.err).Error()
		if !strings.Contains(got, tc.hint) {
			t.Errorf("connError(%v) = %q, want a hint containing %q", tc.err, got, tc.hint)
		}
	}
}

func TestCheckRedirect(t *testing.T) {
	c, _ := NewHTTP(HTTPOptions{URL: "https://mcp.example.test/mcp"})
	mustURL := func(s string) *url.URL { u, _ := url.Parse(s); return u }
	tests := []struct {
		to string
		ok bool
	}{
		{"https://mcp.example.test/v2/mcp", true},
		{"https://evil.example.test/mcp", false},
		{"http://mcp.example.test/mcp", false}, // a downgrade is another origin
		{"https://mcp.example.test:8443/mcp", false},
	}
	for _, tc := range tests {
		req := &httpRequestStub{u: mustURL(tc.to)}
		err := c.checkRedirect(req.request(), nil)
		if (err == nil) != tc.ok {
			t.Errorf("redirect to %s: err %v, want ok=%v", tc.to, err, tc.ok)
		}
	}
}

func TestNewHTTPRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"ftp://x/y", "http://", "not a url", "/relative"} {
		if _, err := NewHTTP(HTTPOptions{URL: u}); err == nil {
			t.Errorf("NewHTTP(%q) accepted", u)
		}
	}
}

type httpRequestStub struct{ u *url.URL }

func (s *httpRequestStub) request() *http.Request { return &http.Request{URL: s.u} }

// An error body is quoted on one line: a web page by its title and size,
// anything else with its whitespace folded, cut on a character.
func TestExcerptBytes(t *testing.T) {
	page := "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head>\n<title>Error response</title>\n</head>\n<body>\n<h1>Error</h1>\n</body>\n</html>\n"
	for _, tc := range []struct {
		name, body string
		n          int
		want       string
	}{
		{"html page", page, 300, `an HTML page of 115 bytes titled "Error response"`},
		{"html without a title", "<html><body>gone</body></html>", 300, "an HTML page of 30 bytes"},
		{"lines folded", "  not\n\n  found\t here \n", 300, "not found here"},
		{"cut on a character", "aé", 2, "a…"},
		{"short", "Not Found", 300, "Not Found"},
		{"json kept", `{"error":"nope"}`, 300, `{"error":"nope"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerptBytes([]byte(tc.body), tc.n); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
