//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

// faultsJSON runs faults --json, checks the output against the result
// schema, and returns its faults section.
func faultsJSON(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"faults", "--json", "--quiet"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Fatalf("faults --json does not validate: %v\n%.600s", err, r.stdout)
	}
	v := gjson.Parse(r.stdout)
	if v.Get("command").String() != "faults" {
		t.Fatalf("command = %s", v.Get("command").Raw)
	}
	return v.Get("faults")
}

// faultsRun is the one run of a single-policy faults --json.
func faultsRun(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	v := faultsJSON(t, args...)
	if n := v.Get("runs.#").Int(); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	return v.Get("runs.0")
}

func outcomes(v gjson.Result) string {
	var out []string
	for _, c := range v.Get("calls").Array() {
		o := c.Get("outcome").String()
		if c.Get("retried").Bool() {
			o += "(r)"
		}
		out = append(out, o)
	}
	return strings.Join(out, " ")
}

func TestFaults(t *testing.T) {
	t.Parallel()
	server := []string{"--", bin.raw, "-bench-tools"}
	tests := []struct {
		name  string
		args  []string
		want  string
		check func(t *testing.T, v gjson.Result)
	}{
		{"crash at call 6", []string{"--crash-at", "6", "--call", "echo"},
			"ok ok ok ok ok closed not_connected not_connected not_connected not_connected",
			func(t *testing.T, v gjson.Result) {
				if v.Get("failures.#").Int() != 1 || v.Get("failures.0.recovered").Bool() {
					t.Errorf("failures = %s", v.Get("failures").Raw)
				}
			}},
		{"crash at call 6, restart", []string{"--crash-at", "6", "--restart", "--call", "echo"},
			"ok ok ok ok ok ok(r) ok ok ok ok",
			func(t *testing.T, v gjson.Result) {
				if !v.Get("failures.0.recovered").Bool() || v.Get("restarts").Int() != 1 {
					t.Errorf("run = %s", v.Raw)
				}
				// The retry's time holds the restart it waited for.
				c := v.Get("calls.5")
				if restart := c.Get("restart_ms"); restart.Type != gjson.Number || restart.Float() <= 0 ||
					c.Get("ms").Float() < restart.Float()+v.Get("failures.0.detected_ms").Float() {
					t.Errorf("retried call %s, failure %s", c.Raw, v.Get("failures.0").Raw)
				}
				if r := v.Get("calls.4.restart_ms"); r.Type != gjson.Null || !r.Exists() {
					t.Errorf("a call not retried has restart_ms %s", r.Raw)
				}
			}},
		{"slow reply past the timeout", []string{"--slow-at", "2", "--delay", secs(1 * time.Second), "--timeout", secs(300 * time.Millisecond), "--calls", "4", "--call", "echo"},
			"ok timeout ok ok",
			func(t *testing.T, v gjson.Result) {
				if v.Get("late_replies").Int() != 1 {
					t.Errorf("late replies = %d", v.Get("late_replies").Int())
				}
				if ms := v.Get("calls.1.ms").Float(); ms < 300 || ms > float64(bound(time.Second).Milliseconds()) {
					t.Errorf("timeout detected after %.0f ms", ms)
				}
			}},
		{"dropped reply", []string{"--drop-at", "1", "--timeout", secs(300 * time.Millisecond), "--calls", "2", "--call", "echo"}, "timeout ok", nil},
		{"tool selector and errors", []string{"--crash-at", "tool:write", "--call", "fail", "--call", "write", "--calls", "3"},
			"is_error closed not_connected", nil},
		{"exit at startup", []string{"--exit-at-startup", "--calls", "2", "--call", "echo"}, "closed not_connected not_connected", nil},
		{"exit at startup, restart", []string{"--exit-at-startup", "--restart", "--calls", "2", "--call", "echo"}, "closed ok ok", nil},
		{"garbled reply, spec client", []string{"--garble-at", "2", "--timeout", secs(300 * time.Millisecond), "--calls", "3", "--call", "echo"}, "ok timeout ok", nil},
		{"garbled reply, strict client", []string{"--garble-at", "2", "--client", "strict", "--calls", "3", "--call", "echo"}, "ok closed not_connected", nil},
		{"combined faults", []string{"--slow-at", "1", "--delay", secs(600 * time.Millisecond), "--drop-at", "3", "--timeout", secs(300 * time.Millisecond), "--calls", "4", "--call", "echo"}, "timeout ok timeout ok", nil},
		{"probability, seeded", []string{"--drop-at", "p:0.5", "--seed", "3", "--timeout", secs(200 * time.Millisecond), "--calls", "6", "--call", "echo"}, "", func(t *testing.T, v gjson.Result) {
			again := faultsRun(t, "--drop-at", "p:0.5", "--seed", "3", "--timeout", secs(200*time.Millisecond), "--calls", "6", "--call", "echo", "--", bin.raw, "-bench-tools")
			if outcomes(v) != outcomes(again) || !strings.Contains(outcomes(v), "timeout") || !strings.Contains(outcomes(v), "ok") {
				t.Errorf("seeded runs differ or hit all/none: %q vs %q", outcomes(v), outcomes(again))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := faultsRun(t, append(tc.args, server...)...)
			if got := outcomes(v); tc.want != "" && got != tc.want {
				t.Errorf("outcomes %q, want %q", got, tc.want)
			}
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

func TestFaultsClientPolicies(t *testing.T) {
	t.Parallel()
	v := faultsJSON(t, "--client", "all", "--pollute", "partial", "--pollute-at", "2", "--timeout", secs(300*time.Millisecond), "--calls", "3", "--call", "echo", "--", bin.raw, "-bench-tools")
	want := map[string]string{
		"spec":    "ok timeout ok",
		"strict":  "ok closed not_connected",
		"lenient": "ok timeout ok",
		"ts":      "ok timeout ok",
	}
	if n := v.Get("runs.#").Int(); n != 4 {
		t.Fatalf("--client all: %d runs, want 4", n)
	}
	for _, c := range v.Get("runs").Array() {
		p := c.Get("client").String()
		if got := outcomes(c); got != want[p] {
			t.Errorf("%s client: %q, want %q", p, got, want[p])
		}
	}
	// A newline-terminated stray line: only a strict client dies of it.
	v = faultsJSON(t, "--client", "all", "--pollute", "line", "--pollute-at", "2", "--calls", "3", "--call", "echo", "--", bin.raw, "-bench-tools")
	for _, c := range v.Get("runs").Array() {
		p, got := c.Get("client").String(), outcomes(c)
		if (p == "strict") != (got != "ok ok ok") {
			t.Errorf("%s client with a stray line: %q", p, got)
		}
	}
}

func TestFaultsShutdown(t *testing.T) {
	t.Parallel()
	v := faultsJSON(t, "--calls", "1", "--call", "echo", "--", bin.raw, "-bench-tools")
	if v.Get("shutdown.stdin_close_needed").Type != gjson.Null || !v.Get("shutdown.sigterm_exited").Bool() {
		t.Errorf("shutdown = %s", v.Get("shutdown").Raw)
	}
	v = faultsJSON(t, "--grace", "200ms", "--calls", "1", "--call", "echo", "--", bin.raw, "-bench-tools", "-ignore-stdin-close", "-ignore-sigterm")
	if v.Get("shutdown.stdin_close_needed").String() != "SIGKILL" || v.Get("shutdown.sigterm_exited").Bool() {
		t.Errorf("shutdown = %s", v.Get("shutdown").Raw)
	}
	// Needing SIGKILL is a finding, and gates: the JSON says which.
	r := mcpprobe(t, "faults", "--json", "--fail-on", "error", "--grace", "200ms", "--calls", "1", "--call", "echo", "--", bin.raw, "-bench-tools", "-ignore-stdin-close", "-ignore-sigterm")
	if r.code != 1 || !strings.Contains(r.stderr, "--fail-on tripped: error (1)") {
		t.Errorf("--fail-on error on a server that needs SIGKILL: exit %d, %s", r.code, r.stderr)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Errorf("does not validate: %v", err)
	}
	env := gjson.Parse(r.stdout)
	if got := findingCodes(env); !has(got, "needs-sigkill") || has(got, "ignores-sigterm") {
		t.Errorf("findings %v, want needs-sigkill alone for the shutdown", got)
	}
	if env.Get("fail_on.tripped.0.codes.0").String() != "needs-sigkill" {
		t.Errorf("fail_on = %s", env.Get("fail_on").Raw)
	}
	// SIGTERM alone ignored (stdin closing is enough) is a warning only.
	r = mcpprobe(t, "faults", "--fail-on", "warning", "--grace", "200ms", "--calls", "1", "--call", "echo", "--", bin.raw, "-bench-tools", "-ignore-sigterm")
	if r.code != 1 || !strings.Contains(r.stdout, "ignores-sigterm") || !strings.Contains(r.stderr, "--fail-on tripped: warning (1)") {
		t.Errorf("--fail-on warning on a server that ignores SIGTERM: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := mcpprobe(t, "faults", "--fail-on", "drift", "--calls", "1", "--call", "echo", "--", bin.raw, "-bench-tools"); r.code != 2 {
		t.Errorf("--fail-on drift: exit %d, want 2", r.code)
	}
}

func TestProxyInARealClient(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	// Transparent: the same capture through the proxy as without it.
	direct := wireJSON(t, "--", bin.raw, "-odd-json", "-pages", "2")
	proxied := wireJSON(t, "--", bin.mcpprobe, "proxy", "--trace", trace, "--", bin.raw, "-odd-json", "-pages", "2")
	if direct.Get("tools").Raw != proxied.Get("tools").Raw {
		t.Errorf("the proxy changed the tools:\n%s\n%s", direct.Get("tools").Raw, proxied.Get("tools").Raw)
	}
	data, _ := os.ReadFile(trace)
	if !strings.Contains(string(data), `"dir":"recv"`) || !strings.Contains(string(data), `"dir":"send"`) {
		t.Errorf("the proxy's trace lacks frames: %.300s", data)
	}
	// A fault in the proxy, seen by mcpprobe as a client would.
	v := faultsRun(t, "--client", "strict", "--calls", "3", "--call", "echo", "--", bin.mcpprobe, "proxy", "--pollute", "line", "--pollute-at", "2", "--", bin.raw, "-bench-tools")
	if got := outcomes(v); got != "ok closed not_connected" {
		t.Errorf("strict client behind a polluting proxy: %q", got)
	}
}

func TestFaultsRealPeer(t *testing.T) {
	t.Parallel()
	entry := peer(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	v := faultsRun(t, "--crash-at", "3", "--restart", "--calls", "4", "--call", "echo", "--args", `{"message":"hi"}`, "--", "node", entry, "stdio")
	if got := outcomes(v); got != "ok ok ok(r) ok" {
		t.Errorf("server-everything, crash at 3 with restart: %q", got)
	}
	if f := v.Get("failures.0"); !f.Get("recovered").Bool() || f.Get("recovery_ms").Float() <= 0 {
		t.Errorf("failure = %s", f.Raw)
	}
}

func TestReportFaultsAndMalformedSections(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "report", "--faults", "--malformed", "--timeout", secs(1*time.Second), "--", bin.raw, "-bench-tools")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"## Faults\n",
		"| crash during call 3 | `ok` ×2, `closed`, `not_connected` ×2 | when the connection dropped | no |",
		"| stray stdout text glued to reply 2, strict client | `ok`, `closed`, `not_connected` ×3 | when the connection dropped | no |",
		"## Malformed calls\n",
		"| wrong type (text) | `echo` | ok | is_error | ⚠ warn · no keyword",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
}

// A fault only the proxy can act is refused by faults, with the reason,
// and acts through the proxy.
func TestFaultsProxyOnly(t *testing.T) {
	t.Parallel()
	for _, flag := range [][]string{{"--split"}, {"--stderr-flood", "3"}} {
		r := mcpprobe(t, append(append([]string{"faults", "--quiet", "--calls", "1", "--call", "echo"}, flag...), "--", bin.raw, "-bench-tools")...)
		if r.code != 2 || !strings.Contains(r.stderr, flag[0]+" acts only in mcpprobe proxy: ") {
			t.Errorf("faults %s: exit %d, %s", flag[0], r.code, r.stderr)
		}
	}
	v := faultsRun(t, "--calls", "3", "--call", "echo", "--", bin.mcpprobe, "proxy", "--split", "--stderr-flood", "50", "--", bin.raw, "-bench-tools")
	if got := outcomes(v); got != "ok ok ok" {
		t.Errorf("through a splitting, flooding proxy: %q", got)
	}
}

// Recovery means the server answers again: on a server that answers every
// call with an error, a restart after a crash is recovered, and the error
// answers are outcomes, not failures.
func TestFaultsRecoveryOnErrorAnswers(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"rpc", "tool"} {
		v := faultsRun(t, "--crash-at", "3", "--restart", "--calls", "4", "--call", "echo", "--", bin.raw, "-bench-tools", "-call-fail", kind)
		answer := map[string]string{"rpc": "rpc_error", "tool": "is_error"}[kind]
		if want := strings.Repeat(answer+" ", 2) + answer + "(r) " + answer; outcomes(v) != want {
			t.Errorf("-call-fail %s: outcomes %q, want %q", kind, outcomes(v), want)
		}
		f := v.Get("failures")
		if f.Get("#").Int() != 1 || !f.Get("0.recovered").Bool() || f.Get("0.recovered_by").String() != "the retry" ||
			f.Get("0.retry_outcome").String() != answer || f.Get("0.outcome").String() != "closed" {
			t.Errorf("-call-fail %s: failures %s, want the crash alone, recovered by the retry", kind, f.Raw)
		}
	}
	r := mcpprobe(t, "faults", "--crash-at", "3", "--restart", "--calls", "4", "--call", "echo", "--", bin.raw, "-bench-tools", "-call-fail", "rpc")
	if r.code != 0 || !strings.Contains(r.stdout, "call 3: closed, detected after") ||
		!strings.Contains(r.stdout, "restarted, the retry got rpc_error; recovered (the retry answered)") {
		t.Errorf("exit %d, text:\n%s", r.code, r.stdout)
	}
}

// A server that writes a log line on stdout after each reply: each line
// shows at the call it disturbed, under every client policy, with what
// that client did with it.
func TestFaultsStrayOutputShown(t *testing.T) {
	t.Parallel()
	args := []string{"--client", "all", "--timeout", secs(1 * time.Second), "--calls", "3", "--call", "echo", "--", bin.raw, "-bench-tools", "-log-between-calls"}
	v := faultsJSON(t, args...)
	did := map[string]string{"spec": "skipped (reported as a transport error)", "strict": "a strict client ends the session",
		"lenient": "skipped silently", "ts": "skipped (reported as a transport error)"}
	for _, run := range v.Get("runs").Array() {
		p := run.Get("client").String()
		first := run.Get("events.0")
		if !first.Get("stray").Bool() || first.Get("call").Int() != 2 || !strings.Contains(first.Get("what").String(), `"[log] handled echo"`) ||
			!strings.HasSuffix(first.Get("what").String(), did[p]) {
			t.Errorf("%s client: first event %s, want the line after call 1 at call 2: %s", p, first.Raw, did[p])
		}
	}
	r := mcpprobe(t, append([]string{"faults"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Each policy's summary lists the line, with what it did.
	for p, what := range did {
		_, after, ok := strings.Cut(r.stdout, "\n"+p+": ")
		section, _, _ := strings.Cut(after, "\n\n")
		if !ok || !strings.Contains(section, `call 2: the server wrote a stdout line that is not JSON-RPC: "[log] handled echo": `+what) {
			t.Errorf("%s client: the text does not show the line at call 2:\n%s", p, r.stdout)
		}
	}
	// One client: in the table, on the row of the call it disturbed.
	r = mcpprobe(t, "faults", "--client", "lenient", "--calls", "2", "--call", "echo", "--", bin.raw, "-bench-tools", "-log-between-calls")
	if !strings.Contains(r.stdout, `│ the server wrote a stdout line that is not JSON-RPC: "[log] handled echo": skipped silently`) {
		t.Errorf("lenient client, text:\n%s", r.stdout)
	}
}
