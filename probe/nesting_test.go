package probe

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
)

func TestNestingFindings(t *testing.T) {
	deep := `{"name":"deep","inputSchema":` + strings.Repeat(`{"properties":{"a":`, 600) + `{}` + strings.Repeat(`}}`, 600) + `}`
	wide := `{"name":"wide","inputSchema":` + strings.Repeat(`{"properties":{"a":`, 400) + `"` + strings.Repeat("x", 600000) + `"` + strings.Repeat(`}}`, 400) + `}`
	ok := `{"name":"ok","inputSchema":{"type":"object"}}`
	c := &Capture{}
	c.Tools.Items = [][]byte{[]byte(deep), []byte(ok), []byte(wide)}
	p := &prober{c: c}
	p.nestingFindings()
	if len(c.Findings) != 2 || c.Findings[0].Code != findings.DeepNesting || c.Findings[0].Tool != "deep" || c.Findings[1].Tool != "wide" {
		t.Fatalf("%+v", c.Findings)
	}
	if !strings.Contains(c.Findings[0].Message, "1202 levels") || !strings.Contains(c.Findings[1].Message, "more than 256 MiB") {
		t.Errorf("%s / %s", c.Findings[0].Message, c.Findings[1].Message)
	}
	if Walkable([]byte(deep)) || Walkable([]byte(wide)) || !Walkable([]byte(ok)) {
		t.Errorf("Walkable")
	}
}

// One nesting limit: what a server sends (MaxDepth) and what a file a pull
// request controls holds (inputfile.MaxDepth, scanned before parsing).
func TestOneNestingLimit(t *testing.T) {
	if MaxDepth != inputfile.MaxDepth {
		t.Errorf("probe.MaxDepth %d, inputfile.MaxDepth %d: one limit, for the same parsers", MaxDepth, inputfile.MaxDepth)
	}
}
