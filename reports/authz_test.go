package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/authz"
)

// What a server sent is escaped in every style: an ANSI sequence or a
// bidi override in a challenge cannot reach the terminal or the markdown.
func TestAuthzEscapesWhatCameBack(t *testing.T) {
	r := &authz.Result{Target: "https://host/mcp", Rows: []authz.Row{
		{ID: "A2", Check: "challenge", Clause: authz.Clause{Rev: "2025-11-25+", Section: "s", URL: "https://x", Level: authz.Must},
			Sent: "POST", Got: "401 · WWW-Authenticate: Bearer realm=\"\x1b[31mred\u202e\"", Outcome: authz.Fail, Why: "why \x1b]8;;x\a"},
		{ID: "A1", Check: "401", Clause: authz.Clause{Rev: "r", Section: "s", Level: authz.Must}, Outcome: authz.Pass},
	}}
	for _, st := range []Style{Terminal, Markdown} {
		var b bytes.Buffer
		Authz(&b, st, r)
		out := b.String()
		if strings.ContainsAny(out, "\x1b\a\u202e") {
			t.Errorf("style %v: raw control characters in the output:\n%q", st, out)
		}
		for _, want := range []string{"✗ A2", "1 fail, 0 warn, 1 pass", "https://x"} {
			if !strings.Contains(out, want) {
				t.Errorf("style %v: output lacks %q:\n%s", st, want, out)
			}
		}
		if strings.Contains(out, "✓ A1:") {
			t.Errorf("style %v: a pass is explained under the table; only the rest are", st)
		}
	}
}
