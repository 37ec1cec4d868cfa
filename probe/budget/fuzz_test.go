package budget

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// The budget walks the server's schemas (descriptions counted, dropped,
// serialized for each host): whatever they hold, in bounded time.
func FuzzAnalyse(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"type":"string","description":"the query"}}}`,
		`{"properties":{"a":{"description":"x","properties":{"b":{"description":"y"}}}},"items":[{"description":"z"}]}`,
		strings.Repeat(`{"description":"d","properties":{"a":`, 300) + `{"type":"string"}` + strings.Repeat(`}}`, 300),
		`{"description":` + strings.Repeat(`"x`, 1) + `"}`,
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
		if _, err := Analyse(context.Background(), c, hosts.Known(), nil); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > loadfactor.Scale(2*time.Second) {
			t.Fatalf("budget took %v on %.200q", took, schema)
		}
	})
}

// A schema nested 100,000 levels is measured, not walked: seconds, not
// the ten minutes the walk level by level took.
func TestDeepSchemaBounded(t *testing.T) {
	schema := strings.Repeat(`{"description":"d","type":"object","properties":{"a":`, 50000) + `{"type":"string"}` + strings.Repeat(`}}`, 50000)
	tool := []byte(`{"name":"t","description":"d","inputSchema":` + schema + `}`)
	c := &probe.Capture{Tools: probe.List{Asked: true, Items: [][]byte{tool}}}
	start := time.Now()
	if _, err := Analyse(context.Background(), c, hosts.Known(), nil); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > loadfactor.Scale(3*time.Second) {
		t.Errorf("took %v", took)
	}
}
