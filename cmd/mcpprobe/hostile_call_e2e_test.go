//go:build e2e

package main

// Hostile servers against call, read, prompt and report --call (issue 15):
// nothing a server does during a call may hang, crash, blow the memory of
// or fool mcpprobe. Each case asserts values: the exit code, the message,
// the finding codes, the peak resident set and generous elapsed bounds.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// hostileCall runs a one-request command with --json and returns the run
// and its section, the envelope checked against the schema.
//
// Without a --timeout of its own, the call gets the default 10 s scaled by
// the load: the hostile answers are large, and reading them is work a
// loaded machine does slowly.
func hostileCall(t *testing.T, code int, args ...string) (result, gjson.Result) {
	t.Helper()
	if !has(args, "--timeout") {
		args = append([]string{"--timeout", secs(10 * time.Second)}, args...)
	}
	r := mcpprobe(t, append([]string{"call", "--json"}, args...)...)
	if r.code != code {
		t.Fatalf("exit %d, want %d: %s\n%.800s", r.code, code, r.stderr, r.stdout)
	}
	if r.peakKB > maxRSSKB {
		t.Errorf("peak RSS %d KiB, over %d", r.peakKB, maxRSSKB)
	}
	return r, envelope(t, "call", r.stdout)
}

func wantCodes(t *testing.T, v gjson.Result, codes ...string) {
	t.Helper()
	got := findingCodes(v)
	for _, c := range codes {
		if !has(got, c) {
			t.Errorf("no %s finding: %v\n%s", c, got, v.Get("findings").Raw)
		}
	}
}

// lines counts the lines of s.
func lines(s string) int { return strings.Count(s, "\n") }

// A 64 MB text result under a raised --max-line is analysed within the
// memory bound, cut per host, and never echoed whole; over --max-line and
// over --max-bytes it is a clear message, with the memory still bounded.
func TestHostileCallHugeResult(t *testing.T) {
	t.Parallel()
	const size = 64 << 20
	r := probeRun(t, nil, nil, "call", "--max-line", "80000000", "--timeout", secs(40*time.Second), "call", "--", bin.raw, "-result-text", fmt.Sprint(size))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.hwmKB > maxRSSKB {
		t.Errorf("64 MB result: peak RSS %d KiB, over %d", r.hwmKB, maxRSSKB)
	}
	if len(r.stdout) > 64<<10 {
		t.Errorf("the text output is %d bytes: the result is echoed", len(r.stdout))
	}
	for _, want := range []string{"67,108,864 chars", "67,106,864 more chars not shown", "result-cut", "persisted", "truncated"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%.3000s", want, r.stdout)
		}
	}

	// Over --max-line (16 MiB by default): the line is refused as it is
	// read, never held whole.
	_, v := hostileCall(t, 0, "--timeout", secs(20*time.Second), "call", "--", bin.raw, "-result-text", "20000000")
	wantCodes(t, v, "call-unanswered")
	if u := v.Get("call.unanswered").String(); !strings.Contains(u, "line too long") || !strings.Contains(u, "--max-line") {
		t.Errorf("unanswered: %q", u)
	}
	// Over --max-bytes: the server is stopped there.
	_, v = hostileCall(t, 0, "--max-bytes", "2000000", "call", "--", bin.raw, "-result-text", "4000000")
	wantCodes(t, v, "call-unanswered", "max-bytes")
	if u := v.Get("call.unanswered").String(); !strings.Contains(u, "--max-bytes") {
		t.Errorf("unanswered: %q", u)
	}
	// Gated: an unanswered call trips --fail-on warning.
	if r := mcpprobe(t, "call", "--fail-on", "warning", "--max-bytes", "2000000", "call", "--", bin.raw, "-result-text", "4000000"); r.code != 1 {
		t.Errorf("--fail-on warning: exit %d", r.code)
	}
}

// Base64: tens of MB decoded and checked, never printed; invalid base64
// and an image/png holding text are findings.
func TestHostileCallBase64(t *testing.T) {
	t.Parallel()
	r := probeRun(t, nil, nil, "call", "--max-line", "80000000", "--timeout", secs(40*time.Second), "call", "--", bin.raw, "-result-base64", "30000000")
	if r.code != 0 || r.hwmKB > maxRSSKB {
		t.Fatalf("exit %d, peak RSS %d KiB: %s", r.code, r.hwmKB, r.stderr)
	}
	if len(r.stdout) > 64<<10 || !strings.Contains(r.stdout, "30,000,000 bytes") || !strings.Contains(r.stdout, "(not shown)") {
		t.Errorf("%d bytes of text:\n%.2000s", len(r.stdout), r.stdout)
	}
	_, v := hostileCall(t, 0, "call", "--", bin.raw, "-result-bad-base64")
	wantCodes(t, v, "invalid-base64")
	_, v = hostileCall(t, 0, "call", "--", bin.raw, "-result-png-text")
	wantCodes(t, v, "mime-mismatch")
	if f := v.Get(`findings.#(code=="mime-mismatch").message`).String(); !strings.Contains(f, "text/plain") {
		t.Errorf("mime-mismatch: %q", f)
	}
}

// structuredContent 100,000 deep is refused as unwalkable, and no host's
// delivery pretends to know its size; a $ref fan-out outputSchema is
// abandoned at its time bound; a schema of 20 MB is not compiled, and one
// of 50 MB passes what a session keeps: exit 3, said so.
func TestHostileCallStructuredAndSchemas(t *testing.T) {
	t.Parallel()
	// The raw result is embedded as sent, as wire embeds a deep schema:
	// valid JSON, deeper than the schema validator's parser takes, so it
	// is read with gjson here.
	dr := mcpprobe(t, "call", "--json", "--timeout", secs(10*time.Second), "call", "--", bin.raw, "-result-deep", "100000")
	if dr.code != 0 || !gjson.Valid(dr.stdout) || dr.took > bound(20*time.Second) || dr.peakKB > maxRSSKB {
		t.Fatalf("deep: exit %d in %v, %d KiB, valid JSON %v: %s", dr.code, dr.took, dr.peakKB, gjson.Valid(dr.stdout), dr.stderr)
	}
	v := gjson.Parse(dr.stdout)
	wantCodes(t, v, "result-malformed")
	if got := len(v.Get("call.result").Raw); got != 200_070 {
		t.Errorf("the raw result is %d bytes, not the server's 200,070", got)
	}
	for _, d := range v.Get("call.deliveries").Array() {
		if d.Get("outcome").String() != "unknown" || !strings.Contains(d.Get("note").String(), "could not be analysed") {
			t.Errorf("delivery of an unwalkable result: %s", d.Raw)
		}
	}

	r, v2 := hostileCall(t, 0, "--timeout", secs(30*time.Second), "call", "--", bin.raw, "-schema-fanout", "40")
	v = v2
	wantCodes(t, v, "structured-unchecked")
	if m := v.Get(`findings.#(code=="structured-unchecked").message`).String(); !strings.Contains(m, "abandoned") {
		t.Errorf("fan-out: %q", m)
	}
	if r.took > bound(20*time.Second) {
		t.Errorf("a $ref fan-out took %v", r.took)
	}

	_, v = hostileCall(t, 0, "--max-line", "80000000", "call", "--", bin.raw, "-schema-bytes", "20000000")
	wantCodes(t, v, "structured-unchecked")
	if m := v.Get(`findings.#(code=="structured-unchecked").message`).String(); !strings.Contains(m, "over 1048576") {
		t.Errorf("20 MB schema: %q", m)
	}

	r = mcpprobe(t, "call", "--max-line", "80000000", "--timeout", secs(10*time.Second), "call", "--", bin.raw, "-schema-bytes", "50000000")
	if r.code != 3 || !strings.Contains(r.stderr, "tools/list failed") || !strings.Contains(r.stderr, "keep budget") {
		t.Errorf("50 MB schema: exit %d: %s", r.code, r.stderr)
	}
	if r.peakKB > maxRSSKB {
		t.Errorf("50 MB schema: peak RSS %d KiB", r.peakKB)
	}
}

// serverEscapes are the sequences -call-escapes plants: a screen clear,
// a window title (OSC) and a bidi override.
var serverEscapes = []string{"\x1b[2J", "\x1b]0;", "\u202e", "\x07"}

func rawEscapes(s string) []string {
	var found []string
	for _, e := range serverEscapes {
		if strings.Contains(s, e) {
			found = append(found, fmt.Sprintf("%q", e))
		}
	}
	return found
}

// Escapes in the result's text, a resource_link's URI, progress and task
// status messages and tool names reach a terminal neutralised, and a
// report's markdown inert (linted by TestMain, no raw ESC).
func TestHostileCallEscapes(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"call", "--progress", "call", "--", bin.raw, "-call-escapes"},
		{"call", "--task", "research", "--", bin.raw, "-tasks", "good", "-call-escapes"},
		{"call", "nope", "--", bin.raw, "-call-escapes"},
		{"read", "file:///tmp/x", "--", bin.raw, "-call-escapes"},
	} {
		tty, other, code := onTerminal(t, 120, false, nil, args...)
		if found := rawEscapes(tty + other); len(found) > 0 {
			t.Errorf("%v: raw %v on the terminal:\n%s", args, found, tty)
		}
		if args[1] == "nope" {
			if code != 2 || !strings.Contains(other, `evil\x1b[2J\u202e`) {
				t.Errorf("unknown tool: exit %d: %q", code, other)
			}
			continue
		}
		if code != 0 || !strings.Contains(tty, `\x1b[2J`) {
			t.Errorf("%v: exit %d, escapes not shown escaped:\n%s", args, code, tty)
		}
	}
	r := mcpprobe(t, "report", "--call", "call={}", "--", bin.raw, "-call-escapes")
	if r.code != 0 || !strings.Contains(r.stdout, "## Calls") {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	if strings.ContainsRune(r.stdout, 0x1b) || len(rawEscapes(r.stdout)) > 0 {
		t.Errorf("raw escapes in the report: %v", rawEscapes(r.stdout))
	}
	r = mcpprobe(t, "call", "--view", "claude-code", "call", "--", bin.raw, "-call-escapes")
	if r.code != 0 || strings.ContainsRune(r.stdout, 0x1b) || len(rawEscapes(r.stdout)) > 0 {
		t.Errorf("--view: exit %d, raw %v", r.code, rawEscapes(r.stdout))
	}
	// A call never answered, in a report: bounded by --timeout, said so.
	r = mcpprobe(t, "report", "--timeout", "2s", "--call", "call={}", "--", bin.raw, "-call-silent")
	if r.code != 0 || !strings.Contains(r.stdout, "## Calls") || r.took > bound(15*time.Second) {
		t.Errorf("report, silent call: exit %d in %v: %s", r.code, r.took, r.stderr)
	}
}

// A million progress notifications in a second: counted, the first
// 10,000 kept, the text bounded, the memory bounded. A huge message is
// clipped; foreign, tokenless and non-numeric progress are findings.
func TestHostileCallProgress(t *testing.T) {
	t.Parallel()
	r, v := hostileCall(t, 0, "--progress", "--timeout", secs(40*time.Second), "call", "--", bin.raw, "-progress-flood", "1000000")
	c := v.Get("call")
	if !c.Get("completed").Bool() || c.Get("progress_seen").Int() != 1_000_000 || c.Get("progress.#").Int() > 10_000 {
		t.Errorf("completed %v, progress_seen %d, kept %d", c.Get("completed").Bool(), c.Get("progress_seen").Int(), c.Get("progress.#").Int())
	}
	wantCodes(t, v, "capture-capped")
	if r.took > bound(40*time.Second) {
		t.Errorf("took %v", r.took)
	}
	tr := probeRun(t, nil, nil, "call", "--progress", "--timeout", secs(40*time.Second), "call", "--", bin.raw, "-progress-flood", "1000000")
	if tr.code != 0 || lines(tr.stdout) > 300 || !strings.Contains(tr.stdout, "kept of 1,000,000 read") || !strings.Contains(tr.stdout, "9,950 more not shown") {
		t.Errorf("text: exit %d, %d lines:\n%.3000s", tr.code, lines(tr.stdout), tr.stdout)
	}
	if tr.hwmKB > maxRSSKB {
		t.Errorf("progress flood: peak RSS %d KiB", tr.hwmKB)
	}

	// A 10 MB message: kept in --json as sent, clipped in the text.
	tr = probeRun(t, nil, nil, "call", "--progress", "--timeout", secs(10*time.Second), "call", "--", bin.raw, "-progress-huge", "10000000")
	if tr.code != 0 || len(tr.stdout) > 64<<10 || !strings.Contains(tr.stdout, "mmm…") {
		t.Errorf("huge progress message: exit %d, %d bytes of text", tr.code, len(tr.stdout))
	}
	// Past --max-line: the call is unanswered, said so.
	_, v = hostileCall(t, 0, "--progress", "call", "--", bin.raw, "-progress-huge", "20000000")
	if u := v.Get("call.unanswered").String(); !strings.Contains(u, "line too long") {
		t.Errorf("unanswered: %q", u)
	}

	// A flood that goes on past what the session keeps: the timeline
	// ends where the kept part does, and a policy whose timer would fire
	// past it is inconclusive, not "would time out" for want of the
	// progress that was counted and dropped.
	_, v = hostileCall(t, 0, "--progress", "--policy", "mine=timeout:500ms,reset-on-progress", "--timeout", secs(20*time.Second), "call", "--", bin.raw, "-call-progress", "2500ms", "-progress-batch", "1000", "-progress-batches", "25")
	if seen, kept := v.Get("call.progress_seen").Int(), v.Get("call.progress.#").Int(); seen != 25_000 || kept == 0 || kept > 10_000 {
		t.Errorf("progress seen %d, kept %d", seen, kept)
	}
	if vd := v.Get(`call.verdicts.#(policy.name=="mine")`); vd.Get("outcome").String() != "inconclusive" || !strings.Contains(vd.Get("why").String(), "counted, not kept") {
		t.Errorf("verdict past the kept timeline: %s", vd.Raw)
	}
	if has(findingCodes(v), "progress-gap") || has(findingCodes(v), "would-time-out") {
		t.Errorf("a silence judged where nothing was kept: %v", findingCodes(v))
	}

	_, v = hostileCall(t, 0, "--progress", "call", "--", bin.raw, "-progress-odd")
	wantCodes(t, v, "progress-unknown-token", "progress-invalid")
	if has(findingCodes(v), "progress-not-monotonic") {
		t.Errorf("non-numeric progress read as a decrease: %s", v.Get("findings").Raw)
	}
	if inv := v.Get("call.progress.2.invalid").String(); !strings.Contains(inv, `"half"`) {
		t.Errorf("progress[2].invalid = %q", inv)
	}
}

// A flood of server requests during a call, from a server that does not
// read its stdin while it sends them: the response behind the flood is
// still read, with and without the answer policies; at most 1,000 are
// answered. A sampling request for 10^12 tokens gets the reply text.
func TestHostileCallServerRequests(t *testing.T) {
	t.Parallel()
	for _, policy := range [][]string{nil, {"--elicit", "decline", "--sampling-reply", "hi", "--root", "file:///tmp"}} {
		args := append(append([]string{"--timeout", secs(20 * time.Second)}, policy...), "call", "--", bin.raw, "-request-flood", "30000")
		r, v := hostileCall(t, 0, args...)
		c := v.Get("call")
		if !c.Get("completed").Bool() {
			t.Errorf("%v: the response behind the flood was not read: %s", policy, c.Get("unanswered").String())
		}
		wantCodes(t, v, "server-request")
		if r.took > bound(20*time.Second) {
			t.Errorf("%v: took %v", policy, r.took)
		}
		if policy != nil && !strings.Contains(c.Get(`events.#(method=="sampling/createMessage").answer`).String(), "--sampling-reply") {
			t.Errorf("sampling answer: %s", c.Get(`events.#(method=="sampling/createMessage")`).Raw)
		}
	}
	_, v := hostileCall(t, 0, "--sampling-reply", "short", "call", "--", bin.raw, "-sampling-huge")
	if e := v.Get(`call.events.#(method=="sampling/createMessage")`); !strings.Contains(e.Get("answer").String(), "--sampling-reply") || !v.Get("call.completed").Bool() {
		t.Errorf("sampling-huge: %s", e.Raw)
	}
}

// Tasks: poll intervals of 0, negative and 10^12 ms are shown as sent and
// held between 50 ms and 5 s; a terminal status that flips back is a
// finding; tasks/get or tasks/result that never answer end at --timeout;
// a 1 MB task id is clipped wherever it is quoted.
func TestHostileCallTasks(t *testing.T) {
	t.Parallel()
	task := func(code int, extra []string, flags ...string) (result, gjson.Result) {
		t.Helper()
		return hostileCall(t, code, append(append([]string{"--task"}, extra...), append([]string{"research", "--", bin.raw, "-tasks"}, flags...)...)...)
	}
	for _, poll := range []string{"0", "-5"} {
		r, v := task(0, nil, "good", "-task-poll", poll)
		tk := v.Get("call.task")
		if !v.Get("call.completed").Bool() || tk.Get("final_status").String() != "completed" {
			t.Errorf("pollInterval %s: %s", poll, tk.Raw)
		}
		if got := tk.Get("polls.0.poll_interval_ms").Raw; got != poll {
			t.Errorf("pollInterval %s shown as %s", poll, got)
		}
		// Three tasks/get at no less than 50 ms apart.
		if r.took < 140*time.Millisecond || tk.Get("polls.3.at_ns").Int() < 140_000_000 {
			t.Errorf("pollInterval %s: polled faster than 50 ms: %s", poll, tk.Get("polls").Raw)
		}
	}
	r, v := task(0, []string{"--timeout", "3s"}, "good", "-task-poll", "1000000000000")
	wantCodes(t, v, "task-not-terminal")
	if n := len(v.Get(`call.task.polls.#(method=="tasks/get")#`).Array()); n != 1 || r.took > bound(10*time.Second) {
		t.Errorf("pollInterval 10^12: %d tasks/get in %v", n, r.took)
	}
	_, v = task(0, nil, "reopen")
	wantCodes(t, v, "task-forbidden-transition")
	r, v = task(0, []string{"--timeout", "2s"}, "get-silent")
	wantCodes(t, v, "task-not-terminal")
	if r.took < 1500*time.Millisecond || r.took > bound(10*time.Second) {
		t.Errorf("get-silent took %v", r.took)
	}
	r, v = task(0, []string{"--timeout", "2s"}, "result-silent")
	if m := v.Get(`findings.#(code=="task-not-terminal").message`).String(); !strings.Contains(m, "tasks/result") || r.took > bound(10*time.Second) {
		t.Errorf("result-silent (%v): %q", r.took, m)
	}
	if v.Get("call.completed").Bool() {
		t.Errorf("result-silent completed")
	}

	tr := probeRun(t, nil, nil, "call", "--task", "--timeout", secs(10*time.Second), "research", "--", bin.raw, "-tasks", "reopen", "-task-id-len", "1048576")
	if tr.code != 0 || len(tr.stdout) > 64<<10 || tr.hwmKB > maxRSSKB {
		t.Errorf("1 MB task id: exit %d, %d bytes of text, %d KiB", tr.code, len(tr.stdout), tr.hwmKB)
	}
	if !strings.Contains(tr.stdout, "task-forbidden-transition") || !strings.Contains(tr.stdout, "xxxx…") {
		t.Errorf("1 MB task id, text:\n%.3000s", tr.stdout)
	}
}

// The server exits, closes stdout, answers twice, answers with the wrong
// id or never answers: each ends within --timeout (or at once), exit 0
// with a warning finding (exit 1 under --fail-on warning), said so.
func TestHostileCallAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag       string
		codes      []string
		unanswered string
		min, max   time.Duration
	}{
		{"-call-exit", []string{"call-unanswered", "exited-early"}, "stream ended", 0, 5 * time.Second},
		{"-call-close-stdout", []string{"call-unanswered", "exited-early"}, "stream ended", 0, 5 * time.Second},
		{"-call-wrong-id", []string{"call-unanswered", "unknown-id"}, "no response within 2s", 2 * time.Second, 10 * time.Second},
		{"-call-silent", []string{"call-unanswered"}, "no response within 2s", 2 * time.Second, 10 * time.Second},
	} {
		r, v := hostileCall(t, 0, "--timeout", "2s", "call", "--", bin.raw, tc.flag)
		wantCodes(t, v, tc.codes...)
		if u := v.Get("call.unanswered").String(); !strings.Contains(u, tc.unanswered) || v.Get("call.completed").Bool() {
			t.Errorf("%s: unanswered %q", tc.flag, u)
		}
		m := v.Get(`findings.#(code=="exited-early").message`).String()
		if tc.flag == "-call-close-stdout" && !strings.Contains(m, "closed its stdout") {
			t.Errorf("closed stdout, kept running: %q", m)
		}
		if tc.flag == "-call-exit" && !strings.Contains(m, "exited on its own during the probe (exit status 1)") {
			t.Errorf("exited: %q", m)
		}
		if r.took < tc.min || r.took > bound(tc.max) {
			t.Errorf("%s took %v, want %v to %v", tc.flag, r.took, tc.min, tc.max)
		}
		if f := mcpprobe(t, "call", "--fail-on", "warning", "--timeout", "2s", "call", "--", bin.raw, tc.flag); f.code != 1 || !strings.Contains(f.stderr, "--fail-on tripped: warning") {
			t.Errorf("%s --fail-on warning: exit %d: %s", tc.flag, f.code, f.stderr)
		}
	}
	_, v := hostileCall(t, 0, "call", "--", bin.raw, "-call-twice")
	wantCodes(t, v, "unknown-id")
	c := v.Get("call")
	if !c.Get("completed").Bool() || !strings.Contains(c.Get("result").Raw, `"ok"`) {
		t.Errorf("the first answer is not the result: %s", c.Get("result").Raw)
	}
	if n := c.Get(`events.#(kind=="unknown_id").note`).String(); !strings.Contains(n, "a second response to the call") {
		t.Errorf("second answer: %q", n)
	}
}

// --cancel-after on a server that ignores the cancellation (its progress
// goes on, its result still comes) and on one that dies of it.
func TestHostileCallCancel(t *testing.T) {
	t.Parallel()
	r, v := hostileCall(t, 0, "--progress", "--cancel-after", "300ms", "--timeout", "10s", "call", "--", bin.raw, "-call-progress", "6s")
	cn := v.Get("call.cancel")
	wantCodes(t, v, "cancel-progress-goes-on")
	if cn.Get("outcome").String() != "went on" || !cn.Get("healthy").Bool() || cn.Get("progress_after").Int() < 10 {
		t.Errorf("ignored: %s", cn.Raw)
	}
	if r.took > bound(15*time.Second) {
		t.Errorf("ignored: took %v", r.took)
	}
	_, v = hostileCall(t, 0, "--progress", "--cancel-after", "300ms", "--timeout", "10s", "call", "--", bin.raw, "-call-progress", "1500ms")
	wantCodes(t, v, "cancel-result-after")
	if cn := v.Get("call.cancel"); cn.Get("outcome").String() != "result" || !cn.Get("healthy").Bool() {
		t.Errorf("late result: %s", cn.Raw)
	}
	r, v = hostileCall(t, 0, "--progress", "--cancel-after", "300ms", "--timeout", "10s", "call", "--", bin.raw, "-call-progress", "6s", "-cancel-die")
	cn = v.Get("call.cancel")
	wantCodes(t, v, "cancel-session-unusable")
	if cn.Get("outcome").String() != "ended" || cn.Get("healthy").Bool() || cn.Get("ended_ns").Int() > int64(bound(2*time.Second)) {
		t.Errorf("died: %s", cn.Raw)
	}
	if r.took > bound(5*time.Second) {
		t.Errorf("died: took %v, as if it waited for a server that is gone", r.took)
	}
	tr := mcpprobe(t, "call", "--progress", "--cancel-after", "300ms", "call", "--", bin.raw, "-call-progress", "6s", "-cancel-die")
	if !strings.Contains(tr.stdout, "The server's stream ended") || !strings.Contains(tr.stdout, "NOT usable") {
		t.Errorf("died, text:\n%s", tr.stdout)
	}
}

// hostileHTTP is a Streamable HTTP server whose tools/call answer is
// huge (size bytes of text in one JSON body) or never comes (size < 0).
func hostileHTTP(t *testing.T, size int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg := gjson.ParseBytes(body)
		id := msg.Get("id").Raw
		reply := func(res string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
		}
		switch msg.Get("method").String() {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "hostile-1")
			reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`)
		case "tools/list":
			reply(`{"tools":[{"name":"call","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			if size < 0 {
				<-r.Context().Done()
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
			chunk := strings.Repeat("0123456789abcdef", 4096)
			for n := 0; n < size; n += len(chunk) {
				_, _ = io.WriteString(w, chunk[:min(len(chunk), size-n)])
			}
			_, _ = io.WriteString(w, `"}]}}`)
		case "":
			w.WriteHeader(http.StatusAccepted)
		default:
			if msg.Get("id").Exists() {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
				return
			}
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// The same through Streamable HTTP: a 64 MB result (bounded memory, no
// echo), one past --max-line, and a call never answered.
func TestHostileCallHTTP(t *testing.T) {
	t.Parallel()
	tr := probeRun(t, nil, nil, "call", "--max-line", "80000000", "--timeout", secs(40*time.Second), hostileHTTP(t, 64<<20), "call")
	if tr.code != 0 || tr.hwmKB > maxRSSKB || len(tr.stdout) > 64<<10 || !strings.Contains(tr.stdout, "67,108,864 chars") {
		t.Errorf("64 MB over HTTP: exit %d, peak %d KiB, %d bytes of text: %s\n%.2000s", tr.code, tr.hwmKB, len(tr.stdout), tr.stderr, tr.stdout)
	}
	_, v := hostileCall(t, 0, "--timeout", secs(20*time.Second), hostileHTTP(t, 20_000_000), "call")
	wantCodes(t, v, "call-unanswered")
	if u := v.Get("call.unanswered").String(); !strings.Contains(u, "--max-line") {
		t.Errorf("over --max-line over HTTP: %q", u)
	}
	r, v := hostileCall(t, 0, "--timeout", "2s", hostileHTTP(t, -1), "call")
	wantCodes(t, v, "call-unanswered")
	if r.took < 2*time.Second || r.took > bound(12*time.Second) {
		t.Errorf("never answered over HTTP: took %v", r.took)
	}
	if f := mcpprobe(t, "call", "--fail-on", "warning", "--timeout", "2s", hostileHTTP(t, -1), "call"); f.code != 1 {
		t.Errorf("--fail-on warning: exit %d", f.code)
	}
}
