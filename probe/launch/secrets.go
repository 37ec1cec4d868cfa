package launch

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
	"sync"
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

// EnvSecrets are the values to hide for one environment variable, by the
// policy the README's Secrets section describes: the whole value when its
// name says it is a credential (SecretName), when it has a known token's
// shape (TokenShape), or when it is not plainly something else
// (plainValue: short, words, a number or date, a path); and, whatever the
// name, a URL's password and query values (DATABASE_URL=…). An env value
// is not split on spaces: "production debug" must not make every "debug"
// in a report a secret.
func EnvSecrets(name, value string) []string {
	if SecretName(name) || TokenShape(value) || !plainValue(value) {
		return SecretValue(value)
	}
	return unique(urlSecrets(value))
}

// InheritedSecrets are the values to hide of an environment a server may
// inherit (mcpprobe's own, KEY=VALUE): those whose name or shape says they
// are credentials. Not the rest: a value nobody passed on purpose is not
// taken for a secret merely for not being plain, so that whatever of it
// shows up in output (a host name, a build id) stays legible.
func InheritedSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && (SecretName(k) || TokenShape(v)) {
			out = append(out, SecretValue(v)...)
		}
	}
	return unique(out)
}

// SecretValue are the values to hide for a value known to be secret
// (--secret-env NAME): all of it, and a URL's password and query values.
func SecretValue(value string) []string {
	return unique(append([]string{value}, urlSecrets(value)...))
}

// secretWords are the words that make a name (an environment variable's,
// a flag's, a header's) a credential's, found anywhere in it, case aside.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE", "SESSION", "PRIVATE", "KEY", "AUTH"}

// secretParts are short words that do so only as a whole part of the name
// (DB_PASS, dbPwd, SIM_PIN; not COMPASS, SPIN).
var secretParts = map[string]bool{"PASS": true, "PWD": true, "PW": true, "PIN": true}

// SecretName reports whether a name says its value is a credential:
// it holds one of secretWords, or one of secretParts as a part (split at
// _, -, . and lower-to-upper case changes). PWD and OLDPWD are the shell's
// working directory, and AUTHOR is no AUTH.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	if up == "PWD" || up == "OLDPWD" {
		return false
	}
	up = strings.ReplaceAll(up, "AUTHORI", "AUTHI") // AUTHORIZATION keeps its AUTH
	up = strings.ReplaceAll(up, "AUTHOR", "")
	up = strings.ReplaceAll(up, "KEYBOARD", "")
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	for _, p := range nameParts(name) {
		if secretParts[strings.ToUpper(p)] {
			return true
		}
	}
	return false
}

// nameParts splits a name at every character that is not a letter or a
// digit, and where a lower-case letter is followed by an upper-case one.
func nameParts(name string) []string {
	var parts []string
	start := 0
	for i := 0; i <= len(name); i++ {
		split := i == len(name) || !isAlnum(name[i])
		camel := i > 0 && i < len(name) && name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z'
		if split || camel {
			if i > start {
				parts = append(parts, name[start:i])
			}
			start = i
			if split {
				start = i + 1
			}
		}
	}
	return parts
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tokenForms are the formats of well-known credentials, which are secret
// under any name and as any argument: each a literal prefix, then the
// pattern of the rest.
var tokenForms = []struct{ prefix, rest string }{
	{"sk-", `[A-Za-z0-9_-]{8,}`},                                     // OpenAI, Anthropic (sk-ant-…), DeepSeek
	{"sk_live_", `[A-Za-z0-9]{8,}`}, {"sk_test_", `[A-Za-z0-9]{8,}`}, // Stripe secret keys
	{"rk_live_", `[A-Za-z0-9]{8,}`}, {"rk_test_", `[A-Za-z0-9]{8,}`}, // Stripe restricted keys
	{"ghp_", `[A-Za-z0-9]{20,}`}, {"gho_", `[A-Za-z0-9]{20,}`}, {"ghu_", `[A-Za-z0-9]{20,}`}, // GitHub tokens
	{"ghs_", `[A-Za-z0-9]{20,}`}, {"ghr_", `[A-Za-z0-9]{20,}`},
	{"github_pat_", `[A-Za-z0-9_]{20,}`},                                                        // GitHub fine-grained tokens
	{"glpat-", `[A-Za-z0-9_-]{16,}`},                                                            // GitLab personal access tokens
	{"xoxa-", `[A-Za-z0-9-]{8,}`}, {"xoxb-", `[A-Za-z0-9-]{8,}`}, {"xoxp-", `[A-Za-z0-9-]{8,}`}, // Slack tokens
	{"xoxo-", `[A-Za-z0-9-]{8,}`}, {"xoxs-", `[A-Za-z0-9-]{8,}`}, {"xoxr-", `[A-Za-z0-9-]{8,}`},
	{"xapp-", `[A-Za-z0-9-]{8,}`},                      // Slack app tokens
	{"AKIA", `[A-Z0-9]{16}`}, {"ASIA", `[A-Z0-9]{16}`}, // AWS access key ids
	{"AIza", `[A-Za-z0-9_-]{35}`},                                      // Google API keys
	{"hf_", `[A-Za-z0-9]{20,}`},                                        // Hugging Face
	{"npm_", `[A-Za-z0-9]{20,}`},                                       // npm
	{"pypi-", `[A-Za-z0-9_-]{16,}`},                                    // PyPI
	{"eyJ", `[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`}, // a JWT
}

// tokenShapes is tokenForms as one expression, compiled for the first
// value that starts as one of them: most runs see none, and compiling it
// cost every run that launches a server (the environment is read for
// secrets) a few percent of a small wire's CPU.
var tokenShapes = sync.OnceValue(func() *regexp.Regexp {
	alts := make([]string, len(tokenForms))
	for i, f := range tokenForms {
		alts[i] = regexp.QuoteMeta(f.prefix) + f.rest
	}
	return regexp.MustCompile(`^(?:` + strings.Join(alts, "|") + `)$`)
})

// TokenShape reports whether v has the shape of a well-known credential.
func TokenShape(v string) bool {
	for _, f := range tokenForms {
		if strings.HasPrefix(v, f.prefix) {
			return tokenShapes().MatchString(v)
		}
	}
	return false
}

// plainValue reports whether v, under a name that says nothing of
// secrets, is plainly not one: shorter than 8 bytes; a number, a date or
// a version (digits and . - _ : + / and spaces); a file path (starting /,
// ~, ./, ../ or a drive letter); or words — letters in one case or
// Capitalised, each maybe followed by digits, or digits alone, none
// longer than 24 — between separators (- _ . , : / @ and spaces), as in
// "production", "rich-metadata", "us-east-1", "en_US.UTF-8",
// "https://api.example.com/v1". Anything else (abc123xyz789, a UUID, a
// random mixed-case run) is taken for a secret.
func plainValue(v string) bool {
	if len(v) < 8 {
		return true
	}
	if strings.Trim(v, "0123456789.-_:+/ ") == "" {
		return true
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		(len(v) > 2 && (v[0]|0x20) >= 'a' && (v[0]|0x20) <= 'z' && v[1] == ':' && (v[2] == '\\' || v[2] == '/')) {
		return true
	}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("-_.,:/@ ", r) }) {
		if len(w) > 24 || !plainWord().MatchString(w) {
			return false
		}
	}
	return true
}

var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:(?:[A-Za-z][a-z]*|[A-Z]+)[0-9]*|[0-9]+)$`) })

// credentialFlag reports whether a flag's name (without its dashes) says
// its value is a credential: --token, --api-key, --password, --secret,
// --client-secret, --auth-token… but not --no-auth, which takes none.
// -p is not one: it is a port as often as a password.
func credentialFlag(name string) bool {
	return SecretName(name) && !strings.HasPrefix(strings.ToLower(name), "no-")
}

// credentialArgs says, for each argument, where a credential in it
// starts (0: all of it), or -1 for none:
//   - the value of a credential flag, as --token=VALUE or --token VALUE
//     (the next argument, unless it starts with -);
//   - the value of NAME=VALUE where NAME is a credential's name
//     (env API_KEY=…, docker -e TOKEN=…);
//   - the value of a header given as an argument, "Authorization: Bearer
//     …" (mcp-remote --header), where the header's name is a credential's;
//   - an argument with a known token's shape, alone or as a flag's value.
func credentialArgs(args []string) []int {
	at := make([]int, len(args))
	for i := range at {
		at[i] = -1
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flag, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
			switch {
			case eq && (credentialFlag(flag) || TokenShape(val)):
				at[i] = len(a) - len(val)
			case !eq && credentialFlag(flag) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
				at[i+1] = 0
				i++
			}
			continue
		}
		if name, val, ok := strings.Cut(a, ":"); ok && headerName().MatchString(name) && SecretName(name) && strings.TrimSpace(val) != "" {
			at[i] = len(a) - len(strings.TrimLeft(val, " "))
			continue
		}
		if name, val, ok := strings.Cut(a, "="); ok && envName().MatchString(name) && (SecretName(name) || TokenShape(val)) {
			at[i] = len(name) + 1
			continue
		}
		if TokenShape(a) {
			at[i] = 0
		}
	}
	return at
}

var (
	headerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9-]+$`) })
	envName    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

// ArgSecrets are the values to hide among a command's arguments: each
// credential credentialArgs finds (a header's with HeaderSecrets' parts),
// and any URL's password and query values.
func ArgSecrets(args []string) []string {
	var out []string
	for i, at := range credentialArgs(args) {
		a := args[i]
		if at >= 0 {
			if name, val, ok := strings.Cut(a, ":"); ok && at > 0 && headerName().MatchString(name) && !strings.HasPrefix(a, "-") {
				out = append(out, HeaderSecrets(name, val)...)
			} else {
				out = append(out, SecretValue(a[at:])...)
			}
		}
		out = append(out, urlSecrets(a)...)
	}
	return unique(out)
}

// MaskArgs is args with every credential credentialArgs finds shown as
// ***: what Display prints.
func MaskArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i, at := range credentialArgs(args) {
		if at >= 0 {
			out[i] = args[i][:at] + "***"
		}
	}
	return out
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
