package lint

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/probe"
)

// The schema walk takes the server's schema: whatever it holds (cycles of
// references, depth, width), lint ends in bounded time without a panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#"},"b":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`,
		`{"type":"object","properties":{"api_key":{"type":"string","maximum":9007199254740991}}}`,
		`{"allOf":[{"$ref":"#"}],"anyOf":[{"properties":{"x":{"items":{"$ref":"#"}}}}]}`,
		strings.Repeat(`{"properties":{"a":`, 200) + `{}` + strings.Repeat(`}}`, 200),
		`{"$ref":"#/$defs/a~1b/%25"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		if !json.Valid(schema) {
			return
		}
		tool := []byte(`{"name":"t","description":"d","inputSchema":` + string(schema) + `}`)
		c := &probe.Capture{Tools: probe.List{Asked: true, Items: [][]byte{tool}}}
		start := time.Now()
		_ = Check(c)
		if took := time.Since(start); took > loadfactor.Scale(2*time.Second) {
			t.Fatalf("lint took %v on %.200q", took, schema)
		}
	})
}

// A schema too deep to walk in bounded time is left out, not walked.
func TestDeepSchemaLeftOut(t *testing.T) {
	schema := strings.Repeat(`{"type":"object","properties":{"a":`, 50000) + `{}` + strings.Repeat(`}}`, 50000)
	tool := []byte(`{"name":"t","description":"d","inputSchema":` + schema + `}`)
	c := &probe.Capture{Tools: probe.List{Asked: true, Items: [][]byte{tool}}}
	start := time.Now()
	_ = Check(c)
	if took := time.Since(start); took > loadfactor.Scale(2*time.Second) {
		t.Errorf("lint of a schema nested 100,000 levels took %v", took)
	}
}
