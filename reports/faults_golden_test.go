package reports

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/internal/jsonschema"
	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// The faults renderers are golden-tested from fixed results, not from a
// replayed trace: a faults run kills, restarts and times out servers,
// which a recording played back by method cannot stand in for (every
// start replays the same frames, and a crash or a held reply is real
// time). The engine is tested against live servers in faults/ and in the
// e2e tests; here, what it returns is rendered, byte for byte.

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	gold.Check(t, filepath.Join("testdata", "golden", name), got, "go test ./reports -run Golden -update")
}

// A crash at call 3 with a restart that recovers, an rpc_error (an
// answer, not a failure), a note with a control character the server could
// have put there, stray output before the first call and between calls,
// and a clean shutdown.
const (
	banner = `the server wrote a stdout line that is not JSON-RPC: "Server listening on stdio…": skipped (reported as a transport error)`
	stray2 = `the server wrote a stdout line that is not JSON-RPC: "[log] handled echo": skipped (reported as a transport error)`
)

func faultsOneClient() *faults.Result {
	return &faults.Result{
		ProtocolVersion: "2025-06-18", Plan: "crash at 3", Restart: true, N: 4, Grace: 2 * time.Second,
		Runs: []faults.ClientRun{{
			Policy: faults.Spec, Plan: "crash at 3",
			Calls: []faults.CallOutcome{
				{N: 1, Tool: "echo", Outcome: faults.OK, Ms: 1.25},
				{N: 2, Tool: "fail", Outcome: faults.RPCError, Code: -32602, Ms: 0.8, Note: stray2},
				{N: 3, Tool: "echo", Outcome: faults.OK, Ms: 41.5, Retried: true, RestartMs: 38.2, Note: "closed first, then restarted; server process group killed while handling call 3 (echo)"},
				{N: 4, Tool: "fail", Outcome: faults.IsError, Ms: 2, Note: "odd \x1b[31mred\x1b[0m text"},
			},
			Counts: map[string]int{faults.OK: 2, faults.RPCError: 1, faults.IsError: 1},
			Failures: []faults.Failure{{Call: 3, Outcome: faults.Closed, DetectedMs: 3.4, Recovered: true, RecoveryMs: 38,
				RecoveredBy: "the retry", Retry: faults.OK}},
			Events: []faults.RunEvent{
				{Event: faults.Event{Call: 0, What: banner, T: 4 * time.Millisecond, Stray: true}},
				{Event: faults.Event{Call: 2, What: stray2, T: 9 * time.Millisecond, Stray: true}},
				{Event: faults.Event{Call: 3, What: "server process group killed while handling call 3 (echo)", T: 11 * time.Millisecond}},
				{Event: faults.Event{Call: 4, What: "odd \x1b[31mred\x1b[0m text", T: 2 * time.Millisecond}, Server: 1},
			},
			Restarts: 1,
		}},
		Shutdown: &faults.Shutdown{StdinClose: 12500 * time.Microsecond, Sigterm: 3 * time.Millisecond, SigtermExited: true},
	}
}

// Every client policy on a reply glued to stray text; a restart that
// could not bring the server back; a server that needs SIGKILL.
func faultsAllClients() *faults.Result {
	run := func(p faults.Policy, outcomes ...string) faults.ClientRun {
		r := faults.ClientRun{Policy: p, Plan: "partial stray text before reply 2", Counts: map[string]int{}}
		for i, o := range outcomes {
			r.Calls = append(r.Calls, faults.CallOutcome{N: i + 1, Tool: "echo", Outcome: o, Ms: float64(i + 1)})
			r.Counts[o]++
		}
		return r
	}
	glued := func(p faults.Policy, did string) faults.RunEvent {
		return faults.RunEvent{Event: faults.Event{Call: 2, T: 5 * time.Millisecond,
			What: "stray text without a newline glued to reply 2" + did}}
	}
	// The strict client failed its handshake on a banner, and its restart
	// too: its table has a handshake row; the others' handshake went
	// through, and the rows line up by call number, not by position.
	strict := run(faults.Strict, faults.NotConnected, faults.NotConnected, faults.NotConnected)
	strict.Calls = append([]faults.CallOutcome{{Tool: "(handshake)", Outcome: faults.Closed, Note: "the server closed the connection"}}, strict.Calls...)
	strict.Counts[faults.Closed] = 1
	strict.Failures = []faults.Failure{{Call: 0, Outcome: faults.Closed, DetectedMs: 1,
		RestartError: "the server exited before it answered (exit status 1); received stderr: lock held by pid 4242"}}
	strict.Events = []faults.RunEvent{{Event: faults.Event{Call: 0, T: time.Millisecond, Stray: true,
		What: `the server wrote a stdout line that is not JSON-RPC: "Server listening on stdio…": a strict client ends the session`}}}
	spec := run(faults.Spec, faults.OK, faults.Timeout, faults.OK)
	spec.Failures = []faults.Failure{{Call: 2, Outcome: faults.Timeout, DetectedMs: 300, Recovered: true, RecoveredBy: "call 3", RecoveryMs: 2}}
	spec.LateReplies = 1
	spec.Events = []faults.RunEvent{glued(faults.Spec, ": the reply no longer parses and is lost (reported as a transport error)")}
	lenient := run(faults.Lenient, faults.OK, faults.Timeout, faults.OK)
	lenient.Failures = []faults.Failure{{Call: 2, Outcome: faults.Timeout, DetectedMs: 300}}
	lenient.Events = []faults.RunEvent{glued(faults.Lenient, ": the reply no longer parses and is lost (skipped silently)")}
	return &faults.Result{
		ProtocolVersion: "2025-06-18", Plan: "partial stray text before reply 2", Restart: true, N: 3, Grace: 200 * time.Millisecond,
		Runs: []faults.ClientRun{
			spec, strict, lenient,
			run(faults.TS, faults.OK, faults.Timeout, faults.OK),
		},
		Shutdown: &faults.Shutdown{StdinClose: 400 * time.Millisecond, StdinCloseSignal: "SIGKILL"},
	}
}

func TestGoldenFaults(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *faults.Result
	}{
		{"faults_one_client", faultsOneClient()},
		{"faults_all_clients", faultsAllClients()},
	} {
		t.Run(c.name, func(t *testing.T) {
			var text bytes.Buffer
			Faults(&text, terminal.Terminal, c.r)
			golden(t, c.name+".txt", text.Bytes())

			env := jsonout.Envelope{Version: "dev", Command: "faults", Target: "./server", ProtocolVersion: c.r.ProtocolVersion,
				Findings: findings.Sorted(c.r.Findings()), Gates: []string{"warning"}}
			env.Tripped = findings.Trip(env.Gates, env.Findings, c.r.Counts())
			out := env.JSON(FaultsSection(c.r))
			if err := jsonout.ValidateResult(out); err != nil {
				t.Errorf("faults JSON does not validate: %v\n%s", err, out)
			}
			golden(t, c.name+".json", indent(t, out))
		})
	}
}

func TestGoldenFaultScenarios(t *testing.T) {
	one := faultsOneClient().Runs[0]
	all := faultsAllClients().Runs
	r := &faults.ScenarioResult{ProtocolVersion: "2025-06-18", N: 5, Scenarios: []faults.Scenario{
		{Name: "crash during call 3, client restarts", Plan: "crash at 3", Restart: true, Run: one},
		{Name: "stray stdout text glued to reply 2, spec client", Plan: all[0].Plan, Run: all[0]},
		{Name: "stray stdout text glued to reply 2, strict client", Plan: all[1].Plan, Run: all[1]},
	}}
	var md bytes.Buffer
	FaultScenarios(&md, terminal.Markdown, r)
	golden(t, "fault_scenarios.md", md.Bytes())
	out := FaultScenariosJSON(r, "")
	// The report embeds this section: it must fit its $def.
	validateDef(t, "fault_scenarios", out)
	golden(t, "fault_scenarios.json", indent(t, out))
	if fs := r.Findings(); len(fs) != 1 || fs[0].Code != findings.RestartFailed {
		t.Errorf("scenario findings = %v, want one restart-failed", fs)
	}
}

// validateDef checks out against one of the schema's $defs.
func validateDef(t *testing.T, def string, out []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(jsonout.ResultSchema))
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://github.com/mcpprobe/mcpprobe/reports/result.schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url + "#/$defs/" + def)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("does not fit $defs/%s: %v\n%s", def, err, out)
	}
}

// indent makes a golden JSON file reviewable in a diff; the output itself
// is one line.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return append(out.Bytes(), '\n')
}
