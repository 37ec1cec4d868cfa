package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/dial"
)

func withTimeout(s dial.Spec, d string) dial.Spec {
	s.Probe.Timeout, _ = time.ParseDuration(d)
	return s
}

// failuresOf sums up a run's failures: "call:outcome:recovered-by"
// (recovered-by empty when not recovered), and the retry's outcome.
func failuresOf(r ClientRun) string {
	var out []string
	for _, f := range r.Failures {
		s := f.Outcome + "@" + callLabelOf(f.Call) + "→" + f.RecoveredBy
		if f.Retry != "" {
			s += " retry:" + f.Retry
		}
		if f.Recovered != (f.RecoveredBy != "") || (f.Recovered && f.RecoveryMs <= 0) {
			s += " (inconsistent)"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func callLabelOf(n int) string {
	if n == 0 {
		return "handshake"
	}
	return string(rune('0' + n))
}

// eventsOf lists a run's events as "call:stray:what".
func eventsOf(r ClientRun) []string {
	var out []string
	for _, e := range r.Events {
		s := callLabelOf(e.Call) + ":"
		if e.Stray {
			s += "stray:"
		}
		out = append(out, s+e.What)
	}
	return out
}

// Recovery means the server answered again, whatever it answered; an
// error answer is an outcome, not a failure; stray output shows at the
// call it disturbed, under every policy.
func recoveryCases(t *testing.T) []runCase {
	wantFailures := func(want ...string) func(t *testing.T, r *Result) {
		return func(t *testing.T, r *Result) {
			t.Helper()
			for i, run := range r.Runs {
				if got := failuresOf(run); got != want[i] {
					t.Errorf("%s client: failures %q, want %q", run.Policy, got, want[i])
				}
			}
		}
	}
	return []runCase{
		{name: "a restart on a server that answers every call with an error recovers",
			o:    Options{Spec: mcpSpec("MCPPROBE_CALL_ERROR=1"), Plan: mustPlan(t, Values{"crash-at": "2"}), N: 3, Restart: true},
			runs: []string{"rpc_error rpc_error(r) rpc_error"}, shutdown: true,
			check: wantFailures("closed@2→the retry retry:rpc_error")},
		{name: "error answers are outcomes, not failures",
			o:    Options{Spec: mcpSpec("MCPPROBE_CALL_ERROR=1"), N: 2},
			runs: []string{"rpc_error rpc_error"}, shutdown: true,
			check: wantFailures("")},
		{name: "a slow call that timed out is recovered by the next call that answers",
			o:    Options{Spec: withTimeout(mcpSpec(), "200ms"), Plan: mustPlan(t, Values{"slow-at": "2", "delay": "600ms"}), N: 3},
			runs: []string{"ok timeout ok"}, shutdown: true,
			check: wantFailures("timeout@2→call 3")},
		{name: "a last call that timed out is recovered by a ping",
			o:    Options{Spec: withTimeout(mcpSpec(), "200ms"), Plan: mustPlan(t, Values{"slow-at": "2", "delay": "600ms"}), N: 2},
			runs: []string{"ok timeout"}, shutdown: true,
			check: wantFailures("timeout@2→a ping after the last call")},
		{name: "a crash without a restart is not recovered",
			o:    Options{Spec: mcpSpec(), Plan: mustPlan(t, Values{"crash-at": "2"}), N: 3},
			runs: []string{"ok closed not_connected"}, shutdown: true,
			check: wantFailures("closed@2→")},
		{name: "a retry is the same call: a fault selected by number does not hit it again",
			o:    Options{Spec: withTimeout(mcpSpec(), "300ms"), Plan: mustPlan(t, Values{"crash-at": "2", "drop-at": "3"}), N: 3, Restart: true},
			runs: []string{"ok ok(r) timeout"}, shutdown: true,
			check: func(t *testing.T, r *Result) {
				run := r.Runs[0]
				wantFailures("closed@2→the retry retry:ok, timeout@3→a ping after the last call")(t, r)
				if !strings.Contains(run.Calls[1].Note, "killed while handling call 2") || !strings.Contains(run.Calls[2].Note, "reply dropped (call 3)") {
					t.Errorf("notes %q, %q: each fault's on its call's row", run.Calls[1].Note, run.Calls[2].Note)
				}
			}},
		{name: "a stray log line between calls, under every policy",
			o:    Options{Spec: withTimeout(mcpSpec("MCPPROBE_LOG=1"), "500ms"), N: 3, Policies: Policies},
			runs: []string{"ok ok ok", "ok closed not_connected", "ok ok ok", "ok ok ok"}, shutdown: true,
			check: func(t *testing.T, r *Result) {
				did := map[Policy]string{Spec: "skipped (reported as a transport error)", Strict: "a strict client ends the session",
					Lenient: "skipped silently", TS: "skipped (reported as a transport error)"}
				for _, run := range r.Runs {
					evs := eventsOf(run)
					if len(evs) == 0 || !strings.HasPrefix(evs[0], "2:stray:the server wrote a stdout line that is not JSON-RPC: \"[log] handled a call\": ") ||
						!strings.HasSuffix(evs[0], did[run.Policy]) {
						t.Errorf("%s client: events %q, want the line after call 1 at call 2, %s", run.Policy, evs, did[run.Policy])
					}
					if run.Policy != Strict && (len(evs) != 3 || !strings.HasPrefix(evs[2], "3:stray:after the call, ")) {
						t.Errorf("%s client: events %q, want one before calls 2 and 3 and one after the last", run.Policy, evs)
					}
					for _, e := range evs[1:] {
						if run.Policy == Strict && !strings.HasSuffix(e, "not read, the client had already ended the session") {
							t.Errorf("strict client: after it ended the session, %q", e)
						}
					}
				}
			}},
	}
}
