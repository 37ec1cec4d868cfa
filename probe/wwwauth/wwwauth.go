// Package wwwauth parses WWW-Authenticate challenges (RFC 9110 §11.6.1,
// RFC 6750 §3). The OAuth audit and the OAuth client read a server's 401
// through this one parser, so the two cannot disagree about one server.
// A leaf: it imports only the standard library.
package wwwauth

import (
	"fmt"
	"strings"
)

// The header is outside input: these bound what one parse reads. A
// server's challenge is a few hundred bytes; anything past the bounds is
// left unparsed and said so in the error.
const (
	MaxBytes      = 64 << 10 // over all header lines together
	MaxChallenges = 64
	MaxParams     = 64 // per challenge
)

// Challenge is one parsed challenge (derived: the raw header lines stay
// with the exchange). Scheme and parameter names are lower-cased, since
// both are case-insensitive; a challenge holds a token68 or parameters,
// never both. A parameter given twice keeps its first value (RFC 9110
// says each name occurs once).
type Challenge struct {
	Scheme  string
	Token68 string
	Params  map[string]string
}

// Parse reads every challenge of the WWW-Authenticate header lines given.
// A malformed challenge ends the parse of its line: the challenges before
// it are returned, with an error that says where the line went wrong.
func Parse(lines []string) ([]Challenge, error) {
	var out []Challenge
	var firstErr error
	budget := MaxBytes
	for n, line := range lines {
		if len(line) > budget {
			if firstErr == nil {
				firstErr = fmt.Errorf("WWW-Authenticate is over %d bytes; line %d and later not parsed", MaxBytes, n+1)
			}
			break
		}
		budget -= len(line)
		p := parser{s: line}
		cs, err := p.challenges(MaxChallenges - len(out))
		out = append(out, cs...)
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return out, firstErr
}

// Find is the first challenge of scheme (case-insensitive).
func Find(cs []Challenge, scheme string) (Challenge, bool) {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, scheme) {
			return c, true
		}
	}
	return Challenge{}, false
}

type parser struct {
	s string
	i int
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("WWW-Authenticate %q: byte %d: %s", clip(p.s), p.i, fmt.Sprintf(format, a...))
}

// clip keeps an error message short however long the header.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func (p *parser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// listSep skips OWS and the commas of empty list elements.
func (p *parser) listSep() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *parser) token() string {
	start := p.i
	for p.i < len(p.s) && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *parser) challenges(room int) ([]Challenge, error) {
	var out []Challenge
	for {
		p.listSep()
		if p.i >= len(p.s) {
			return out, nil
		}
		if len(out) >= room {
			return out, p.errorf("more than %d challenges; the rest not parsed", MaxChallenges)
		}
		scheme := p.token()
		if scheme == "" {
			return out, p.errorf("expected an auth-scheme, found %q", p.s[p.i])
		}
		c := Challenge{Scheme: strings.ToLower(scheme)}
		p.ows()
		if t, ok := p.token68(); ok {
			c.Token68 = t
		} else if p.atParam() {
			if err := p.params(&c); err != nil {
				return out, err
			}
		}
		p.ows()
		if p.i < len(p.s) && p.s[p.i] != ',' {
			return out, p.errorf("expected a comma after the %s challenge, found %q", c.Scheme, p.s[p.i])
		}
		out = append(out, c)
	}
}

// token68 reads a token68 when one stands here alone (followed by the end
// or a comma); otherwise it leaves the position as it was.
func (p *parser) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && isToken68(p.s[j]) {
		j++
	}
	if j == p.i {
		return "", false
	}
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	k := j
	for k < len(p.s) && (p.s[k] == ' ' || p.s[k] == '\t') {
		k++
	}
	if k < len(p.s) && p.s[k] != ',' {
		return "", false
	}
	t := p.s[p.i:j]
	p.i = j
	return t, true
}

// atParam says whether an auth-param (token BWS "=") starts here.
func (p *parser) atParam() bool {
	j := p.i
	for j < len(p.s) && isTchar(p.s[j]) {
		j++
	}
	if j == p.i {
		return false
	}
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	return j < len(p.s) && p.s[j] == '='
}

func (p *parser) params(c *Challenge) error {
	c.Params = map[string]string{}
	for n := 0; ; n++ {
		if n >= MaxParams {
			return p.errorf("more than %d parameters in the %s challenge", MaxParams, c.Scheme)
		}
		name := strings.ToLower(p.token())
		p.ows()
		p.i++ // the "=" atParam saw
		p.ows()
		var val string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			v, err := p.quoted()
			if err != nil {
				return err
			}
			val = v
		} else {
			val = p.token()
			if val == "" {
				return p.errorf("no value for auth-param %q", name)
			}
		}
		if _, seen := c.Params[name]; !seen {
			c.Params[name] = val
		}
		p.ows()
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil
		}
		save := p.i
		p.listSep()
		if !p.atParam() {
			// The comma ends this challenge; another begins after it.
			p.i = save
			return nil
		}
	}
}

// quoted reads a quoted-string, unescaping quoted-pairs.
func (p *parser) quoted() (string, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch {
		case ch == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case ch == '"':
			p.i++
			return b.String(), nil
		default:
			b.WriteByte(ch)
			p.i++
		}
	}
	p.i = start
	return "", p.errorf("unterminated quoted-string")
}

// isTchar is RFC 9110's tchar.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isToken68 is a token68 character before its padding.
func isToken68(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}
