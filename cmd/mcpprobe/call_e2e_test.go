//go:build e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// callJSON runs a one-request command with --json, checks its exit code
// and the schema, and returns its section.
func callJSON(t *testing.T, code int, command string, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{command, "--json"}, args...)...)
	if r.code != code {
		t.Fatalf("%s exit %d, want %d: %s\n%.600s", command, r.code, code, r.stderr, r.stdout)
	}
	return envelope(t, command, r.stdout)
}

func everything(t *testing.T) []string {
	return []string{"node", peer(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"}
}

// call on echo keeps the response byte for byte: --json embeds what the
// trace recorded, --save writes it, and an independent client that sends
// the same frames reads the same bytes from the server.
func TestCallEchoRawBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace, save := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "save")
	argv := everything(t)
	v := callJSON(t, 0, "call", append([]string{"--trace", trace, "--save", save, "--arg", "message=héllo, \u0007 wire", "echo", "--"}, argv...)...)
	c := v.Get("call")
	if !c.Get("completed").Bool() || c.Get("method").String() != "tools/call" {
		t.Fatalf("not completed: %.500s", c.Raw)
	}
	if got := gjson.Get(c.Get("arguments").Raw, "message").String(); got != "héllo, \u0007 wire" {
		t.Errorf("--arg with a comma: %q", got)
	}
	frames := readTrace(t, trace)
	id := c.Get("request_id").Raw
	var traced []byte
	for _, f := range frames {
		if m := gjson.Parse(f.Raw); f.Dir == "recv" && m.Get("id").Raw == id && !m.Get("method").Exists() {
			traced = f.bytes()
		}
	}
	if traced == nil {
		t.Fatalf("no response with id %s in the trace", id)
	}
	if got := c.Get("response").Raw; got != string(traced) {
		t.Errorf("--json response is not the traced frame:\njson:  %s\ntrace: %s", got, traced)
	}
	if got := gjson.GetBytes(traced, "result").Raw; c.Get("result").Raw != got {
		t.Errorf("--json result is not the frame's result member: %s", c.Get("result").Raw)
	}
	saved, err := os.ReadFile(filepath.Join(save, "response.json"))
	if err != nil || !bytes.Equal(saved, traced) {
		t.Errorf("--save response.json is not the traced frame (%v): %s", err, saved)
	}
	if req, _ := os.ReadFile(filepath.Join(save, "request.json")); gjson.GetBytes(req, "params.name").String() != "echo" {
		t.Errorf("--save request.json: %s", req)
	}
	assertSameAsReplay(t, argv, frames)
	if c.Get("timings.answered_ns").Int() <= 0 {
		t.Errorf("no answer time: %s", c.Get("timings").Raw)
	}
}

// The text shows the blocks with control characters neutralised.
func TestCallTextEscapes(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, append([]string{"call", "--args", `{"message":"bell \u0007 esc \u001b[31m red"}`, "echo", "--"}, everything(t)...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stdout, "\x07\x1b") {
		t.Errorf("a control character reached the terminal: %q", r.stdout)
	}
	if !strings.Contains(r.stdout, "content[0]") || !strings.Contains(r.stdout, "red") {
		t.Errorf("no block shown:\n%s", r.stdout)
	}
}

func TestCallLongRunningProgress(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", append([]string{"--progress", "--args", `{"duration":2,"steps":5}`, "trigger-long-running-operation", "--"}, everything(t)...)...)
	c := v.Get("call")
	ps := c.Get("progress").Array()
	if len(ps) != 5 {
		t.Fatalf("%d progress notifications, want 5: %s", len(ps), c.Get("progress").Raw)
	}
	var last int64
	for i, p := range ps {
		if !p.Get("ours").Bool() || p.Get("progress").Int() != int64(i+1) || p.Get("total").Int() != 5 {
			t.Errorf("progress %d: %s", i, p.Raw)
		}
		if at := p.Get("at_ns").Int(); at <= last {
			t.Errorf("progress %d not after the one before: %d ≤ %d", i, at, last)
		} else {
			last = at
		}
	}
	if ans := c.Get("timings.answered_ns").Int(); ans < last {
		t.Errorf("answered at %d, before the last progress %d", ans, last)
	}
	if c.Get("progress_token").String() == "" || gjson.Get(c.Get("request").Raw, "params._meta.progressToken").String() != c.Get("progress_token").String() {
		t.Errorf("the request did not carry the token: %s", c.Get("request").Raw)
	}
}

func TestCallStructuredAndImage(t *testing.T) {
	t.Parallel()
	se := everything(t)
	v := callJSON(t, 0, "call", append([]string{"--arg", "location=New York", "get-structured-content", "--"}, se...)...)
	if !v.Get("call.result.structuredContent").IsObject() {
		t.Errorf("no structuredContent: %s", v.Get("call.result").Raw)
	}
	if !gjson.Get(v.Get("call.arguments").Raw, "location").Exists() {
		t.Errorf("--arg did not make the arguments: %s", v.Get("call.arguments").Raw)
	}
	img := callJSON(t, 0, "call", append([]string{"get-tiny-image", "--"}, se...)...)
	found := false
	for _, b := range img.Get("call.result.content").Array() {
		found = found || (b.Get("type").String() == "image" && b.Get("mimeType").String() == "image/png")
	}
	if !found {
		t.Errorf("no image block: %s", img.Get("call.result").Raw)
	}
	r := mcpprobe(t, append([]string{"call", "get-tiny-image", "--"}, se...)...)
	data := img.Get("call.result.content.#(type==\"image\").data").String()
	if r.code != 0 || data == "" || strings.Contains(r.stdout, data[:40]) || !strings.Contains(r.stdout, "not shown") {
		t.Errorf("the text prints base64 or no image row (exit %d):\n%s", r.code, r.stdout)
	}
}

// --task follows simulate-research-query to its result; without it the
// required-task tool is a finding.
func TestCallTaskResearch(t *testing.T) {
	t.Parallel()
	se := everything(t)
	v := callJSON(t, 0, "call", append([]string{"--task", "--timeout", secs(20 * time.Second), "--args", `{"topic":"tides"}`, "simulate-research-query", "--"}, se...)...)
	tk := v.Get("call.task")
	if !tk.Get("terminal").Bool() || tk.Get("final_status").String() != "completed" || tk.Get("task_id").String() == "" {
		t.Fatalf("task not followed to its end: %s", tk.Raw)
	}
	polls := tk.Get("polls").Array()
	// tools/call, tasks/get…, tasks/result, then one tasks/get that
	// checks the terminal status stays put.
	if len(polls) < 4 || polls[0].Get("method").String() != "tools/call" || polls[len(polls)-2].Get("method").String() != "tasks/result" || polls[len(polls)-1].Get("status").String() != "completed" {
		t.Errorf("polls: %s", tk.Get("polls").Raw)
	}
	gets := 0
	for _, p := range polls {
		if p.Get("method").String() == "tasks/get" {
			gets++
		}
	}
	if gets < 2 {
		t.Errorf("%d tasks/get, want the server's pollInterval honoured over ~4 s", gets)
	}
	if !strings.Contains(v.Get("call.result.content.0.text").String(), "Research Report: tides") {
		t.Errorf("the result is not tasks/result's: %.300s", v.Get("call.result").Raw)
	}
	if !strings.Contains(v.Get("call.request").Raw, `"task":{"ttl":`) {
		t.Errorf("the request was not task-augmented: %s", v.Get("call.request").Raw)
	}
	plain := callJSON(t, 0, "call", append([]string{"--args", `{"topic":"tides"}`, "simulate-research-query", "--"}, se...)...)
	if !has(findingCodes(plain), "task-required-without-task") {
		t.Errorf("no task-required-without-task finding: %s", plain.Get("findings").Raw)
	}
}

// A call with progress every 100 ms for 2 s: under timeout:1s it would
// time out, with reset-on-progress it survives (the "done when");
// the first is a would-time-out finding.
func TestCallPolicies(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", "--progress", "--policy", "t=timeout:1s", "--policy", "r=timeout:1s,reset-on-progress",
		"--args", `{"interval_ms":100,"duration_ms":2000}`, "slow_progress", "--", bin.good, "-calls")
	c := v.Get("call")
	if n := len(c.Get("progress").Array()); n < 15 || n > 20 {
		t.Errorf("%d progress notifications, want about 20", n)
	}
	if d := c.Get("timings.answered_ns").Int(); d < 1_900_000_000 {
		t.Errorf("answered after %d ns, want about 2 s", d)
	}
	verdicts := map[string]string{}
	for _, vd := range c.Get("verdicts").Array() {
		verdicts[vd.Get("policy.name").String()] = vd.Get("outcome").String()
	}
	if !has(findingCodes(v), "would-time-out") {
		t.Errorf("no would-time-out finding: %s", v.Get("findings").Raw)
	}
	if _, split := verdicts["reset-on-progress"]; split {
		t.Errorf("--policy was split at its comma: %s", c.Get("verdicts").Raw)
	}
	for name, want := range map[string]string{"t": "would time out", "r": "survives"} {
		got, ok := verdicts[name]
		if !ok {
			t.Errorf("no verdict for --policy %s: %s", name, c.Get("verdicts").Raw)
			continue
		}
		if got != want {
			t.Errorf("policy %s: %q, want %q", name, got, want)
		}
	}
}

// --cancel-after on a Go SDK server, which cancels the handler's context:
// progress stops, and the SDK (v1.8.0) still answers, with an isError
// result "context canceled": a late result, counted. The session is
// still usable.
func TestCallCancelStops(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", "--progress", "--cancel-after", "500ms", "--args", `{"interval_ms":100,"duration_ms":5000}`, "slow_progress", "--", bin.good, "-calls")
	cn := v.Get("call.cancel")
	if cn.Get("via").String() != "notifications/cancelled" || cn.Get("progress_state").String() != "stopped" || !cn.Get("healthy").Bool() {
		t.Fatalf("cancel: %s", cn.Raw)
	}
	if cn.Get("progress_before").Int() < 2 || cn.Get("progress_after").Int() > 2 {
		t.Errorf("progress around the cancellation: %s", cn.Raw)
	}
	if late := v.Get("call.completed").Bool(); late != (cn.Get("outcome").String() == "result") || late != has(findingCodes(v), "cancel-result-after") {
		t.Errorf("a late result is not counted as one: %s", cn.Raw)
	}
	r := mcpprobe(t, "call", "--progress", "--cancel-after", "500ms", "--args", `{"interval_ms":100,"duration_ms":5000}`, "slow_progress", "--", bin.good, "-calls")
	if !strings.Contains(r.stdout, "Cancellation: notifications/cancelled sent") || !strings.Contains(r.stdout, "the session is usable") {
		t.Errorf("text:\n%s", r.stdout)
	}
}

// server-everything's long operation ignores the cancellation: its
// progress goes on, and that is reported, with when.
func TestCallCancelEverything(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", append([]string{"--progress", "--cancel-after", "1s", "--args", `{"duration":3,"steps":6}`, "trigger-long-running-operation", "--"}, everything(t)...)...)
	cn := v.Get("call.cancel")
	switch cn.Get("outcome").String() {
	case "went on":
		if cn.Get("progress_after").Int() == 0 || !has(findingCodes(v), "cancel-progress-goes-on") {
			t.Errorf("went on without progress after: %s", cn.Raw)
		}
	case "result":
		if !has(findingCodes(v), "cancel-result-after") {
			t.Errorf("late result without its finding: %s", v.Get("findings").Raw)
		}
	case "stopped":
	default:
		t.Errorf("cancel: %s", cn.Raw)
	}
	if !cn.Get("healthy").Bool() || cn.Get("health_method").String() != "ping" {
		t.Errorf("health: %s", cn.Raw)
	}
}

func TestCallBigText(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", "--args", `{"chars":120000}`, "big_text", "--", bin.good, "-calls")
	if n := len(v.Get("call.result.content.0.text").String()); n != 120000 {
		t.Errorf("text of %d chars, want 120000", n)
	}
	// The "done when": persisted or cut per host, with the
	// amount lost; a result under every cap, whole.
	for host, want := range map[string]string{"claude-code": "persisted", "codex": "truncated"} {
		d := v.Get(`call.deliveries.#(host=="` + host + `")`)
		if d.Get("outcome").String() != want || d.Get("lost").Int() <= 0 {
			t.Errorf("%s: %s", host, d.Raw)
		}
	}
	if !has(findingCodes(v), "result-cut") {
		t.Errorf("no result-cut finding: %s", v.Get("findings").Raw)
	}
	small := callJSON(t, 0, "call", "--arg", "id=A-1001", "order_total", "--", bin.good)
	for _, host := range []string{"claude-code", "codex"} {
		if d := small.Get(`call.deliveries.#(host=="` + host + `")`); d.Get("outcome").String() != "whole" || d.Get("lost").Int() != 0 {
			t.Errorf("a small result, %s: %s", host, d.Raw)
		}
	}
	r := mcpprobe(t, "call", "--arg", "chars=120000", "big_text", "--", bin.good, "-calls")
	if r.code != 0 || !strings.Contains(r.stdout, "118,000 more chars not shown") || len(r.stdout) > 20000 {
		t.Errorf("text not cut (exit %d, %d bytes): %.500s", r.code, len(r.stdout), r.stdout)
	}
}

func TestReadAndPrompt(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "read", bin.good, "orders://recent")
	if v.Get("read.result.contents.0.text").String() != "[]" || v.Get("read.method").String() != "resources/read" {
		t.Errorf("read: %s", v.Get("read").Raw)
	}
	p := callJSON(t, 0, "prompt", "--arg", "id=A-1001", bin.good, "summarize_order")
	if !strings.Contains(p.Get("prompt.result.messages.0.content.text").String(), "A-1001") {
		t.Errorf("prompt: %s", p.Get("prompt").Raw)
	}
	unknown := callJSON(t, 0, "read", bin.good, "nowhere://x")
	if !has(findingCodes(unknown), "call-rpc-error") || !unknown.Get("read.error.code").Exists() {
		t.Errorf("unknown URI: %s", unknown.Raw)
	}
	if r := mcpprobe(t, "read", "--fail-on", "info", bin.good, "nowhere://x"); r.code != 1 {
		t.Errorf("--fail-on info on an error answer: exit %d", r.code)
	}
}

func TestCallBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown tool", []string{"call", bin.good, "nope"}, 2, `no tool "nope"`},
		{"args not JSON", []string{"call", "--args", "{x", bin.good, "order_total"}, 2, "not a JSON object"},
		{"schema mismatch", []string{"call", "--args", `{"id":5}`, bin.good, "order_total"}, 2, "do not match"},
		{"arg without =", []string{"call", "--arg", "id", bin.good, "order_total"}, 2, "KEY=VALUE"},
		{"typed arg not JSON", []string{"call", "--arg", "chars=many", "big_text", "--", bin.good, "-calls"}, 2, "not JSON"},
		{"unknown prompt", []string{"prompt", bin.good, "nope"}, 2, `no prompt "nope"`},
		{"prompt missing argument", []string{"prompt", bin.good, "summarize_order"}, 2, "requires the argument"},
		{"no target", []string{"call", "echo"}, 2, "needs a target"},
		{"task on read", []string{"read", "--task", bin.good, "orders://recent"}, 2, "task"},
		{"bad elicit", []string{"call", "--elicit", "maybe", bin.good, "order_total"}, 2, "--elicit"},
		{"view with json", []string{"call", "--json", "--view", "claude-code", bin.good, "order_total"}, 2, "conflict"},
		{"cancel-after zero", []string{"call", "--cancel-after", "0s", bin.good, "order_total"}, 2, "--cancel-after"},
		{"no server", []string{"call", "x", "--", "/nonexistent/server"}, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpprobe(t, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr: %s", r.code, tc.code, r.stderr)
			}
		})
	}
	// --no-validate sends what the schema refuses: the server's answer
	// is the result.
	v := callJSON(t, 0, "call", "--no-validate", "--args", `{"id":5}`, bin.good, "order_total")
	if !v.Get("call.completed").Bool() {
		t.Errorf("--no-validate: %s", v.Get("call").Raw)
	}
}

// Server requests during a call are answered as the flags say, and only
// the capabilities enabled are declared.
func TestCallServerRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	se := everything(t)
	v := callJSON(t, 0, "call", append([]string{"--trace", trace, "--sampling-reply", "forty-two", "--args", `{"prompt":"q","maxTokens":10}`, "trigger-sampling-request", "--"}, se...)...)
	var req gjson.Result
	for _, e := range v.Get("call.events").Array() {
		if e.Get("kind").String() == "request" {
			req = e
		}
	}
	if req.Get("method").String() != "sampling/createMessage" || !strings.Contains(req.Get("answer").String(), "sampling-reply") {
		t.Fatalf("no sampling request answered: %s", v.Get("call.events").Raw)
	}
	if !strings.Contains(v.Get("call.result").Raw, "forty-two") {
		t.Errorf("the reply did not reach the tool: %s", v.Get("call.result").Raw)
	}
	for _, f := range readTrace(t, trace) {
		m := gjson.Parse(f.Raw)
		if f.Dir == "send" && m.Get("method").String() == "initialize" {
			caps := m.Get("params.capabilities")
			// elicitation is declared without --elicit too: a form is
			// accepted with its defaults (call_elicit_e2e_test.go).
			if !caps.Get("sampling").Exists() || !caps.Get("elicitation").Exists() || caps.Get("roots").Exists() {
				t.Errorf("declared capabilities: %s", caps.Raw)
			}
		}
	}
	// Without the flag no sampling capability is declared, and
	// server-everything does not even offer the tool.
	if r := mcpprobe(t, append([]string{"call", "--args", `{"prompt":"q"}`, "trigger-sampling-request", "--"}, se...)...); r.code != 2 || !strings.Contains(r.stderr, "no tool") {
		t.Errorf("without --sampling-reply: exit %d, %s", r.code, r.stderr)
	}
}

// report --call adds a Calls section that is the same for the same
// server answers, and its calls to --json.
func TestReportCalls(t *testing.T) {
	t.Parallel()
	args := []string{"report", "--date", "2026-12-02", "--call", `order_total={"id":"A-1001"}`, "--call", "tiny_image", "--call", `big_text={"chars":120000}`, "--", bin.good, "-calls"}
	a, b := mcpprobe(t, args...), mcpprobe(t, args...)
	if a.code != 0 || b.code != 0 {
		t.Fatalf("exit %d, %d: %s", a.code, b.code, a.stderr)
	}
	if a.stdout != b.stdout {
		t.Errorf("two reports of the same server differ")
	}
	for _, want := range []string{"## Calls", "`{\"id\":\"A-1001\"}`", "| `big_text`", "120,153"} {
		if !strings.Contains(a.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, a.stdout[strings.Index(a.stdout, "## Calls"):])
		}
	}
	v := envelope(t, "report", mcpprobe(t, append([]string{"report", "--json"}, args[1:]...)...).stdout)
	if n := len(v.Get("report.calls").Array()); n != 3 || v.Get("report.calls.2.result.content.0.text").String() == "" {
		t.Errorf("report --json calls: %d", n)
	}
	for _, bad := range [][]string{{"--call", "=x"}, {"--call", "order_total={x"}, {"--call", "nope"}} {
		if r := mcpprobe(t, append(append([]string{"report"}, bad...), bin.good)...); r.code != 2 {
			t.Errorf("report %q: exit %d: %s", bad, r.code, r.stderr)
		}
	}
}

// rawserver -tasks: a task followed at the server's pollInterval, one
// that never ends, one that leaves a terminal status, a required-task
// tool called without a task, and a task cancelled.
func TestCallTasksRawServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		final  string
		codes  []string
		nocode string
	}{
		{"followed to its result", []string{"--task", "-tasks", "good"}, "completed", nil, "task-forbidden-transition"},
		{"never ends", []string{"--task", "--timeout", "1s", "-tasks", "never"}, "working", []string{"task-not-terminal"}, ""},
		{"leaves completed", []string{"--task", "-tasks", "reopen"}, "working", []string{"task-forbidden-transition"}, ""},
		{"required, refused as it MUST", []string{"-tasks", "good"}, "", []string{"task-required-without-task", "call-rpc-error"}, ""},
		{"required, run anyway", []string{"-tasks", "plain"}, "", []string{"task-required-without-task"}, ""},
		{"cancelled", []string{"--task", "--cancel-after", "60ms", "--timeout", "2s", "-tasks", "never"}, "cancelled", nil, "task-not-terminal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ours, server []string
			for i, a := range tc.args {
				if a == "-tasks" {
					ours, server = tc.args[:i], tc.args[i:]
					break
				}
			}
			v := callJSON(t, 0, "call", append(append(append(ours, "--arg", "topic=tides", "research", "--"), bin.raw), server...)...)
			codes := findingCodes(v)
			for _, c := range tc.codes {
				if !has(codes, c) {
					t.Errorf("no %s: %v", c, codes)
				}
			}
			if tc.nocode != "" && has(codes, tc.nocode) {
				t.Errorf("unexpected %s: %s", tc.nocode, v.Get("findings").Raw)
			}
			tk := v.Get("call.task")
			if tc.final == "" {
				if tk.Type != gjson.Null {
					t.Errorf("a task without --task: %s", tk.Raw)
				}
				return
			}
			if got := tk.Get("final_status").String(); got != tc.final {
				t.Errorf("final status %q, want %q: %s", got, tc.final, tk.Get("polls").Raw)
			}
			if tc.final == "completed" {
				if !strings.Contains(v.Get("call.result.content.0.text").String(), "research report for task-1") {
					t.Errorf("result: %s", v.Get("call.result").Raw)
				}
				polls := tk.Get("polls.#.at_ns").Array()
				// pollInterval 50 ms, honoured: each tasks/get at least
				// about that long after the one before.
				for i := 2; i < 4 && i < len(polls); i++ {
					if d := polls[i].Int() - polls[i-1].Int(); d < 40_000_000 {
						t.Errorf("poll %d only %d ns after the one before", i, d)
					}
				}
			}
			if tc.final == "cancelled" && v.Get("call.cancel.via").String() != "tasks/cancel" {
				t.Errorf("cancel: %s", v.Get("call.cancel").Raw)
			}
		})
	}
}

// --elicit and --root answer the server as told.
func TestCallElicitAndRoots(t *testing.T) {
	t.Parallel()
	se := everything(t)
	v := callJSON(t, 0, "call", append([]string{"--elicit", `accept={"name":"Ada"}`, "trigger-elicitation-request", "--"}, se...)...)
	if !strings.Contains(v.Get("call.result").Raw, "Ada") {
		t.Errorf("the accepted content did not reach the tool: %s", v.Get("call.result").Raw)
	}
	if e := v.Get(`call.events.#(method=="elicitation/create")`); !strings.Contains(e.Get("answer").String(), "accept") {
		t.Errorf("elicitation event: %s", v.Get("call.events").Raw)
	}
	d := callJSON(t, 0, "call", append([]string{"--elicit", "decline", "trigger-elicitation-request", "--"}, se...)...)
	if !strings.Contains(strings.ToLower(d.Get("call.result").Raw), "decline") {
		t.Errorf("decline: %s", d.Get("call.result").Raw)
	}
	r := callJSON(t, 0, "call", append([]string{"--root", "file:///tmp/proj,a", "--root", "file:///srv", "get-roots-list", "--"}, se...)...)
	if res := r.Get("call.result").Raw; !strings.Contains(res, "file:///tmp/proj,a") || !strings.Contains(res, "file:///srv") {
		t.Errorf("roots: %s", res)
	}
}

// --view prints, as markdown, what one host reads of the result (or says
// no rule is known); the e2e lint checks it.
func TestCallView(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "call", "--view", "claude-code", "--arg", "chars=120000", "big_text", "--", bin.good, "-calls")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# ") || !strings.Contains(r.stdout, "`big_text`") {
		t.Errorf("exit %d:\n%.600s", r.code, r.stdout)
	}
	if r := mcpprobe(t, "call", "--view", "nohost", bin.good, "order_total"); r.code != 2 {
		t.Errorf("--view of an unknown host: exit %d", r.code)
	}
}

// Over Streamable HTTP the progress comes on the call's SSE stream, and
// --cancel-after counts from the request's sending.
func TestCallHTTP(t *testing.T) {
	t.Parallel()
	line := startHTTPServer(t, nil, "listening on", bin.good, "-calls", "-http", "127.0.0.1:0")
	url := line[strings.Index(line, "http://"):]
	v := callJSON(t, 0, "call", "--progress", "--cancel-after", "500ms", "--args", `{"interval_ms":100,"duration_ms":3000}`, url, "slow_progress")
	c := v.Get("call")
	if n := len(c.Get("progress").Array()); n < 3 {
		t.Errorf("%d progress notifications over HTTP", n)
	}
	// A timer of 500 ms, then the work of sending: only the work is
	// slower on a loaded machine.
	if at := c.Get("cancel.at_ns").Int(); at < 500_000_000 || at > int64(500*time.Millisecond+bound(150*time.Millisecond)) {
		t.Errorf("cancelled at %d ns, want about 500 ms after sending", at)
	}
	if !c.Get("cancel.healthy").Bool() {
		t.Errorf("cancel: %s", c.Get("cancel").Raw)
	}
}

// A log line a tool writes on stdout while it runs is a finding of the
// call: it breaks clients.
func TestCallStdoutNoise(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", "--arg", "q=1", "alpha", "--", bin.raw, "-log-between-calls", "-call-sleep", "100ms")
	if !has(findingCodes(v), "stdout-noise") && !strings.Contains(v.Get("findings").Raw, "handled alpha") {
		t.Errorf("no stdout-noise: %s", v.Get("findings").Raw)
	}
}

// structuredContent that fails the tool's own outputSchema: each
// violation with its path, in --json and in the text.
func TestCallStructuredInvalid(t *testing.T) {
	t.Parallel()
	v := callJSON(t, 0, "call", "bad_structured", "--", bin.good, "-calls")
	if !has(findingCodes(v), "structured-invalid") || v.Get("call.analysis.structured.violations.0.path").String() != "/count" {
		t.Errorf("analysis: %s\nfindings: %s", v.Get("call.analysis").Raw, v.Get("findings").Raw)
	}
	r := mcpprobe(t, "call", "bad_structured", "--", bin.good, "-calls")
	if !strings.Contains(r.stdout, "outputSchema violation at /count") || !strings.Contains(r.stdout, "1 outputSchema violation") {
		t.Errorf("text:\n%s", r.stdout)
	}
}

// TestCallInputRequired: a 2026-07-28 tool that answers input_required is
// retried with inputResponses and the requestState echoed, answered from
// --elicit where given, else with values built from the requested schema,
// and the output says what was answered, round by round; a server that
// asks without end is stopped after 8 rounds, with a finding.
func TestCallInputRequired(t *testing.T) {
	t.Parallel()
	server := []string{"--", bin.raw, "-modern", "-modern-full"}
	for _, tc := range []struct {
		name, text, by string
		flags          []string
	}{
		{"built from the schema", `confirmed: {"action":"accept","content":{"ok":false}}`, "accepted with values built from the requested schema", nil},
		{"--elicit decline", `confirmed: {"action":"decline"}`, "answered decline (--elicit)", []string{"--elicit", "decline"}},
		{"--elicit accept", `confirmed: {"action":"accept","content":{"ok":true}}`, "answered accept (--elicit)", []string{"--elicit", `accept={"ok":true}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := callJSON(t, 0, "call", append(append(append([]string{}, tc.flags...), "confirm"), server...)...)
			if got := v.Get("call.result.content.0.text").String(); got != tc.text {
				t.Errorf("the tool got %q, want %q", got, tc.text)
			}
			rounds := v.Get("call.input_rounds").Array()
			if len(rounds) != 1 {
				t.Fatalf("input_rounds %s", v.Get("call.input_rounds").Raw)
			}
			rd := rounds[0]
			if rd.Get("answers.0.key").String() != "ok" || rd.Get("answers.0.by").String() != tc.by || !rd.Get("request_state_echoed").Bool() || rd.Get("result_type").String() != "complete" {
				t.Errorf("round 1: %s", rd.Raw)
			}
			if len(findingCodes(v)) != 0 {
				t.Errorf("findings %s", v.Get("findings").Raw)
			}
			args := append(append(append([]string{"call"}, tc.flags...), "confirm"), server...)
			text := mcpprobe(t, args...)
			if !strings.Contains(text.stdout, "Input required: 1 round(s) answered") || !strings.Contains(text.stdout, tc.by) {
				t.Errorf("text output says nothing of the round:\n%s", text.stdout)
			}
		})
	}
	t.Run("without end", func(t *testing.T) {
		t.Parallel()
		v := callJSON(t, 0, "call", "confirm", "--", bin.raw, "-modern", "-input-required-forever")
		if n := len(v.Get("call.input_rounds").Array()); n != 8 {
			t.Errorf("%d rounds, want 8", n)
		}
		if !has(findingCodes(v), "input-required-rounds") {
			t.Errorf("findings %s", v.Get("findings").Raw)
		}
	})
}
