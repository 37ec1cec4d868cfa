package launch

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// HeaderSecrets are the values to hide for one header: the whole value,
// and each credential inside it that a server could echo on its own. A
// server that quotes the bare token of "Bearer tok" back (in an
// error_description, a log line, a tool description) must not get it
// printed because only "Bearer tok" was registered.
//   - the token after an auth scheme (Authorization and
//     Proxy-Authorization whatever the scheme; any header that starts
//     with a known scheme such as Bearer, Basic or Token);
//   - for Basic, the decoded user:password and the password;
//   - each value of a Cookie (or Set-Cookie-like) header;
//   - a URL's password and query values, where the value is a URL.
func HeaderSecrets(name, value string) []string {
	value = strings.TrimSpace(value)
	out := []string{value}
	lname := strings.ToLower(strings.TrimSpace(name))
	if scheme, token, ok := authScheme(value); ok && (lname == "authorization" || lname == "proxy-authorization" || knownScheme(scheme)) {
		out = append(out, token)
		if strings.EqualFold(scheme, "basic") {
			if dec, err := base64.StdEncoding.DecodeString(token); err == nil {
				out = append(out, string(dec))
				if _, pw, ok := strings.Cut(string(dec), ":"); ok {
					out = append(out, pw)
				}
			}
		}
	}
	if lname == "cookie" || strings.Contains(lname, "cookie") {
		for _, part := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(part, "="); ok {
				out = append(out, strings.Trim(strings.TrimSpace(v), `"`))
			}
		}
	}
	out = append(out, urlSecrets(value)...)
	return unique(out)
}

// EnvSecrets are the values to hide for one environment value: the whole
// value, and, where it is a URL (DATABASE_URL=…), its password and query
// values. An env value is not split on spaces: "production debug" must
// not make every "debug" in a report a secret.
func EnvSecrets(value string) []string {
	return unique(append([]string{value}, urlSecrets(value)...))
}

// authScheme splits "Scheme token" into its two parts.
func authScheme(v string) (scheme, token string, ok bool) {
	scheme, token, ok = strings.Cut(v, " ")
	if !ok || scheme == "" {
		return "", "", false
	}
	for _, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return "", "", false
		}
	}
	token = strings.TrimSpace(token)
	return scheme, token, token != ""
}

// knownScheme: auth schemes seen in headers other than Authorization
// (X-Api-Key: Token …, X-Auth: Bearer …).
func knownScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "digest", "apikey", "api-key", "key", "jwt", "sso-key", "dpop", "mac", "hmac":
		return true
	}
	return false
}

// urlSecrets are the parts of a URL that carry credentials: query values
// (api_key=…) and a userinfo password, each as decoded and as written
// (a trace's http.url shows the percent-encoded form).
func urlSecrets(raw string) []string {
	if !strings.Contains(raw, "://") {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if _, v, ok := strings.Cut(kv, "="); ok {
			out = append(out, v)
		}
	}
	if p, ok := u.User.Password(); ok {
		out = append(out, p, url.PathEscape(p), url.QueryEscape(p))
		// An HTTP client sends the userinfo as Basic credentials: a
		// server echoing its Authorization header echoes this.
		userpass := u.User.Username() + ":" + p
		out = append(out, userpass, base64.StdEncoding.EncodeToString([]byte(userpass)))
		if i := strings.Index(raw, "://"); i >= 0 {
			if at := strings.LastIndex(strings.SplitN(raw[i+3:], "/", 2)[0], "@"); at >= 0 {
				if _, rawPw, ok := strings.Cut(raw[i+3:i+3+at], ":"); ok {
					out = append(out, rawPw)
				}
			}
		}
	}
	return unique(out)
}
