package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
)

// MinSecretLen is the shortest value hidden by a Redactor: hiding every
// "1" or "on" in a report would wreck it and protect nothing.
const MinSecretLen = 3

// Redactor hides secret values, in their plain form and as they appear
// inside a JSON string, wherever they turn up in output.
type Redactor struct {
	needles [][]byte
}

// NewRedactor hides each of secrets that is at least MinSecretLen long.
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		for _, n := range jsonForms(s) {
			if !seen[n] {
				seen[n] = true
				r.needles = append(r.needles, []byte(n))
			}
		}
	}
	// Longest first, so a secret that contains another is hidden whole.
	sort.Slice(r.needles, func(i, j int) bool { return len(r.needles[i]) > len(r.needles[j]) })
	return r
}

// jsonForms lists the ways a server's JSON encoder may write s inside a
// string: as is, Go's (HTML-safe), JavaScript's, ASCII-only (Python's
// default), each also with "/" escaped (PHP's default).
func jsonForms(s string) []string {
	forms := []string{s, jsonString(s, true), jsonString(s, false), asciiJSON(s)}
	for _, f := range forms[1:] {
		forms = append(forms, strings.ReplaceAll(f, "/", `\/`))
	}
	return forms
}

func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range jsonString(s, false) {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// Bytes returns b with every secret replaced by ***, and whether anything
// was replaced.
func (r *Redactor) Bytes(b []byte) ([]byte, bool) {
	if r == nil || len(r.needles) == 0 {
		return b, false
	}
	changed := false
	for _, n := range r.needles {
		if bytes.Contains(b, n) {
			b = bytes.ReplaceAll(b, n, []byte("***"))
			changed = true
		}
	}
	return b, changed
}

// String is Bytes for strings.
func (r *Redactor) String(s string) string {
	b, _ := r.Bytes([]byte(s))
	return string(b)
}
