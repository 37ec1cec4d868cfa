//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

// envelope checks that out is one --json object of command that validates
// against reports/jsonout/result.schema.json, and returns it.
func envelope(t *testing.T, command, out string) gjson.Result {
	t.Helper()
	if err := jsonout.ValidateResult([]byte(out)); err != nil {
		t.Fatalf("%s --json does not validate against the schema: %v\n%.600s", command, err, out)
	}
	v := gjson.Parse(out)
	if got := v.Get("command").String(); got != command {
		t.Fatalf("command = %q, want %q", got, command)
	}
	return v
}

// section is the command's own section of its --json envelope.
func section(t *testing.T, command, out string) gjson.Result {
	t.Helper()
	return envelope(t, command, out).Get(command)
}

// Every --json of wire, budget, diff, snapshot and report validates
// against the schema, on a clean server, one with findings, and the
// partial output of a run that could not finish.
func TestJSONValidatesAgainstSchema(t *testing.T) {
	t.Parallel()
	ref, _ := filepath.Abs("../../fixtures/goodserver/reference.anthropic.json")
	dir := t.TempDir()
	lock := filepath.Join(dir, "lock.json")
	if r := mcpprobe(t, "snapshot", "-o", lock, bin.good); r.code != 0 {
		t.Fatalf("snapshot: %s", r.stderr)
	}
	noisy := []string{"--", bin.raw, "-banner", "-budget", "-pages", "2"}
	tests := []struct {
		name string
		args []string
		code int
		// what the section must hold, as gjson paths that exist
		has []string
	}{
		{"wire", []string{"wire", bin.good}, 0, []string{"wire.tools.0.name", "wire.timings.exit_ns"}},
		{"wire with findings", append([]string{"wire"}, noisy...), 0, []string{"wire.stdout_noise.0", "findings.0.code"}},
		{"wire that could not finish", []string{"wire", "--", bin.raw, "-exit-before-init", "3"}, 3, []string{"wire.stderr.0"}},
		{"budget", append([]string{"budget"}, noisy...), 0, []string{"budget.hosts.0.tools.0.cut", "budget.tokens.total", "findings.0.code"}},
		{"budget, one host", []string{"budget", "--host", "codex", bin.good}, 0, []string{"budget.hosts.0.input_schema_rule.rule"}},
		{"diff, reference file", []string{"diff", "--ref", ref, bin.good}, 0, []string{"diff.changes.0.kind"}},
		{"diff, drift gate", []string{"diff", "--fail-on", "drift", "--ref", lock, "--", bin.good, "-extra-tools", "1"}, 1, []string{"diff.tools_added.0", "fail_on.tripped.0.gate"}},
		{"diff, two files", []string{"diff", lock, "--", ref}, 0, []string{"diff.reference_format"}},
		{"snapshot", []string{"snapshot", bin.good}, 0, []string{"snapshot.tools.0.sha256", "snapshot.server_info.name"}},
		{"report", []string{"report", "--date", "2026-12-02", bin.good}, 0, []string{"report.wire.tools", "report.budget.hosts"}},
		{"report with a diff", []string{"report", "--date", "2026-12-02", "--ref", ref, bin.good}, 0, []string{"report.diff.changes"}},
		{"check", []string{"check", "--skip-malformed", bin.good}, 0, []string{"check.eras.1.verdicts.0.clause.url", "check.outcomes.pass"}},
		{"check, a fail", []string{"check", "--skip-malformed", "--", bin.raw, "-ping-result", `{"pong":1}`}, 1, []string{"check.eras.0.verdicts.0.got", "findings.0.code"}},
		{"report with latency and faults", []string{"report", "--date", "2026-12-02", "--bench", "--faults", "--", bin.raw}, 0, []string{"report.bench.startup", "report.faults.not_run"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, append([]string{tc.args[0], "--json"}, tc.args[1:]...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			v := envelope(t, tc.args[0], r.stdout)
			for _, p := range tc.has {
				if !v.Get(p).Exists() {
					t.Errorf("no %s in %.400s", p, r.stdout)
				}
			}
		})
	}
}

// report --json is the whole report: on a server with warnings (of the
// budget and of the lint), --fail-on warning exits 1, and the output
// itself lists the findings and the gate they tripped.
func TestReportJSONExplainsItsGate(t *testing.T) {
	t.Parallel()
	server := []string{"--", bin.raw, "-budget"}
	r := mcpprobe(t, append([]string{"report", "--json", "--fail-on", "warning", "--date", "2026-12-02"}, server...)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	v := envelope(t, "report", r.stdout)
	warnings := map[string]bool{}
	for _, f := range v.Get("findings").Array() {
		if s := f.Get("severity").String(); s == "warning" || s == "error" {
			warnings[f.Get("code").String()] = true
		}
	}
	// The budget's and the lint's.
	for _, code := range []string{"cut", "schema-drop", "empty-description"} {
		if !warnings[code] {
			t.Errorf("findings lack %s: %s", code, v.Get("findings").Raw)
		}
	}
	tripped := v.Get(`fail_on.tripped.#(gate=="warning")`)
	if int(tripped.Get("count").Int()) != countWarnings(v) {
		t.Errorf("tripped %s, but %d findings are warnings or errors", tripped.Raw, countWarnings(v))
	}
	for code := range warnings {
		if !strings.Contains(tripped.Get("codes").Raw, `"`+code+`"`) {
			t.Errorf("tripped.codes %s lacks %s", tripped.Get("codes").Raw, code)
		}
	}
	if !strings.Contains(r.stderr, "--fail-on tripped: warning (") {
		t.Errorf("stderr: %s", r.stderr)
	}
	// The markdown report lists the same findings.
	md := mcpprobe(t, append([]string{"report", "--fail-on", "warning", "--date", "2026-12-02"}, server...)...)
	for code := range warnings {
		if md.code != 1 || !strings.Contains(md.stdout, "| "+code+" ") {
			t.Errorf("markdown: exit %d, no %s:\n%.800s", md.code, code, md.stdout)
		}
	}
}

func countWarnings(v gjson.Result) int {
	n := 0
	for _, f := range v.Get("findings").Array() {
		if s := f.Get("severity").String(); s == "warning" || s == "error" {
			n++
		}
	}
	return n
}

// snapshot --json carries the lock file as its section; diff reads it
// back from there as it reads the lock file.
func TestSnapshotJSONIsAReference(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "snap.json")
	r := mcpprobe(t, "snapshot", "--json", "-o", path, bin.good)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	envelope(t, "snapshot", string(data))
	v := diffJSON(t, 0, "--ref", path, "--fail-on", "drift", bin.good)
	if v.Get("reference_format").String() != "mcpprobe-snapshot" || !v.Get("identical_bytes").Bool() {
		t.Errorf("%s", v.Raw)
	}
}
