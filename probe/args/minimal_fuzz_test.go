package args

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// MinimalArgs takes the server's schema: whatever it holds, the arguments
// are one JSON object, bounded in size, built in bounded time.
func FuzzMinimalArgs(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"type":"string","pattern":"^[a-z]+$"}},"required":["q"]}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":1e999}},"required":["n"]}`,
		`{"type":"object","properties":{"n":{"type":"number","multipleOf":1e-320,"minimum":5}},"required":["n"]}`,
		`{"type":"object","properties":{"s":{"type":"string","pattern":"((\\b)*(\\b)*)*x"}},"required":["s"]}`,
		`{"type":"object","properties":{"a":{"type":"array","minItems":16,"items":{"$ref":"#"}}},"required":["a"]}`,
		`{"type":"object","properties":{"c":{"const":"` + strings.Repeat("x", 100000) + `"}},"required":["c","c","c"]}`,
		`{"$ref":"#","type":"object"}`,
		`{"type":"object","required":[` + strings.Repeat(`"k",`, 1000) + `"k"]}`,
		`{"type":"object","properties":{"s":{"type":"string","maxLength":-1,"minLength":99999999999}},"required":["s"]}`,
		`{"type":"object","properties":{"i":{"type":"integer","minimum":-1e300,"maximum":-1e300}},"required":["i"]}`,
		`{"type":"string"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		if !json.Valid(schema) {
			return // a schema comes from a message, which is JSON
		}
		start := time.Now()
		got := MinimalArgs(schema)
		if took := time.Since(start); took > loadfactor.Scale(2*time.Second) {
			t.Fatalf("MinimalArgs took %v on %q", took, schema)
		}
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("MinimalArgs(%q) = %q, not a JSON object: %v", schema, got, err)
		}
		if len(got) > maxArgBytes+2*maxArgString {
			t.Fatalf("MinimalArgs(%.200q) built %d bytes", schema, len(got))
		}
	})
}

// fromPattern expands a server's pattern: in bounded time, whatever its
// nesting of repetitions of what may match nothing.
func FuzzFromPattern(f *testing.F) {
	for _, p := range []string{`^[a-z]{3}$`, `((\b)*(\b)*)*x`, `(a|b)+c?`, `((((\B)*)*)*)*`, `(?:(?:^)*(?:$)*)*`, `x{1000}`} {
		f.Add(p, 5)
	}
	f.Fuzz(func(t *testing.T, p string, minLen int) {
		minLen = min(max(minLen, 1), maxArgString)
		start := time.Now()
		v, ok := fromPattern(p, minLen, 0)
		if took := time.Since(start); took > loadfactor.Scale(2*time.Second) {
			t.Fatalf("fromPattern(%q) took %v", p, took)
		}
		if ok && len(v) > maxArgString+8 {
			t.Fatalf("fromPattern(%q) = %d bytes", p, len(v))
		}
	})
}

// Work is bounded by the schema's size, not by what its references
// multiply: a megabyte schema whose items refer to the root, with the
// reference after the padding, is read a bounded number of times.
func TestMinimalArgsReferencesBounded(t *testing.T) {
	pad := `"x-pad":"` + strings.Repeat("p", 1<<20) + `"`
	schema := `{"type":"object",` + pad + `,"properties":{"a":{"type":"array","minItems":16,"items":{` + pad + `,"$ref":"#"}}},"required":["a"]}`
	start := time.Now()
	got := MinimalArgs([]byte(schema))
	if took := time.Since(start); took > loadfactor.Scale(2*time.Second) {
		t.Errorf("took %v", took)
	}
	if !json.Valid(got) {
		t.Errorf("not JSON: %.200s", got)
	}
}
