//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Tool-call consent, asserted from the server's side: rawserver
// -hostile-annotations lists tools whose hints must not be taken as
// consent (readOnlyHint true with destructiveHint true, readOnlyHint 1,
// "true" and null, a destructiveHint given twice, an openWorldHint that is
// no boolean) next to peek, plainly read-only, and -calls-log writes the
// params of every tools/call it receives. The harmful tools' schemas make
// mcpprobe's arguments a canary ("attacker", "path":"/"): a call that
// arrives shows in the log whatever it carries.
func TestToolCallConsent(t *testing.T) {
	t.Parallel()
	harmful := []string{"wipe", "pay", "drop", "nulled", "twice", "worldly"}
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		calls []string // the tools the server may see called
		text  []string // in the text output
	}{
		{"check", []string{"check", "--timeout", "3s"}, 0, []string{"peek", "mcpprobe_no_such_tool"},
			[]string{"calls: peek (readOnlyHint true)", "wipe (destructiveHint true)", "pay (readOnlyHint is 1, not a JSON boolean)", `drop (readOnlyHint is "true", not a JSON boolean)`, "twice (destructiveHint is given twice)"}},
		{"malformed", []string{"malformed", "--timeout", "3s"}, 0, []string{"peek", "mcpprobe_no_such_tool"},
			[]string{"calls: peek (readOnlyHint true)", "wipe (destructiveHint true)"}},
		{"check no tool calls", []string{"check", "--timeout", "3s", "--no-tool-calls"}, 0, []string{"mcpprobe_no_such_tool"},
			[]string{"does not call: wipe, pay, drop, nulled, twice, worldly, peek (no tool calls allowed (--no-tool-calls))"}},
		{"malformed no tool calls", []string{"malformed", "--timeout", "3s", "--no-tool-calls"}, 0, []string{"mcpprobe_no_such_tool"},
			[]string{"no tool calls allowed"}},
		// naming a tool is the user's consent, whatever its hints
		{"check --call", []string{"check", "--timeout", "3s", "--skip-malformed", "--call", "wipe"}, 0, []string{"wipe"},
			[]string{"calls: wipe (named with --call)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "calls.log")
			r := mcpprobe(t, append(tc.args, "--", bin.raw, "-hostile-annotations", "-calls-log", log)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			b, err := os.ReadFile(log)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			allowed := map[string]bool{}
			for _, c := range tc.calls {
				allowed[c] = true
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if line == "" {
					continue
				}
				name := gjson.Get(line, "name").String()
				if !allowed[name] {
					t.Errorf("the server received a call of %s: %.200s", name, line)
				}
				if name != "wipe" && (strings.Contains(line, "attacker") || strings.Contains(line, `"path":"/"`)) {
					t.Errorf("a canary argument reached the server: %.200s", line)
				}
			}
			for _, s := range tc.text {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("the output lacks %q:\n%s", s, r.stdout)
				}
			}
		})
	}
	// --json says the same, per era, for every listed tool
	v, r := checkJSON(t, "--timeout", "3s", "--skip-malformed", "--", bin.raw, "-hostile-annotations")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	tools := v.Get(`check.eras.#(era=="legacy").tools`)
	if n := len(tools.Array()); n != 7 {
		t.Fatalf("%d tools in eras[legacy].tools, want 7: %s", n, tools.Raw)
	}
	for _, h := range harmful {
		if c := tools.Get(`#(tool=="` + h + `")`); c.Get("called").Bool() || c.Get("why").String() == "" {
			t.Errorf("%s: %s, want called false with a why", h, c.Raw)
		}
	}
	if !tools.Get(`#(tool=="peek").called`).Bool() {
		t.Errorf("peek not called: %s", tools.Raw)
	}
	// the checks that need a call are not run, never failed
	v, _ = checkJSON(t, "--timeout", "3s", "--skip-malformed", "--no-tool-calls", "--", bin.raw, "-results")
	for _, id := range []string{"tools.call-result", "tools.structured-content"} {
		x := v.Get(`check.eras.#(era=="legacy").verdicts.#(id=="` + id + `")`)
		if x.Get("outcome").String() != "not-applicable" || !strings.Contains(x.Get("why").String(), "not run (no tool calls allowed") {
			t.Errorf("%s under --no-tool-calls: %s", id, x.Raw)
		}
	}
	// and in 2026-07-28, whose checks call tools to find input_required
	// and task results, and judge the log level a call sets
	v, _ = checkJSON(t, "--timeout", "3s", "--skip-malformed", "--no-tool-calls", "--era", "modern", "--", bin.raw, "-modern", "-modern-full")
	for _, id := range []string{"tools.call-result", "mrtr.round-trip", "mrtr.tampered-state"} {
		x := v.Get(`check.eras.#(era=="modern").verdicts.#(id=="` + id + `")`)
		if x.Get("outcome").String() != "not-applicable" || !strings.Contains(x.Get("why").String(), "not run (no tool calls allowed") {
			t.Errorf("modern %s under --no-tool-calls: %s", id, x.Raw)
		}
	}
	// the two flags contradict each other: a usage error
	if r := mcpprobe(t, "check", "--no-tool-calls", "--call", "peek", "--", bin.raw, "-hostile-annotations"); r.code != 2 {
		t.Errorf("--no-tool-calls with --call: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if r := mcpprobe(t, "malformed", "--no-tool-calls", "--call", "peek", "--", bin.raw, "-hostile-annotations"); r.code != 2 {
		t.Errorf("malformed --no-tool-calls with --call: exit %d, want 2\n%s", r.code, r.stderr)
	}
}

// A malformed case the server never answers is settled by the ping sent
// right behind it (tools/list in 2026-07-28), not by --timeout: the
// verdict is the one the timeout gave (a warning: a reply is owed, no
// version sets a deadline), and its why says what settled it. The
// timeout is long, so a run that waited it out would show in the test's
// own bound, but the assertion is on the verdict's words, not the clock.
func TestMalformedSettledByPing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"legacy, ping", []string{"-bench-tools", "-unknown-silent"}},
		{"modern, tools/list", []string{"-bench-tools", "-unknown-silent", "-modern"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := malformedRun(t, append([]string{"--timeout", "20s", "--", bin.raw}, tc.flags...)...)
			c := env.Get(`malformed.cases.#(case=="unknown method")`)
			if c.Get("channel").String() != "no_answer" || c.Get("verdict").String() != "warn" {
				t.Fatalf("unknown method: %s, want no_answer and warn", c.Raw)
			}
			if why := c.Get("why").String(); !strings.Contains(why, "no reply before the answer to the ping sent right behind it, plus 200ms") {
				t.Errorf("why %q does not say the ping settled it", why)
			}
			// the cases the server answers are judged as before
			if u := env.Get(`malformed.cases.#(case=="unknown tool")`); u.Get("channel").String() == "no_answer" {
				t.Errorf("unknown tool: %s", u.Raw)
			}
		})
	}
}
