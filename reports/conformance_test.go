package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/check"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

func conformanceResult() *check.Result {
	ping, _ := check.Lookup(check.IDPing)
	tools, _ := check.Lookup(check.IDToolsList)
	return &check.Result{Target: "./s", Transport: "stdio", Eras: []check.EraResult{
		{Era: check.Legacy, Served: true, Protocol: "2025-11-25", Verdicts: []check.Verdict{
			{ID: check.IDPing, Era: check.Legacy, Clause: ping.Clauses[check.Legacy], Outcome: check.Fail, Sent: "ping",
				Got: "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"pong\":\"\x1b[31mred\"}}", Why: "the result is not empty: it has pong"},
			{ID: check.IDToolsList, Era: check.Legacy, Clause: tools.Clauses[check.Legacy], Outcome: check.Pass, Sent: "tools/list", Why: "declared and served"},
			{ID: check.IDSetLevel, Era: check.Legacy, Outcome: check.NotApplicable, Why: "the server does not declare the logging capability"},
		}},
		{Era: check.Modern, Why: "server/discover: not supported (error -32601: Method not found); fell back to initialize"},
	}}
}

func TestConformanceText(t *testing.T) {
	for _, tc := range []struct {
		name        string
		verbose     bool
		want, never []string
	}{
		{"default", false,
			[]string{"3 checks: 1 pass, 1 fail, 0 warn, 0 observed, 0 inconclusive, 1 not-applicable.\n", "modern: not served (server/discover: not supported", "ping.empty-result", "✗ fail · MUST",
				`\x1b[31mred`, "basic/utilities/ping#behavior-requirements", "MUST respond promptly with an empty response"},
			[]string{"tools.list-served", "\x1b[31m", "logging.set-level-served"}},
		{"verbose", true, []string{"tools.list-served", "✓ pass · no keyword", "logging.set-level-served", "– not-applicable", "does not declare the logging capability"}, []string{"\x1b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			Conformance(&terminal.Screen{W: &b, Verbose: tc.verbose}, terminal.Terminal, conformanceResult())
			out := b.String()
			if !strings.HasPrefix(out, "3 checks:") {
				t.Errorf("the answer does not come first:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(out, n) {
					t.Errorf("%q in\n%s", n, out)
				}
			}
		})
	}
}

func TestConformanceBaseline(t *testing.T) {
	r := conformanceResult()
	b, err := check.ParseBaseline([]byte(check.IDPing + " # known\n" + check.IDToolsList + " # was broken\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.Apply(b)
	var out bytes.Buffer
	Conformance(&out, terminal.Terminal, r)
	for _, w := range []string{"✗ fail (known) · MUST", "known failure (baseline): known", "no new failure", "listed and passing now (remove them from the file): tools.list-served"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("no %q in\n%s", w, out.String())
		}
	}
	if r.NewFailures() != 0 {
		t.Errorf("new failures %d", r.NewFailures())
	}
}

func TestConformanceJSONValidates(t *testing.T) {
	r := conformanceResult()
	out := jsonout.Envelope{Version: "dev", Command: "check", Target: "./s"}.JSON(ConformanceJSON(r))
	if err := jsonout.ValidateResult(out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	bad := jsonout.Envelope{Version: "dev", Command: "check", Target: "./s"}.JSON([]byte(strings.Replace(string(ConformanceJSON(r)), `"outcome":"fail"`, `"outcome":"failed"`, 1)))
	if jsonout.ValidateResult(bad) == nil {
		t.Error("an unknown outcome validated")
	}
	if jsonout.ValidateResult(jsonout.Envelope{Version: "dev", Command: "check", Target: "./s"}.JSON([]byte(`{"eras":[]}`))) == nil {
		t.Error("a check section without its members validated")
	}
}

func TestConformanceMarkdown(t *testing.T) {
	var b bytes.Buffer
	Conformance(&b, terminal.Markdown, conformanceResult())
	out := b.String()
	for _, w := range []string{"# Conformance\n\n3 checks:", "| check ", "tools.list-served"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape in markdown:\n%s", out)
	}
}

// check --list has every id once, with its eras and, for the registry's,
// a clause URL of each era it judges.
func TestCheckList(t *testing.T) {
	var b bytes.Buffer
	CheckList(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	ids := check.IDs()
	if len(lines) != len(ids) {
		t.Fatalf("%d lines, %d ids", len(lines), len(ids))
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 || f[0] != ids[i] {
			t.Errorf("line %d %q, want id %s and three fields", i, l, ids[i])
			continue
		}
		if c, ok := check.Lookup(f[0]); ok {
			for _, e := range c.Eras {
				if !strings.Contains(f[2], c.Clauses[e].URL) {
					t.Errorf("%s: no clause URL for %s in %q", f[0], e, f[2])
				}
			}
		}
	}
}
