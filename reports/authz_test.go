package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// What a server sent is escaped in every style: an ANSI sequence or a
// bidi override in a challenge cannot reach the terminal or the markdown.
func TestAuthzEscapesWhatCameBack(t *testing.T) {
	r := &authz.Result{Target: "https://host/mcp", Rows: []authz.Row{
		{ID: "A2", Check: "challenge", Clause: authz.Clause{Version: "2025-11-25+", Section: "s", URL: "https://x", Keyword: authz.Must},
			Sent: "POST", Got: "401 · WWW-Authenticate: Bearer realm=\"\x1b[31mred\u202e\"", Outcome: authz.Fail, Why: "why \x1b]8;;x\a"},
		{ID: "A1", Check: "401", Clause: authz.Clause{Version: "r", Section: "s", Keyword: authz.Must}, Outcome: authz.Pass},
	}}
	for _, st := range []terminal.Style{terminal.Terminal, terminal.Markdown} {
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

// The report's Authorization section: a table of every row when the
// endpoint answered 401, a line per row that is neither a pass nor not
// run (server text inert), the ids not run; the not-protected line when
// the token-less POST was served; and the "not audited" line otherwise.
func TestAuthzSection(t *testing.T) {
	a1 := func(o string) authz.Row {
		return authz.Row{ID: "A1", Check: "401 without a token", Clause: authz.Clause{Version: "2025-11-25+", Section: "Error Handling", Keyword: authz.Must}, Outcome: o, Why: "served without a token"}
	}
	protected := &authz.Result{Rows: []authz.Row{a1(authz.Pass),
		{ID: "A5", Check: "resource", Clause: authz.Clause{Version: "RFC 9728", Section: "§3.3", Keyword: authz.Must}, Outcome: authz.Fail, Why: "want <b>x</b> \x1b[2J"},
		{ID: "A19", Check: "step-up", Clause: authz.Clause{Version: "2025-11-25+", Section: "s", Keyword: authz.Should}, Outcome: authz.NotRun, Why: "pass --narrow-token-env VAR"},
	}, Exchanges: []authz.Exchange{{Probe: "A1", Status: 401}}}
	for _, tc := range []struct {
		name   string
		r      *authz.Result
		want   []string
		absent []string
	}{
		{"protected", protected, []string{"| probe | check | clause | level | outcome |", "| A5 | resource | RFC 9728 · §3.3 | MUST | ✗ fail |", "- ✗ A5: want", "Not run: A19 ("},
			[]string{"\x1b", "<b>", "- – A19", "- ✓ A1"}},
		{"served", &authz.Result{Rows: []authz.Row{a1(authz.Observed)}, Exchanges: []authz.Exchange{{Probe: "A1", Status: 200}}},
			[]string{"Not protected: `POST initialize` without a token was answered 200, not 401"}, []string{"| probe |"}},
		{"403", &authz.Result{Rows: []authz.Row{a1(authz.Fail)}, Exchanges: []authz.Exchange{{Probe: "A1", Status: 403}}},
			[]string{"Not audited past its first probe (A1)"}, []string{"| probe |", "Not protected"}},
	} {
		var b bytes.Buffer
		AuthzSection(&b, tc.r)
		out := b.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, out)
			}
		}
		for _, w := range tc.absent {
			if strings.Contains(out, w) {
				t.Errorf("%s: has %q:\n%s", tc.name, w, out)
			}
		}
		var again bytes.Buffer
		AuthzSection(&again, tc.r)
		if again.String() != out {
			t.Errorf("%s: two renderings differ", tc.name)
		}
	}
}
