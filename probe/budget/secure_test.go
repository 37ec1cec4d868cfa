package budget

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

func TestSecureFindings(t *testing.T) {
	secure := `{"name":"lookup","inputSchema":{"type":"object"},"secureInputSchema":{"type":"object","properties":{"tenant":{}}}}`
	plain := `{"name":"plain","inputSchema":{"type":"object"}}`
	hidden := &hosts.Feature{Rule: "not_delivered", Source: "src-a", Date: "2026-12"}
	shown := &hosts.Feature{Rule: "delivered", Source: "src-b", Date: "2026-11"}
	cases := []struct {
		name  string
		hs    []hosts.Host
		sev   findings.Severity
		has   []string
		count int
	}{
		{"unknown everywhere", []hosts.Host{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "all", Name: "all"}}, findings.Info,
			[]string{"`lookup`", "§3.5", "unknown for 2 hosts (no profile sources it): A, B"}, 1},
		{"sourced as kept", []hosts.Host{{ID: "a", Name: "A", SecureInputSchema: hidden}, {ID: "b", Name: "B"}}, findings.Info,
			[]string{"kept from the model by A (src-a, 2026-12)", "unknown for 1 hosts"}, 1},
		{"sourced as shown", []hosts.Host{{ID: "a", Name: "A", SecureInputSchema: shown}}, findings.Warning,
			[]string{"shown to the model by A (src-b, 2026-11)"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cp := &probe.Capture{}
			cp.Tools.Items = [][]byte{[]byte(plain), []byte(secure)}
			got := SecureFindings(cp, c.hs)
			if len(got) != c.count {
				t.Fatalf("%d findings: %v", len(got), got)
			}
			f := got[0]
			if f.Code != findings.SecureSchemaDelivery || f.Severity != c.sev || f.Tool != "lookup" {
				t.Errorf("got %s %s %q", f.Severity, f.Code, f.Tool)
			}
			for _, h := range c.has {
				if !strings.Contains(f.Message, h) {
					t.Errorf("message %q lacks %q", f.Message, h)
				}
			}
		})
	}
	if got := SecureFindings(&probe.Capture{}, []hosts.Host{{ID: "a"}}); len(got) != 0 {
		t.Errorf("no tools: %v", got)
	}
}
