package transport

import (
	"bytes"
	"encoding/json"
	"sort"
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
		enc, _ := json.Marshal(s)
		for _, n := range []string{s, string(enc[1 : len(enc)-1])} {
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
