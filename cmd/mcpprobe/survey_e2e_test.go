//go:build e2e

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

type fleetLine struct {
	ID      string            `json:"id"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
}

func writeFleet(t *testing.T, entries []fleetLine) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fleet.jsonl")
	var b strings.Builder
	for _, e := range entries {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// surveyLines reads a results file: every line whole, valid against the
// result schema, each id once.
func surveyLines(t *testing.T, path string) map[string]gjson.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("%s ends in a partial line", path)
	}
	out := map[string]gjson.Result{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if err := jsonout.ValidateResult(line); err != nil {
			t.Errorf("a record does not validate: %v\n%s", err, line)
		}
		v := gjson.ParseBytes(line)
		id := v.Get("survey.id").String()
		if _, dup := out[id]; dup {
			t.Errorf("%q is in %s twice", id, path)
		}
		out[id] = v
	}
	return out
}

// comparable is a record with what varies between runs blanked: its
// timings, and the shard it was run in.
func comparable(t *testing.T, v gjson.Result) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(v.Raw), &m); err != nil {
		t.Fatal(err)
	}
	s := m["survey"].(map[string]any)
	delete(s, "timings")
	s["shard"] = nil
	b, _ := json.Marshal(m)
	return string(b)
}

// fixtureFleet is n entries from the fixtures: good, paginated and noisy
// servers, with crashing, slow (past the per-server bound), silent and
// missing ones among them, and the npm peer server-everything.
func fixtureFleet(t *testing.T, n int, npm bool) ([]fleetLine, map[string]string) {
	t.Helper()
	var es []fleetLine
	want := map[string]string{} // id → failure cause, "" for ok
	for i := range n {
		e := fleetLine{ID: fmt.Sprintf("srv-%03d", i)}
		cause := ""
		switch {
		case i%50 == 7:
			e.Command, e.Args, cause = bin.raw, []string{"-slow-list", secs(30 * time.Second)}, "timed_out"
		case i%50 == 8:
			e.Command, e.Args, cause = bin.raw, []string{"-silent"}, "no_answer"
		case i%25 == 9:
			e.Command, e.Args, cause = bin.raw, []string{"-exit-before-init", "3"}, "crashed"
		case i == 10:
			e.Command, cause = filepath.Join(bin.dir, "no-such-server"), "spawn_failed"
		case i == 11 && npm:
			e.Command, e.Args = "node", []string{peer(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"}
		case i%3 == 0:
			e.Command = bin.good
		case i%3 == 1:
			e.Command, e.Args = bin.good, []string{"-page-size", "1"}
		default:
			e.Command, e.Args = bin.raw, []string{"-banner"}
		}
		es = append(es, e)
		want[e.ID] = cause
	}
	return es, want
}

// surveyBounds: the silent servers must fail on the startup bound
// (no_answer) before the slow ones fail on the per-server one (timed_out);
// the startup bound leaves a Node server room on a loaded 2-core machine,
// where server-everything once took over 1.5 s to answer initialize.
// Each bound scales with the measured load (secs), and with them the
// request bound (the default 10 s, which the per-server one must stay
// under) and the slow servers' 30 s, so that their order holds on any
// machine.
func surveyBounds() []string {
	return []string{"--per-server-timeout", secs(6 * time.Second), "--startup-timeout", secs(3 * time.Second),
		"--timeout", secs(10 * time.Second), "--grace", secs(500 * time.Millisecond)}
}

// 200 servers: 200 lines, each failure explained with its cause, in
// bounded memory.
func TestSurvey200(t *testing.T) {
	t.Parallel()
	es, want := fixtureFleet(t, 200, true)
	fleet := writeFleet(t, es)
	out := filepath.Join(t.TempDir(), "results.jsonl")
	r := rusageRun(t, append([]string{"survey", fleet, "--jobs", "8", "-o", out}, surveyBounds()...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Logf("200 servers in %v, peak RSS %d MiB; %s", r.took.Round(time.Millisecond), r.maxRSSKB>>10, strings.TrimSpace(r.stderr))
	recs := surveyLines(t, out)
	if len(recs) != 200 {
		t.Fatalf("%d records, want 200", len(recs))
	}
	for id, cause := range want {
		v := recs[id]
		got := v.Get("survey.failure.cause").String()
		if got != cause {
			t.Errorf("%s: cause %q, want %q (%s)", id, got, cause, v.Get("survey.failure.what"))
		}
		if cause != "" {
			for _, k := range []string{"what", "received", "try"} {
				if v.Get("survey.failure."+k).String() == "" {
					t.Errorf("%s: failure without %s", id, k)
				}
			}
		}
	}
	if n := recs["srv-000"].Get("survey.wire.tools.count").Int(); n == 0 {
		t.Errorf("the good server has no tools: %s", recs["srv-000"].Raw)
	}
	if n := recs["srv-002"].Get("survey.wire.stdout_noise_lines").Int(); n == 0 {
		t.Errorf("the noisy server shows no noise: %s", recs["srv-002"].Raw)
	}
	if n := recs["srv-001"].Get("survey.wire.lists.0.pages").Int(); n < 2 {
		t.Errorf("the paginated server took %d pages", n)
	}
	if r.maxRSSKB == 0 || r.maxRSSKB > 200<<10 {
		t.Errorf("peak RSS %d KiB, want under 200 MiB", r.maxRSSKB)
	}
}

// Two shards are disjoint, their union is the whole, and merged they are
// the unsharded run but for timings. The census of it is the golden file.
func TestSurveyShardsMerge(t *testing.T) {
	t.Parallel()
	es, causes := fixtureFleet(t, 20, false)
	// No slow or silent server: this test compares runs, not bounds.
	var fast []fleetLine
	for _, e := range es {
		if c := causes[e.ID]; c != "timed_out" && c != "no_answer" {
			fast = append(fast, e)
		}
	}
	fleet := writeFleet(t, fast)
	dir := t.TempDir()
	whole, p0, p1, merged := filepath.Join(dir, "whole.jsonl"), filepath.Join(dir, "part-0.jsonl"), filepath.Join(dir, "part-1.jsonl"), filepath.Join(dir, "merged.jsonl")
	for _, args := range [][]string{
		{"survey", fleet, "-o", whole},
		{"survey", fleet, "--shard", "0/2", "-o", p0},
		{"survey", fleet, "--shards", "2", "-o", p1}, // the index from JOB_COMPLETION_INDEX
	} {
		args = append(args, surveyBounds()...)
		var r measured
		if args[2] == "--shards" {
			r = probeRun(t, []string{"JOB_COMPLETION_INDEX=1"}, nil, args...)
		} else {
			r = probeRun(t, nil, nil, args...)
		}
		if r.code != 0 {
			t.Fatalf("%q: exit %d: %s", args, r.code, r.stderr)
		}
	}
	w, a, b := surveyLines(t, whole), surveyLines(t, p0), surveyLines(t, p1)
	if len(w) != len(fast) {
		t.Fatalf("whole: %d records, want %d", len(w), len(fast))
	}
	for id := range a {
		if _, ok := b[id]; ok {
			t.Errorf("%q is in both shards", id)
		}
	}
	if len(a)+len(b) != len(w) || len(a) == 0 || len(b) == 0 {
		t.Errorf("shards of %d and %d records, the whole %d", len(a), len(b), len(w))
	}
	r := mcpprobe(t, "survey", "merge", p0, p1, "-o", merged)
	if r.code != 0 {
		t.Fatalf("merge: exit %d: %s", r.code, r.stderr)
	}
	m := surveyLines(t, merged)
	for id, v := range w {
		if got, want := comparable(t, m[id]), comparable(t, v); got != want {
			t.Errorf("%s merged differs from the whole run:\n got %s\nwant %s", id, got, want)
		}
	}
	if len(m) != len(w) {
		t.Errorf("merged %d records, want %d", len(m), len(w))
	}
	// An overlap, a gap and a part of another input are refused.
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{[]string{p0, p0}, "overlap"},
		{[]string{p0}, "gap"},
		{[]string{whole, p0}, "of 2 shards"},
	} {
		r := mcpprobe(t, append([]string{"survey", "merge", "-o", filepath.Join(dir, "bad.jsonl")}, c.parts...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("merge %v: exit %d, want 2 with %q: %s", c.parts, r.code, c.want, r.stderr)
		}
	}
	// The census of the merged run.
	sum := filepath.Join(dir, "SURVEY.md")
	if r := mcpprobe(t, "survey", "summary", merged, "-o", sum); r.code != 0 {
		t.Fatalf("summary: exit %d: %s", r.code, r.stderr)
	}
	md, _ := os.ReadFile(sum)
	gold.Check(t, "testdata/golden/survey-summary.md", md, "go test ./cmd/mcpprobe -run TestSurveyShardsMerge -update")
}

// A run killed outright, then one stopped by Ctrl-C, then --resume: each
// server is in the file exactly once, and a torn last line is cut away.
func TestSurveyKillResume(t *testing.T) {
	t.Parallel()
	pf := pidFile(t)
	var es []fleetLine
	for i := range 16 {
		es = append(es, fleetLine{ID: fmt.Sprintf("r%02d", i), Command: bin.raw, Args: []string{"-slow-list", "300ms", "-pidfile", pf}})
	}
	fleet := writeFleet(t, es)
	out := filepath.Join(t.TempDir(), "results.jsonl")
	args := append([]string{"survey", fleet, "--jobs", "2", "-o", out, "--resume"}, surveyBounds()...)
	stopAfter := func(sig syscall.Signal, lines int) (int, string) {
		t.Helper()
		cmd := exec.Command(bin.mcpprobe, args...)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(bound(30 * time.Second))
		for time.Now().Before(deadline) {
			b, _ := os.ReadFile(out)
			if strings.Count(string(b), "\n") >= lines {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		_ = cmd.Process.Signal(sig)
		_ = cmd.Wait()
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	stopAfter(syscall.SIGKILL, 3)
	// What a kill during the write would leave: a line cut short.
	f, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0o644)
	_, _ = f.WriteString(`{"schema":"mcpprobe/result/v1","mcpprobe_ver`)
	f.Close()
	code, stderr := stopAfter(syscall.SIGINT, 7)
	if code != 130 {
		t.Errorf("Ctrl-C: exit %d, want 130", code)
	}
	if !strings.Contains(stderr, "partial line") {
		t.Errorf("--resume did not say it cut a partial line: %s", stderr)
	}
	mid := surveyLines(t, out)
	if len(mid) < 7 || len(mid) >= len(es) {
		t.Logf("after the two stops: %d records", len(mid))
	}
	r := mcpprobe(t, args...)
	if r.code != 0 {
		t.Fatalf("--resume: exit %d: %s", r.code, r.stderr)
	}
	recs := surveyLines(t, out)
	if len(recs) != len(es) {
		t.Errorf("%d records after resuming, want %d", len(recs), len(es))
	}
	for id, v := range recs {
		if v.Get("survey.status").String() != "ok" {
			t.Errorf("%s: %s", id, v.Get("survey.failure"))
		}
	}
	noneLeft(t, pidsIn(t, pf))
}

// Each server sees only its entry's environment, PATH and a private HOME
// and TMPDIR that are gone afterwards; --sandbox wraps the command and
// is refused for a URL; a server's daemon does not outlive it; a secret
// in an entry is never written.
func TestSurveyIsolation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	envOut, sbOut, pf := filepath.Join(dir, "env.txt"), filepath.Join(dir, "sandbox.txt"), pidFile(t)
	const secret = "sk-survey-secret-4711"
	fleet := writeFleet(t, []fleetLine{
		{ID: "env", Command: "/bin/sh", Args: []string{"-c", "env > " + envOut + "; exec " + bin.raw}, Env: map[string]string{"ENTRY_VAR": "given"}},
		{ID: "secret", Command: bin.raw, Args: []string{"-echo-secrets", "API_KEY"}, Env: map[string]string{"API_KEY": secret}},
		{ID: "daemon", Command: bin.raw, Args: []string{"-escape", "-pidfile", pf}},
	})
	out := filepath.Join(dir, "results.jsonl")
	r := probeRun(t, []string{"SURVEY_LEAK=must-not-pass"}, nil, append([]string{"survey", fleet, "-o", out}, surveyBounds()...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recs := surveyLines(t, out)
	env, _ := os.ReadFile(envOut)
	var home string
	for _, kv := range strings.Split(strings.TrimSpace(string(env)), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "TMPDIR", "ENTRY_VAR", "PWD", "SHLVL", "_":
		case "HOME":
			home = v
		default:
			t.Errorf("the server's environment holds %s", kv)
		}
	}
	if home == "" || !strings.Contains(string(env), "ENTRY_VAR=given") {
		t.Errorf("the environment lacks HOME or the entry's variable:\n%s", env)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("the private HOME %s is still there", home)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), secret) {
		t.Errorf("the results hold the entry's secret")
	}
	if recs["secret"].Get("survey.status").String() != "ok" {
		t.Errorf("secret: %s", recs["secret"].Raw)
	}
	noneLeft(t, pidsIn(t, pf))
	if !has(findingCodes(recs["daemon"]), "escaped-processes") {
		t.Errorf("the daemon's escape is not a finding: %s", recs["daemon"].Get("findings"))
	}

	// --sandbox: its words, then the server's argv; a URL is refused.
	fleet2 := writeFleet(t, []fleetLine{
		{ID: "wrapped", Command: "/bin/sh", Args: []string{"-c", "echo \"$SANDBOXED\" > " + sbOut + "; exec " + bin.raw}},
		{ID: "remote", URL: "http://127.0.0.1:9/mcp"},
	})
	out2 := filepath.Join(dir, "sandbox.jsonl")
	r = probeRun(t, nil, nil, append([]string{"survey", fleet2, "-o", out2, "--sandbox", "env SANDBOXED='yes it is'"}, surveyBounds()...)...)
	if r.code != 0 {
		t.Fatalf("--sandbox: exit %d: %s", r.code, r.stderr)
	}
	recs = surveyLines(t, out2)
	if got, _ := os.ReadFile(sbOut); strings.TrimSpace(string(got)) != "yes it is" {
		t.Errorf("the sandbox command did not wrap the server: %q", got)
	}
	if c := recs["remote"].Get("survey.failure.cause").String(); c != "refused" {
		t.Errorf("a URL under --sandbox: cause %q, want refused", c)
	}
	if !strings.HasPrefix(recs["wrapped"].Get("target").String(), "env ") {
		t.Errorf("the target does not show the sandbox: %s", recs["wrapped"].Get("target"))
	}
}

// Host config files and server.json entries, detected per file: every
// server of a config (id FILE#NAME), the registry's packages mapped to
// their runners, and an entry that lacks a value is a failed record that
// says which.
func TestSurveyInputFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	_ = os.WriteFile(cfg, []byte(`{"mcpServers": {
  "good": {"command": "`+bin.good+`"},
  "needs": {"command": "`+bin.good+`", "env": {"TOKEN": "${MCPPROBE_SURVEY_UNSET}"}}
}}`), 0o644)
	sj := filepath.Join(dir, "server.json")
	_ = os.WriteFile(sj, []byte(`{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "io.example/weather",
  "version": "1.2.0",
  "packages": [
    {"registryType": "npm", "identifier": "@example/weather", "version": "1.2.0", "transport": {"type": "stdio"},
     "environmentVariables": [{"name": "WEATHER_KEY", "isRequired": true, "isSecret": true}]},
    {"registryType": "mcpb", "identifier": "https://example.com/w.mcpb", "transport": {"type": "stdio"}}
  ],
  "remotes": [{"type": "streamable-http", "url": "https://{tenant}.example.com/mcp",
    "variables": {"tenant": {"isRequired": true}}}]
}`), 0o644)
	out := filepath.Join(dir, "results.jsonl")
	r := mcpprobe(t, append([]string{"survey", cfg, sj, "-o", out}, surveyBounds()...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recs := surveyLines(t, out)
	want := map[string]string{
		cfg + "#good":                          "",
		cfg + "#needs":                         "missing_value",
		"io.example/weather@1.2.0#packages[0]": "missing_value",
		"io.example/weather@1.2.0#packages[1]": "unsupported",
		"io.example/weather@1.2.0#remotes[0]":  "missing_value",
	}
	if len(recs) != len(want) {
		var ids []string
		for id := range recs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		t.Errorf("ids %q, want %d", ids, len(want))
	}
	for id, cause := range want {
		if got := recs[id].Get("survey.failure.cause").String(); got != cause {
			t.Errorf("%s: cause %q, want %q (%s)", id, got, cause, recs[id].Get("survey.failure.what"))
		}
	}
	if w := recs["io.example/weather@1.2.0#packages[0]"].Get("survey.failure.what").String(); !strings.Contains(w, "WEATHER_KEY") {
		t.Errorf("the missing value is not named: %s", w)
	}
	if tg := recs["io.example/weather@1.2.0#packages[0]"].Get("target").String(); tg != "npx -y @example/weather@1.2.0" {
		t.Errorf("npm package mapped to %q", tg)
	}
}

// Usage errors: the shard options that cannot agree, --resume without a
// file, a flag survey has no use for.
func TestSurveyUsage(t *testing.T) {
	t.Parallel()
	fleet := writeFleet(t, []fleetLine{{ID: "a", Command: bin.good}})
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--shard", "1/2", "--shards", "2"}, "both given"},
		{nil, []string{"--shard", "/2"}, "JOB_COMPLETION_INDEX"},
		{[]string{"JOB_COMPLETION_INDEX=0"}, []string{"--shard", "1/2"}, "disagree"},
		{nil, []string{"--shard", "2/2"}, "from 0 to 1"},
		{nil, []string{"--resume"}, "give -o"},
		{nil, []string{"--json"}, "does not apply to survey"},
		{nil, []string{"--fail-on", "error"}, "--fail-on does not apply to survey; it applies to wire"},
		{nil, []string{"--with", "everything"}, "--with"},
		{nil, []string{"--sandbox", "'unterminated"}, "--sandbox"},
	} {
		r := probeRun(t, c.env, nil, append([]string{"survey", fleet}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q: %s", c.args, r.code, c.want, r.stderr)
		}
	}
	// merge and summary read results: a run's flags are refused, not
	// taken and ignored.
	for _, sub := range []string{"merge", "summary"} {
		for _, f := range [][]string{{"--jobs", "3"}, {"--resume"}, {"--shard", "0/2"}, {"--per-server-timeout", "1s"},
			{"--sandbox", "env"}, {"--with", "bench"}, {"--hosts", fleet}, {"--timeout", "1s"}, {"--json"}} {
			r := probeRun(t, nil, nil, append(append([]string{"survey", sub}, f...), fleet)...)
			if r.code != 2 || !strings.Contains(r.stderr, f[0]) {
				t.Errorf("survey %s %v: exit %d, want 2 naming the flag: %s", sub, f, r.code, r.stderr)
			}
		}
	}
}

// --with adds report's sections to the record, each validated by the
// result schema as report's are.
func TestSurveyWith(t *testing.T) {
	t.Parallel()
	fleet := writeFleet(t, []fleetLine{{ID: "good", Command: bin.good}})
	out := filepath.Join(t.TempDir(), "results.jsonl")
	r := mcpprobe(t, "survey", fleet, "--with", "bench,faults", "--with", "malformed", "--timeout", secs(time.Second),
		"--per-server-timeout", secs(60*time.Second), "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	v := surveyLines(t, out)["good"]
	for _, k := range []string{"bench", "faults", "malformed"} {
		if !v.Get("survey." + k).IsObject() {
			t.Errorf("no %s section: %s", k, v.Get("survey.with_errors"))
		}
	}
}

// With other servers running, a daemon that left its server's group is
// still told apart (by the server's private TMPDIR in its environment):
// killed when its server stops, and a finding of that server alone.
func TestSurveyDaemonAttributed(t *testing.T) {
	t.Parallel()
	pf := pidFile(t)
	es := []fleetLine{{ID: "daemon", Command: bin.raw, Args: []string{"-escape", "-pidfile", pf}}}
	for i := range 3 {
		es = append(es, fleetLine{ID: fmt.Sprintf("busy%d", i), Command: bin.raw, Args: []string{"-slow-list", "1500ms"}})
	}
	out := filepath.Join(t.TempDir(), "results.jsonl")
	r := mcpprobe(t, append([]string{"survey", writeFleet(t, es), "--jobs", "4", "-o", out}, surveyBounds()...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recs := surveyLines(t, out)
	for id, v := range recs {
		if got, want := has(findingCodes(v), "escaped-processes"), id == "daemon"; got != want {
			t.Errorf("%s: escaped-processes %v, want %v: %s", id, got, want, v.Get("findings"))
		}
	}
	// The daemon was gone long before the busy servers ended.
	if d, b := recs["daemon"].Get("survey.timings.elapsed_ns").Int(), recs["busy0"].Get("survey.timings.elapsed_ns").Int(); d >= b {
		t.Errorf("the daemon's server took %v, a busy one %v", time.Duration(d), time.Duration(b))
	}
	noneLeft(t, pidsIn(t, pf))
}

// A hostile fleet under --jobs 8: servers that flood stdout (endless
// pages, a line with no end, notifications without end), one that starts
// a daemon, one that ignores SIGTERM and stdin closing, one with escape
// sequences in its tool names, one that never answers. The run ends within
// its bounds, in bounded memory (wait4's peak RSS), each failure explained
// in its three parts, and nothing left running.
func TestSurveyHostileFleet(t *testing.T) {
	// Not parallel: its floods hold both cores for seconds, long enough
	// to make the Node servers of the tests beside it miss their
	// start-up bound.
	pf := pidFile(t)
	raw := func(id string, args ...string) fleetLine {
		return fleetLine{ID: id, Command: bin.raw, Args: append(args, "-pidfile", pf)}
	}
	fleet := writeFleet(t, []fleetLine{
		raw("flood-pages-1", "-endless-pages", "2000000"),
		raw("flood-pages-2", "-endless-pages", "2000000"),
		raw("flood-line", "-line-no-newline", "300000000"),
		raw("flood-notify", "-flood-notifications"),
		raw("daemon", "-escape"),
		raw("sigterm", "-silent", "-ignore-sigterm", "-ignore-stdin-close"),
		raw("ansi", "-ansi-names"),
		raw("silent", "-silent"),
		{ID: "good", Command: bin.good},
		{ID: "good-2", Command: bin.good, Args: []string{"-page-size", "1"}},
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "results.jsonl")
	const perServer = 4 * time.Second
	r := rusageRun(t, "survey", fleet, "--jobs", "8", "-o", out, "--per-server-timeout", secs(perServer), "--startup-timeout", secs(2*time.Second), "--grace", "500ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Two waves of at most the per-server bound and two graces each, and
	// the time to start and write (bounded scales it with the load, as
	// the flags are).
	bounded(t, r, 2*(perServer+time.Second)+8*time.Second)
	noneLeft(t, pidsIn(t, pf))
	recs := surveyLines(t, out)
	if len(recs) != 10 {
		t.Fatalf("%d records, want 10", len(recs))
	}
	for id, v := range recs {
		f := v.Get("survey.failure")
		t.Logf("%s: %s %s", id, v.Get("survey.status"), f.Get("cause"))
		if !f.Exists() || f.Type == gjson.Null {
			continue
		}
		for _, k := range []string{"what", "received", "try"} {
			if s := f.Get(k).String(); s == "" || strings.Contains(s, "context deadline exceeded") {
				t.Errorf("%s: failure %s %q does not explain it", id, k, s)
			}
		}
	}
	// A server that never answers fails at --startup-timeout (no_answer),
	// or at the per-server bound when the machine is too busy to see the
	// first sooner; one that ignores SIGTERM too is killed all the same.
	for _, id := range []string{"silent", "sigterm"} {
		if got := recs[id].Get("survey.failure.cause").String(); got != "no_answer" && got != "timed_out" {
			t.Errorf("%s: cause %q, want no_answer or timed_out", id, got)
		}
	}
	for _, id := range []string{"good", "good-2", "ansi", "daemon"} {
		if recs[id].Get("survey.status").String() != "ok" {
			t.Errorf("%s: %s", id, recs[id].Get("survey").Raw)
		}
	}
	if !has(findingCodes(recs["daemon"]), "escaped-processes") {
		t.Errorf("the daemon is not a finding: %s", recs["daemon"].Get("findings"))
	}
	// The floods were stopped at survey's 8 MiB per server, not read to
	// the end (hundreds of MB) nor held in memory at launch's 256 MiB.
	for _, id := range []string{"flood-pages-1", "flood-pages-2", "flood-line"} {
		v := recs[id]
		if !has(findingCodes(v), "max-bytes") {
			t.Errorf("%s: no max-bytes finding: %s", id, v.Get("findings"))
		}
		if b := v.Get("survey.wire.tools.bytes").Int(); b > 8<<20 {
			t.Errorf("%s: %d bytes of tools kept, over 8 MiB", id, b)
		}
	}
	// The escapes are data in the JSON and never bytes a terminal obeys,
	// in the results or in the census.
	b, _ := os.ReadFile(out)
	if strings.ContainsRune(string(b), 0x1b) || !strings.Contains(string(b), `\u001b[2J`) {
		t.Errorf("results: raw ESC %v, escaped ESC %v", strings.ContainsRune(string(b), 0x1b), strings.Contains(string(b), `\u001b[2J`))
	}
	sum := mcpprobe(t, "survey", "summary", out)
	if sum.code != 0 || strings.ContainsRune(sum.stdout+sum.stderr, 0x1b) || strings.ContainsRune(sum.stdout, 0x7) {
		t.Errorf("summary: exit %d, raw escapes in it: %q", sum.code, sum.stdout)
	}
}

// A host config entry's tool lists reach the survey record: the tools
// left out are named, and what each host pays is what budget --config
// FILE NAME says it pays.
func TestSurveyConfigToolLists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "settings.json")
	q, _ := json.Marshal(bin.good)
	body := `{"mcpServers": {"good": {"command": ` + string(q) + `, "excludeTools": ["find_orders"]}}}`
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.jsonl")
	if r := mcpprobe(t, append([]string{"survey", cfg, "-o", out}, surveyBounds()...)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rec gjson.Result
	for id, v := range surveyLines(t, out) {
		if strings.HasSuffix(id, "settings.json#good") {
			rec = v
		}
	}
	if got := rec.Get("survey.budget.filtered_out").Raw; got != `["find_orders"]` {
		t.Errorf("filtered_out %s", got)
	}
	// find_orders is good's one cut on Claude Code: left out, no cut.
	if cc := rec.Get(`survey.budget.hosts.#(host=="claude-code")`); cc.Get("tools").Int() != 2 || cc.Get("cut").Int() != 0 {
		t.Errorf("claude-code counts the tool left out: %s", cc.Raw)
	}
	one := mcpprobe(t, "budget", "--config", cfg, "good", "--json")
	for _, id := range []string{"claude-code", "codex", "claude-ai"} {
		want := gjson.Get(one.stdout, `budget.tokens.by_host.#(host=="`+id+`")`)
		got := rec.Get(`survey.budget.hosts.#(host=="` + id + `")`)
		if got.Get("tokens").Int() == 0 || got.Get("tokens").Int() != want.Get("tokens").Int() || got.Get("if_loaded").Bool() != want.Get("if_loaded").Bool() {
			t.Errorf("%s: survey %s, budget %s", id, got.Raw, want.Raw)
		}
	}
	if n := rec.Get(`survey.budget.hosts.#(host=="claude-code").tokens`).Int(); n >= rec.Get("survey.budget.tokens").Int() {
		t.Errorf("claude-code pays %d without find_orders, not less than the %d of the whole list as sent", n, rec.Get("survey.budget.tokens").Int())
	}
}
