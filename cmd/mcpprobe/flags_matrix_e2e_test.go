//go:build e2e

package main

// The flag matrix: every flag call, read, prompt, survey, survey merge,
// survey summary and --config FILE --all accept either shows an effect or
// is refused with exit 2 naming it. The flags come from the command tree
// itself, so a flag added later without a row here fails the test.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"
)

// acceptedFlags is every flag the command at path takes: its own, and
// its ancestors' that are not Local (none: every shared flag is Local).
// help and version are urfave's.
func acceptedFlags(t *testing.T, path ...string) []string {
	t.Helper()
	app := testApp()
	chain := []*cli.Command{app}
	c := app
	for _, p := range path {
		if c = c.Command(p); c == nil {
			t.Fatalf("no command %q", strings.Join(path, " "))
		}
		chain = append(chain, c)
	}
	var names []string
	for i, cc := range chain {
		for _, f := range cc.Flags {
			if lf, ok := f.(cli.LocalFlag); ok && lf.IsLocal() && i < len(chain)-1 {
				continue
			}
			if n := f.Names()[0]; n != "help" && n != "version" {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// sharedFlag is whether the command's flag comes from a shared group
// (flags.go): the groups file their flags under a category.
func sharedFlag(t *testing.T, command, name string) bool {
	t.Helper()
	c := testApp().Command(command)
	if c == nil {
		t.Fatalf("no command %q", command)
	}
	f, ok := lookupFlag(c, name).(cli.CategorizableFlag)
	return ok && f.GetCategory() != ""
}

// headerLog is an HTTP MCP server (fakeHTTP) that keeps what reached it.
type headerLog struct {
	h       http.Handler
	mu      sync.Mutex
	methods []string
	headers []http.Header
}

func (l *headerLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.methods = append(l.methods, r.Method)
	l.headers = append(l.headers, r.Header.Clone())
	l.mu.Unlock()
	l.h.ServeHTTP(w, r)
}

func (l *headerLog) sawHeader(name, value string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.headers {
		if h.Get(name) == value {
			return true
		}
	}
	return false
}

func (l *headerLog) posts() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.methods {
		if m == http.MethodPost {
			n++
		}
	}
	return n
}

// sentModernPing: the trace holds a ping carrying the 2026-07-28 _meta,
// which asks a server silent to server/discover whether it is up, without
// opening the other era on the connection (one era per connection).
func sentModernPing(t *testing.T, trace string) bool {
	t.Helper()
	for _, f := range readTrace(t, trace) {
		if f.Dir == "send" && gjson.Get(f.Raw, "method").String() == "ping" &&
			gjson.Get(f.Raw, `params._meta.io\.modelcontextprotocol/protocolVersion`).String() == "2026-07-28" {
			return true
		}
	}
	return false
}

// flagRow is one cell of the matrix: how one flag shows in one command.
type flagRow struct {
	flag   string
	effect string // what the row shows, for the report; "refused" when it is
	run    func(t *testing.T)
}

func refusedRow(flag string, args ...string) flagRow {
	return flagRow{flag: flag, effect: "refused", run: func(t *testing.T) {
		r := mcpprobe(t, args...)
		name := "--" + flag
		if r.code != 2 || !strings.Contains(r.stderr, name) {
			t.Errorf("%q: exit %d, want 2 naming %s: %s", args, r.code, name, r.stderr)
		}
	}}
}

func effectRow(flag, effect string, run func(t *testing.T)) flagRow {
	return flagRow{flag: flag, effect: effect, run: run}
}

// wantCode runs args and fails unless the exit code is code.
func wantCode(t *testing.T, code int, args ...string) result {
	t.Helper()
	r := mcpprobe(t, args...)
	if r.code != code {
		t.Fatalf("%q: exit %d, want %d: %s\n%.400s", args, r.code, code, r.stderr, r.stdout)
	}
	return r
}

func runMatrix(t *testing.T, accepted []string, rows []flagRow) {
	t.Helper()
	byFlag := map[string]flagRow{}
	for _, r := range rows {
		byFlag[r.flag] = r
	}
	for _, f := range accepted {
		if _, ok := byFlag[f]; !ok {
			t.Errorf("--%s is accepted but has no row in the matrix: show its effect or refuse it", f)
		}
	}
	// A refused row may be a flag the command does not declare (exit 2
	// as any unknown flag) or one it declares and refuses in this
	// combination (--save with --all); a row with an effect must be one
	// it declares.
	for _, r := range rows {
		if !has(accepted, r.flag) && r.effect != "refused" {
			t.Errorf("row --%s: the command does not take it", r.flag)
		}
	}
	for _, r := range rows {
		t.Run(r.flag, func(t *testing.T) {
			t.Parallel()
			r.run(t)
		})
	}
}

// matrixFixtures are the files and servers the rows share.
type matrixFixtures struct {
	dir        string
	cfg        string // host config: g, the good server
	slowCfg    string // host config: two servers that take a second to start
	http       *headerLog
	httpURL    string
	tls        *headerLog
	tlsURL     string
	badHosts   string
	hosts      string   // the built-in Claude Code profile as "matrix-host", "Matrix Host"
	graceArgv  []string // a server whose wrapper outlives its stdin by 5 s and ignores SIGTERM: 4 s by default
	sleepyArgv []string // a server that takes 2 s to start
}

func newMatrixFixtures(t *testing.T) *matrixFixtures {
	t.Helper()
	f := &matrixFixtures{dir: t.TempDir()}
	f.cfg = filepath.Join(f.dir, "mcp.json")
	writeFile(t, f.cfg, `{"mcpServers":{"g":{"command":"`+bin.good+`"}}}`)
	f.slowCfg = filepath.Join(f.dir, "slow.json")
	slow := `{"command":"sh","args":["-c","sleep 1; exec ` + bin.good + `"]}`
	writeFile(t, f.slowCfg, `{"mcpServers":{"a":`+slow+`,"b":`+slow+`}}`)
	f.http = &headerLog{h: &fakeHTTP{}}
	srv := httptest.NewServer(f.http)
	t.Cleanup(srv.Close)
	f.httpURL = srv.URL + "/mcp"
	f.tls = &headerLog{h: &fakeHTTP{}}
	tsrv := httptest.NewUnstartedServer(f.tls)
	tsrv.StartTLS()
	t.Cleanup(tsrv.Close)
	f.tlsURL = tsrv.URL + "/mcp"
	f.badHosts = filepath.Join(f.dir, "hosts.json")
	writeFile(t, f.badHosts, `[{"id": "x"}]`)
	b, err := os.ReadFile("../../probe/hosts/hosts.json")
	if err != nil {
		t.Fatal(err)
	}
	var known struct{ Hosts []map[string]any }
	if err := json.Unmarshal(b, &known); err != nil || len(known.Hosts) == 0 {
		t.Fatalf("hosts.json: %v", err)
	}
	h := known.Hosts[0]
	h["id"], h["name"] = "matrix-host", "Matrix Host"
	j, _ := json.Marshal(map[string]any{"hosts": []any{h}})
	f.hosts = filepath.Join(f.dir, "matrix-hosts.json")
	writeFile(t, f.hosts, string(j))
	f.graceArgv = []string{"sh", "-c", `trap "" TERM; ` + bin.good + "; sleep 5"}
	f.sleepyArgv = []string{"sh", "-c", "sleep 2; exec " + bin.good}
	return f
}

// oneRequestRows is the matrix of call, read or prompt.
func oneRequestRows(fx *matrixFixtures, name string) []flagRow {
	// what is the last word and what it needs; slow is a call that takes
	// 3 s, to time out or cancel.
	var what, slow []string
	argv := []string{"--", bin.good, "-calls"}
	switch name {
	case "call":
		what = []string{"find_orders"}
		slow = []string{"--arg", "duration_ms=3000", "slow_progress"}
	case "read":
		what = []string{"orders://recent"}
	case "prompt":
		what = []string{"--arg", "id=1", "summarize_order"}
	}
	line := func(flags ...string) []string {
		return append(append(append([]string{name}, flags...), what...), argv...)
	}
	slowLine := func(flags ...string) []string {
		return append(line(flags...), "-slow-reads", "3s")
	}
	httpWhat := what[len(what)-1]
	if name == "call" {
		httpWhat = "alpha" // fakeHTTP's tool
	}
	section := func(t *testing.T, r result) gjson.Result {
		t.Helper()
		v := gjson.Parse(r.stdout)
		if v.Get("command").String() != name {
			t.Fatalf("not %s's envelope: %.300s", name, r.stdout)
		}
		return v.Get(name)
	}
	onTTY := func(t *testing.T, cols int, stderr bool, args ...string) string {
		t.Helper()
		tty, _, _ := onTerminal(t, cols, stderr, []string{"COLUMNS=", "NO_COLOR=", "TERM=xterm"}, args...)
		return tty
	}
	// A run with a finding, for --fail-on and --no-color.
	var finding []string
	switch name {
	case "call":
		finding = []string{name, "bad_structured", "--", bin.good, "-calls"}
	case "read":
		finding = []string{name, "nosuch://x", "--", bin.good}
	case "prompt":
		// Answered after it was cancelled: an info finding.
		finding = []string{name, "--cancel-after", "1ns", "--arg", "id=1", "summarize_order", "--", bin.good}
	}
	rows := []flagRow{
		effectRow("json", "the JSON envelope on stdout", func(t *testing.T) {
			section(t, wantCode(t, 0, line("--json")...))
		}),
		effectRow("out", "output into FILE, nothing on stdout", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o.txt")
			r := wantCode(t, 0, line("--out", out)...)
			if b, _ := os.ReadFile(out); r.stdout != "" || len(b) == 0 {
				t.Errorf("stdout %q, file %d bytes", r.stdout, len(b))
			}
		}),
		effectRow("startup-timeout", "300ms on a server 2 s to start: exit 3", func(t *testing.T) {
			// Not 1ns: initialize keeps 500 ms of its own after
			// server/discover, and a quick server answers within it.
			wantCode(t, 3, append(append([]string{name, "--startup-timeout", "300ms"}, what...), append([]string{"--"}, fx.sleepyArgv...)...)...)
		}),
		effectRow("discover-timeout", "1ns: server/discover overdue at once, a ping of its era follows it", func(t *testing.T) {
			tr := filepath.Join(t.TempDir(), "t.jsonl")
			mcpprobe(t, line("--trace", tr, "--discover-timeout", "1ns")...)
			if !sentModernPing(t, tr) {
				t.Error("no ping sent: server/discover was waited for")
			}
		}),
		effectRow("protocol", "2025-06-18 pinned", func(t *testing.T) {
			r := wantCode(t, 0, line("--json", "--protocol", "2025-06-18")...)
			if p := gjson.Get(r.stdout, "protocol_version").String(); p != "2025-06-18" {
				t.Errorf("protocol %q", p)
			}
		}),
		effectRow("max-bytes", "200: server stopped, exit 3", func(t *testing.T) {
			r := wantCode(t, 3, line("--max-bytes", "200")...)
			if !strings.Contains(r.stderr, "--max-bytes") {
				t.Errorf("stderr: %s", r.stderr)
			}
		}),
		effectRow("max-line", "50: line too long, exit 3", func(t *testing.T) {
			r := wantCode(t, 3, line("--max-line", "50")...)
			if !strings.Contains(r.stderr, "--max-line") {
				t.Errorf("stderr: %s", r.stderr)
			}
		}),
		effectRow("env", "reaches the server", func(t *testing.T) {
			args := append(append([]string{name, "--env", "MATRIX_X=1"}, what...),
				"--", "sh", "-c", `test "$MATRIX_X" = 1 && exec `+bin.good)
			wantCode(t, 0, args...)
		}),
		effectRow("secret-env", "a plain value hidden", func(t *testing.T) {
			secretEnvRow(t, func(flags ...string) []string {
				return append(append(append([]string{name, "--json"}, flags...), what...), "--", "sh", "-c", "exec "+bin.good+" -calls", "richword")
			})
		}),
		effectRow("inherit-env", "mcpprobe's whole environment reaches the server", func(t *testing.T) {
			args := append(append([]string{name}, what...), "--", "sh", "-c", `test "$MATRIX_INH" = 1 && exec `+bin.good)
			if r := probeRun(t, []string{"MATRIX_INH=1"}, nil, args...); r.code != 3 {
				t.Errorf("without --inherit-env: exit %d, want 3 (the variable stays behind): %s", r.code, r.stderr)
			}
			if r := probeRun(t, []string{"MATRIX_INH=1"}, nil, append([]string{name, "--inherit-env"}, args[1:]...)...); r.code != 0 {
				t.Errorf("with --inherit-env: exit %d: %s", r.code, r.stderr)
			}
		}),
		effectRow("header", "sent to a URL", func(t *testing.T) {
			mcpprobe(t, name, "-H", "X-Matrix-"+name+": h1", fx.httpURL, httpWhat)
			if !fx.http.sawHeader("X-Matrix-"+name, "h1") {
				t.Error("the header never reached the server")
			}
		}),
		effectRow("header-env", "sent to a URL from the environment", func(t *testing.T) {
			probeRun(t, []string{"MATRIX_HE=he-" + name}, nil, name, "--header-env", "X-Matrix-Env-"+name+"=MATRIX_HE", fx.httpURL, httpWhat)
			if !fx.http.sawHeader("X-Matrix-Env-"+name, "he-"+name) {
				t.Error("the header never reached the server")
			}
		}),
		effectRow("transport", "sse: no POST to a Streamable server, exit 3", func(t *testing.T) {
			l := &headerLog{h: &fakeHTTP{}}
			srv := httptest.NewServer(l)
			defer srv.Close()
			wantCode(t, 3, name, "--transport", "sse", srv.URL+"/mcp", httpWhat)
			if n := l.posts(); n != 0 {
				t.Errorf("%d POSTs with --transport sse", n)
			}
		}),
		effectRow("insecure", "reaches a self-signed https server", func(t *testing.T) {
			l := &headerLog{h: &fakeHTTP{}}
			srv := httptest.NewUnstartedServer(l)
			srv.StartTLS()
			defer srv.Close()
			if r := mcpprobe(t, name, srv.URL+"/mcp", httpWhat); r.code != 3 || l.posts() != 0 {
				t.Fatalf("without --insecure: exit %d, %d POSTs", r.code, l.posts())
			}
			mcpprobe(t, name, "--insecure", srv.URL+"/mcp", httpWhat)
			if l.posts() == 0 {
				t.Error("nothing reached the https server")
			}
		}),
		effectRow("config", "the target is a server NAME of FILE", func(t *testing.T) {
			section(t, wantCode(t, 0, append([]string{name, "--json", "--config", fx.cfg, "g"}, what...)...))
		}),
		effectRow("trace", "every frame into FILE", func(t *testing.T) {
			tr := filepath.Join(t.TempDir(), "t.jsonl")
			wantCode(t, 0, line("--trace", tr)...)
			if len(readTrace(t, tr)) == 0 {
				t.Error("empty trace")
			}
		}),
		effectRow("grace", "100ms: a lingering server is stopped at once", func(t *testing.T) {
			graceCut(t, func(grace ...string) result {
				return mcpprobe(t, append(append(append([]string{name}, grace...), what...), append([]string{"--"}, fx.graceArgv...)...)...)
			})
		}),
		effectRow("fail-on", "exit 1 on a finding", func(t *testing.T) {
			// prompt's finding (an answer after the cancel) can, on a
			// loaded machine, lose its race: a few tries.
			var r result
			for range 3 {
				if r = mcpprobe(t, append([]string{finding[0], "--fail-on", "info"}, finding[1:]...)...); r.code != 0 {
					break
				}
			}
			if r.code != 1 {
				t.Errorf("exit %d, want 1: %s", r.code, r.stderr)
			}
		}),
		effectRow("quiet", "no progress on a terminal's stderr", func(t *testing.T) {
			if tty := onTTY(t, 100, true, line("--quiet")...); tty != "" {
				t.Errorf("--quiet, stderr on a terminal: %q", tty)
			}
			if tty := onTTY(t, 100, true, line()...); tty == "" {
				t.Error("no progress on a terminal without --quiet: the row shows nothing")
			}
		}),
		effectRow("no-color", "no ANSI colour on a terminal", func(t *testing.T) {
			if tty := onTTY(t, 200, false, append([]string{finding[0], "--no-color"}, finding[1:]...)...); strings.Contains(tty, "\x1b[") {
				t.Errorf("--no-color still colours: %q", tty)
			}
			coloured := false
			for range 3 {
				if coloured = strings.Contains(onTTY(t, 200, false, finding...), "\x1b["); coloured {
					break
				}
			}
			if !coloured {
				t.Error("no colour without --no-color: the row shows nothing")
			}
		}),
		effectRow("wide", "tables at full width on a narrow terminal", func(t *testing.T) {
			widest := 0
			for _, l := range strings.Split(onTTY(t, 40, false, line("--wide")...), "\n") {
				widest = max(widest, terminal.Width(l))
			}
			if widest <= 40 {
				t.Errorf("--wide on a 40-column terminal: widest line %d", widest)
			}
		}),
		effectRow("verbose", "every row of every table (the policy table)", func(t *testing.T) {
			const full = "Would a client give up on it?"
			if r := wantCode(t, 0, line("--verbose")...); !strings.Contains(r.stdout, full) {
				t.Errorf("--verbose lacks %q:\n%s", full, r.stdout)
			}
			if r := wantCode(t, 0, line()...); strings.Contains(r.stdout, full) {
				t.Errorf("without --verbose the policies are not folded:\n%s", r.stdout)
			}
		}),
		effectRow("save", "request.json and response.json into DIR", func(t *testing.T) {
			dir := t.TempDir()
			wantCode(t, 0, line("--save", dir)...)
			for _, f := range []string{"request.json", "response.json"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
		}),
		effectRow("view", "one host's delivery as markdown", func(t *testing.T) {
			r := wantCode(t, 0, line("--view", "claude-code")...)
			if !strings.HasPrefix(r.stdout, "# What Claude Code receives") {
				t.Errorf("stdout: %.200s", r.stdout)
			}
		}),
		effectRow("host", "only that host's delivery row", func(t *testing.T) {
			ds := section(t, wantCode(t, 0, line("--json", "--host", "codex")...)).Get("deliveries.#.host").Array()
			if len(ds) != 1 || ds[0].String() != "codex" {
				t.Errorf("deliveries for %v, want codex alone", ds)
			}
		}),
		effectRow("hosts", "a host of FILE has its delivery row", func(t *testing.T) {
			c := section(t, wantCode(t, 0, line("--json", "--hosts", fx.hosts)...))
			if n := c.Get(`deliveries.#(host=="matrix-host").host_name`).String(); n != "Matrix Host" {
				t.Errorf("no matrix-host row: %s", c.Get("deliveries.#.host").Raw)
			}
			if r := mcpprobe(t, line("--hosts", fx.badHosts)...); r.code != 2 || !strings.Contains(r.stderr, "--hosts") {
				t.Errorf("a bad --hosts file: exit %d: %s", r.code, r.stderr)
			}
		}),
		effectRow("progress", "a progressToken in the request", func(t *testing.T) {
			c := section(t, wantCode(t, 0, line("--json", "--progress")...))
			if !c.Get("request.params._meta.progressToken").Exists() {
				t.Errorf("request: %s", c.Get("request").Raw)
			}
		}),
		effectRow("policy", "judged by the named policy", func(t *testing.T) {
			r := wantCode(t, 0, line("--json", "--policy", "matrixpol=timeout:30s")...)
			if !strings.Contains(r.stdout, `"matrixpol"`) {
				t.Errorf("no verdict for the policy: %.300s", r.stdout)
			}
		}),
	}
	capability := func(flag, value, capName string) flagRow {
		return effectRow(flag, "declares the "+capName+" capability", func(t *testing.T) {
			c := section(t, wantCode(t, 0, line("--json", "--"+flag, value)...))
			if !strings.Contains(c.Get("request").Raw, `"`+capName+`"`) && !strings.Contains(c.Get("request").Raw, `"`+capName+`":`) {
				// Before 2026-07-28 capabilities go in initialize: the trace has it.
				t.Errorf("request has no %s capability: %s", capName, c.Get("request").Raw)
			}
		})
	}
	rows = append(rows, capability("elicit", "decline", "elicitation"), capability("sampling-reply", "hi", "sampling"),
		capability("root", "file:///tmp", "roots"))
	if name == "call" {
		rows = append(rows,
			effectRow("timeout", "1s on a 3 s call: not completed", func(t *testing.T) {
				c := section(t, wantCode(t, 0, append([]string{name, "--json", "--timeout", "1s"}, append(slow, argv...)...)...))
				if c.Get("completed").Bool() {
					t.Error("completed within --timeout 300ms")
				}
			}),
			effectRow("cancel-after", "notifications/cancelled sent", func(t *testing.T) {
				c := section(t, wantCode(t, 0, append([]string{name, "--json", "--cancel-after", "200ms"}, append(slow, argv...)...)...))
				if c.Get("cancel.via").String() != "notifications/cancelled" {
					t.Errorf("cancel: %s", c.Get("cancel").Raw)
				}
			}),
			effectRow("max-pages", "1 on a paged list: exit 3", func(t *testing.T) {
				r := wantCode(t, 3, name, "--max-pages", "1", "order_total", "--", bin.good, "-page-size", "1")
				if !strings.Contains(r.stderr, "stopped after 1 pages") {
					t.Errorf("stderr: %s", r.stderr)
				}
			}),
			effectRow("task", "a task-augmented call", func(t *testing.T) {
				r := wantCode(t, 0, line("--json", "--task")...)
				if !strings.Contains(r.stdout, `"task-not-supported"`) {
					t.Errorf("no task finding from a server without tasks: %.400s", r.stdout)
				}
			}),
		)
	} else {
		if name == "read" {
			rows = append(rows, effectRow("skill", "the read verified against skills/list (skills_e2e_test.go has each mismatch)", func(t *testing.T) {
				c := section(t, wantCode(t, 0, name, "--json", "--skill", "skill://git-workflow/SKILL.md", "--", bin.raw, "-skills", "ok"))
				if c.Get("skill.refused").Type != gjson.False || !c.Get("skill.frontmatter_compared").Bool() {
					t.Errorf("skill: %s", c.Get("skill").Raw)
				}
				if c := section(t, wantCode(t, 0, line("--json")...)); c.Get("skill").Exists() {
					t.Errorf("a skill member without --skill: %s", c.Get("skill").Raw)
				}
			}))
		}
		rows = append(rows,
			// A 3 s answer, not a 1 ns bound: a fast answer can beat a timer
			// that a loaded machine fires late.
			effectRow("timeout", "1s on a 3 s answer: not completed", func(t *testing.T) {
				r := mcpprobe(t, slowLine("--json", "--timeout", "1s")...)
				if r.code == 0 && gjson.Get(r.stdout, name+".completed").Bool() || r.code != 0 && r.code != 3 {
					t.Errorf("exit %d, completed within 1s: %.300s %s", r.code, r.stdout, r.stderr)
				}
			}),
			effectRow("cancel-after", "notifications/cancelled sent", func(t *testing.T) {
				c := section(t, wantCode(t, 0, slowLine("--json", "--cancel-after", "200ms")...))
				if c.Get("cancel.via").String() != "notifications/cancelled" {
					t.Errorf("cancel: %s", c.Get("cancel").Raw)
				}
			}),
		)
	}
	switch name {
	case "call", "prompt":
		rows = append(rows,
			effectRow("args", "the arguments sent", func(t *testing.T) {
				args := []string{name, "--json", "--args", `{"id":"7"}`, "summarize_order", "--", bin.good}
				if name == "call" {
					args = []string{name, "--json", "--args", `{"duration_ms":10}`, "slow_progress", "--", bin.good, "-calls"}
				}
				if a := section(t, wantCode(t, 0, args...)).Get("arguments").Raw; a != `{"id":"7"}` && a != `{"duration_ms":10}` {
					t.Errorf("arguments %s", a)
				}
			}),
			effectRow("arg", "one argument sent, typed by the schema", func(t *testing.T) {
				args := []string{name, "--json", "--arg", "id=7", "summarize_order", "--", bin.good}
				want := `{"id":"7"}`
				if name == "call" {
					args, want = []string{name, "--json", "--arg", "duration_ms=10", "slow_progress", "--", bin.good, "-calls"}, `{"duration_ms":10}`
				}
				if a := section(t, wantCode(t, 0, args...)).Get("arguments").Raw; a != want {
					t.Errorf("arguments %s, want %s", a, want)
				}
			}),
			effectRow("no-validate", "arguments the schema refuses are sent", func(t *testing.T) {
				args := []string{name, "summarize_order", "--", bin.good}
				if name == "call" {
					args = []string{name, "--args", `{"nope":1}`, "big_text", "--", bin.good, "-calls"}
				}
				wantCode(t, 2, args...)
				wantCode(t, 0, append([]string{name, "--no-validate"}, args[1:]...)...)
			}),
		)
		if name == "prompt" {
			rows = append(rows, effectRow("max-pages", "1 on a paged list: exit 3", func(t *testing.T) {
				r := wantCode(t, 3, name, "--max-pages", "1", "--arg", "id=1", "summarize_order", "--", bin.good, "-page-size", "1", "-extra-prompts", "2")
				if !strings.Contains(r.stderr, "stopped after 1 pages") {
					t.Errorf("stderr: %s", r.stderr)
				}
			}))
		}
	case "read":
		rows = append(rows, refusedRow("max-pages", line("--max-pages", "3")...))
	}
	return append(rows, oauthRefusedRows(line)...) // oauth_e2e_test.go
}

func TestFlagMatrixOneRequest(t *testing.T) {
	t.Parallel()
	fx := newMatrixFixtures(t)
	for _, name := range []string{"call", "read", "prompt"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runMatrix(t, acceptedFlags(t, name), oneRequestRows(fx, name))
		})
	}
}

func TestFlagMatrixSurvey(t *testing.T) {
	t.Parallel()
	fx := newMatrixFixtures(t)
	fleet := writeFleet(t, []fleetLine{{ID: "g", Command: bin.good}})
	// record runs a survey of entries and returns its one record.
	record := func(t *testing.T, env []string, entries []fleetLine, flags ...string) (gjson.Result, result) {
		t.Helper()
		f := fleet
		if entries != nil {
			f = writeFleet(t, entries)
		}
		r := probeRun(t, env, nil, append([]string{"survey", f}, flags...)...).result
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		return gjson.Parse(strings.SplitN(r.stdout, "\n", 2)[0]), r
	}
	status := func(t *testing.T, v gjson.Result, ok bool) {
		t.Helper()
		if s := v.Get("survey.status").String(); (s == "ok") != ok {
			t.Errorf("status %q (want ok: %v): %.400s", s, ok, v.Raw)
		}
	}
	rows := []flagRow{
		effectRow("out", "records into FILE", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.jsonl")
			_, r := record(t, nil, nil, "-o", out)
			if r.stdout != "" || len(surveyLines(t, out)) != 1 {
				t.Errorf("stdout %q", r.stdout)
			}
		}),
		effectRow("timeout", "1ns: the lists time out", func(t *testing.T) {
			// a list answered after 3 s: a fast answer cannot beat the
			// timer on a loaded machine
			v, _ := record(t, nil, []fleetLine{{ID: "s", Command: bin.raw, Args: []string{"-slow-list", "3s"}}}, "--timeout", "1ns")
			if !strings.Contains(v.Raw, `"list-timeout"`) {
				t.Errorf("no timeout in the record: %.600s", v.Raw)
			}
		}),
		effectRow("startup-timeout", "300ms on a server 2 s to start: it fails", func(t *testing.T) {
			v, _ := record(t, nil, []fleetLine{{ID: "s", Command: fx.sleepyArgv[0], Args: fx.sleepyArgv[1:]}}, "--startup-timeout", "300ms")
			status(t, v, false)
		}),
		effectRow("discover-timeout", "1ns: server/discover given up, initialize sent", func(t *testing.T) {
			v, _ := record(t, nil, nil, "--discover-timeout", "1ns")
			if p := v.Get("protocol_version").String(); p != "2025-11-25" && !strings.Contains(v.Raw, "initialize") {
				t.Errorf("protocol %q, no initialize: %.400s", p, v.Raw)
			}
		}),
		effectRow("protocol", "pinned", func(t *testing.T) {
			v, _ := record(t, nil, nil, "--protocol", "2025-06-18")
			if p := v.Get("protocol_version").String(); p != "2025-06-18" {
				t.Errorf("protocol %q", p)
			}
			r := mcpprobe(t, "survey", "--protocol", "bogus", fleet)
			if r.code != 2 || !strings.Contains(r.stderr, "--protocol") {
				t.Errorf("--protocol bogus: exit %d: %s", r.code, r.stderr)
			}
		}),
		effectRow("max-pages", "1 on a paged list: too-many-pages", func(t *testing.T) {
			v, _ := record(t, nil, []fleetLine{{ID: "p", Command: bin.good, Args: []string{"-page-size", "1"}}}, "--max-pages", "1")
			if !strings.Contains(v.Raw, "--max-pages") {
				t.Errorf("record: %.600s", v.Raw)
			}
		}),
		effectRow("max-bytes", "200: the server is stopped", func(t *testing.T) {
			v, _ := record(t, nil, nil, "--max-bytes", "200")
			status(t, v, false)
		}),
		effectRow("max-line", "50: the server fails", func(t *testing.T) {
			v, _ := record(t, nil, nil, "--max-line", "50")
			status(t, v, false)
		}),
		effectRow("transport", "sse: a Streamable URL entry fails", func(t *testing.T) {
			v, _ := record(t, nil, []fleetLine{{ID: "h", URL: fx.httpURL}}, "--transport", "sse")
			status(t, v, false)
			r := mcpprobe(t, "survey", "--transport", "bogus", fleet)
			if r.code != 2 || !strings.Contains(r.stderr, "--transport") {
				t.Errorf("--transport bogus: exit %d: %s", r.code, r.stderr)
			}
		}),
		effectRow("insecure", "a self-signed https entry is probed", func(t *testing.T) {
			v, _ := record(t, nil, []fleetLine{{ID: "s", URL: fx.tlsURL}}, "--insecure")
			status(t, v, true)
		}),
		effectRow("grace", "100ms: a lingering server is stopped at once", func(t *testing.T) {
			graceCut(t, func(grace ...string) result {
				_, r := record(t, nil, []fleetLine{{ID: "l", Command: fx.graceArgv[0], Args: fx.graceArgv[1:]}}, grace...)
				return r
			})
		}),
		effectRow("quiet", "no progress on a terminal's stderr", func(t *testing.T) {
			if tty, _, _ := onTerminal(t, 100, true, nil, "survey", "--quiet", fleet); tty != "" {
				t.Errorf("--quiet: %q", tty)
			}
		}),
		effectRow("jobs", "1: servers one after another", func(t *testing.T) {
			slow := []string{"-c", "sleep 1; exec " + bin.good}
			f := writeFleet(t, []fleetLine{{ID: "a", Command: "sh", Args: slow}, {ID: "b", Command: "sh", Args: slow}})
			r := wantCode(t, 0, "survey", "--jobs", "1", f)
			if r.took < 2*time.Second {
				t.Errorf("two 1 s starts in %s with --jobs 1", r.took)
			}
		}),
		effectRow("resume", "servers already in -o FILE are skipped", func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "started")
			f := writeFleet(t, []fleetLine{{ID: "m", Command: "sh", Args: []string{"-c", "echo x >> " + marker + "; exec " + bin.good}}})
			out := filepath.Join(t.TempDir(), "r.jsonl")
			wantCode(t, 0, "survey", f, "-o", out)
			wantCode(t, 0, "survey", "--resume", f, "-o", out)
			if b, _ := os.ReadFile(marker); strings.Count(string(b), "x") != 1 {
				t.Errorf("started %d times", strings.Count(string(b), "x"))
			}
		}),
		effectRow("shard", "the record's shard", func(t *testing.T) {
			f := writeFleet(t, []fleetLine{{ID: "a", Command: bin.good}, {ID: "b", Command: bin.good}, {ID: "c", Command: bin.good}})
			n := 0
			for _, s := range []string{"0/2", "1/2"} {
				r := wantCode(t, 0, "survey", "--shard", s, f)
				n += strings.Count(r.stdout, "\n")
				if r.stdout != "" && !strings.Contains(r.stdout, `"shard":{"index":`+s[:1]) {
					t.Errorf("shard %s: %.300s", s, r.stdout)
				}
			}
			if n != 3 {
				t.Errorf("%d records over 2 shards of 3 servers", n)
			}
		}),
		effectRow("shards", "N shards, the index from JOB_COMPLETION_INDEX", func(t *testing.T) {
			f := writeFleet(t, []fleetLine{{ID: "a", Command: bin.good}, {ID: "b", Command: bin.good}, {ID: "c", Command: bin.good}})
			n := 0
			for _, i := range []string{"0", "1"} {
				r := probeRun(t, []string{"JOB_COMPLETION_INDEX=" + i}, nil, "survey", "--shards", "2", f)
				if r.code != 0 || r.stdout != "" && !strings.Contains(r.stdout, `"shard":{"index":`+i) {
					t.Errorf("index %s: exit %d: %.300s %s", i, r.code, r.stdout, r.stderr)
				}
				n += strings.Count(r.stdout, "\n")
			}
			if n != 3 {
				t.Errorf("%d records over 2 shards of 3 servers", n)
			}
		}),
		effectRow("per-server-timeout", "300ms: a slow server is cut off", func(t *testing.T) {
			// A server that would take 30 s: the cause says the bound cut
			// it off, and well before its 30 s even on a loaded machine.
			v, r := record(t, nil, []fleetLine{{ID: "z", Command: "sh", Args: []string{"-c", "sleep 30"}}}, "--per-server-timeout", "300ms", "--grace", "100ms")
			status(t, v, false)
			if c := v.Get("survey.failure.cause").String(); c != "timed_out" {
				t.Errorf("cause %q, want timed_out: %.400s", c, v.Raw)
			}
			if r.took > min(bound(3*time.Second), 20*time.Second) {
				t.Errorf("took %s", r.took)
			}
		}),
		effectRow("sandbox", "wraps the command", func(t *testing.T) {
			v, _ := record(t, nil, nil, "--sandbox", "false")
			status(t, v, false)
			v, _ = record(t, nil, nil, "--sandbox", "env")
			status(t, v, true)
		}),
		effectRow("with", "adds the section", func(t *testing.T) {
			v, _ := record(t, nil, nil, "--with", "malformed", "--timeout", secs(2*time.Second))
			if !v.Get("survey.malformed").IsObject() {
				t.Errorf("no malformed section: %.300s", v.Get("survey.with_errors").Raw)
			}
		}),
		effectRow("hosts", "a host of FILE is measured", func(t *testing.T) {
			if v, _ := record(t, nil, nil, "--hosts", fx.hosts); !strings.Contains(v.Raw, `"host":"matrix-host"`) {
				t.Errorf("no Matrix Host in the record: %.300s", v.Raw)
			}
			r := mcpprobe(t, "survey", "--hosts", fx.badHosts, fleet)
			if r.code != 2 || !strings.Contains(r.stderr, "--hosts") {
				t.Errorf("a bad --hosts file: exit %d: %s", r.code, r.stderr)
			}
		}),
	}
	for _, f := range []string{"json", "env", "secret-env", "inherit-env", "header", "header-env", "config", "trace", "fail-on", "no-color", "wide", "verbose"} {
		args := map[string][]string{"verbose": {"--verbose"}, "json": {"--json"}, "env": {"--env", "A=1"}, "secret-env": {"--secret-env", "A"}, "inherit-env": {"--inherit-env"}, "header": {"--header", "A: 1"},
			"header-env": {"--header-env", "A=B"}, "config": {"--config", fx.cfg}, "trace": {"--trace", filepath.Join(fx.dir, "t")},
			"fail-on": {"--fail-on", "error"}, "no-color": {"--no-color"}, "wide": {"--wide"}}[f]
		rows = append(rows, refusedRow(f, append(append([]string{"survey"}, args...), fleet)...))
	}
	runMatrix(t, acceptedFlags(t, "survey"), rows)
}

// survey merge and summary read results: --out (and merge's --quiet)
// work, every run flag is refused.
func TestFlagMatrixSurveyMergeSummary(t *testing.T) {
	t.Parallel()
	fx := newMatrixFixtures(t)
	part := filepath.Join(t.TempDir(), "part.jsonl")
	wantCode(t, 0, "survey", writeFleet(t, []fleetLine{{ID: "g", Command: bin.good}}), "-o", part)
	values := map[string][]string{"json": {"--json"}, "timeout": {"--timeout", "1s"}, "startup-timeout": {"--startup-timeout", "1s"},
		"discover-timeout": {"--discover-timeout", "1s"}, "protocol": {"--protocol", "2025-06-18"}, "env": {"--env", "A=1"},
		"secret-env": {"--secret-env", "A"}, "inherit-env": {"--inherit-env"}, "header": {"--header", "A: 1"}, "header-env": {"--header-env", "A=B"}, "transport": {"--transport", "sse"}, "insecure": {"--insecure"},
		"config": {"--config", fx.cfg}, "trace": {"--trace", filepath.Join(fx.dir, "t")}, "max-line": {"--max-line", "9"},
		"max-pages": {"--max-pages", "9"}, "max-bytes": {"--max-bytes", "9"}, "grace": {"--grace", "1s"}, "fail-on": {"--fail-on", "error"},
		"quiet": {"--quiet"}, "no-color": {"--no-color"}, "wide": {"--wide"}, "verbose": {"--verbose"}}
	for _, sub := range []string{"merge", "summary"} {
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			rows := []flagRow{effectRow("out", "output into FILE", func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "o")
				r := wantCode(t, 0, "survey", sub, part, "-o", out)
				if b, _ := os.ReadFile(out); r.stdout != "" || len(b) == 0 {
					t.Errorf("stdout %q, file %d bytes", r.stdout, len(b))
				}
			})}
			for f, v := range values {
				if f == "quiet" && sub == "merge" {
					rows = append(rows, effectRow("quiet", "no summary line on stderr", func(t *testing.T) {
						if r := wantCode(t, 0, "survey", "merge", "--quiet", part); r.stderr != "" || r.stdout == "" {
							t.Errorf("stderr %q", r.stderr)
						}
						if r := wantCode(t, 0, "survey", "merge", part); r.stderr == "" {
							t.Error("no summary line without --quiet: the row shows nothing")
						}
					}))
					continue
				}
				rows = append(rows, refusedRow(f, append(append([]string{"survey", sub}, v...), part)...))
			}
			runMatrix(t, acceptedFlags(t, "survey", sub), rows)
		})
	}
}

// --config FILE --all: every flag of wire, budget and report works with
// it or is refused, and the globals a run of several servers uses work.
func TestFlagMatrixConfigAll(t *testing.T) {
	t.Parallel()
	fx := newMatrixFixtures(t)
	hostsOnly := func(t *testing.T, out, want string) {
		t.Helper()
		for _, m := range regexp.MustCompile(`"host":"([^"]+)"`).FindAllStringSubmatch(out, -1) {
			if m[1] != want {
				t.Errorf("host %s with --host %s", m[1], want)
				return
			}
		}
		if !strings.Contains(out, `"host":"`+want+`"`) {
			t.Errorf("no %s: %.300s", want, out)
		}
	}
	all := func(cmd string, flags ...string) []string {
		return append(append([]string{cmd}, flags...), "--config", fx.cfg, "--all")
	}
	for _, cmd := range []string{"wire", "budget", "report"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			rows := []flagRow{
				effectRow("all", "every server of FILE", func(t *testing.T) {
					r := wantCode(t, 0, all(cmd, "--json")...)
					if tg := gjson.Get(r.stdout, "target").String(); tg != "--config "+fx.cfg+" --all" {
						t.Errorf("target %q", tg)
					}
				}),
				effectRow("jobs", "1: servers one after another", func(t *testing.T) {
					r := wantCode(t, 0, cmd, "--json", "--jobs", "1", "--config", fx.slowCfg, "--all")
					if r.took < 2*time.Second {
						t.Errorf("two 1 s starts in %s with --jobs 1", r.took)
					}
				}),
			}
			switch cmd {
			case "wire":
				rows = append(rows, refusedRow("save", all(cmd, "--save", t.TempDir())...))
			case "budget":
				rows = append(rows,
					effectRow("host", "only that host", func(t *testing.T) {
						hostsOnly(t, wantCode(t, 0, all(cmd, "--json", "--host", "claude-code")...).stdout, "claude-code")
					}),
					effectRow("hosts", "a host of FILE is measured", func(t *testing.T) {
						if r := wantCode(t, 0, all(cmd, "--json", "--hosts", fx.hosts)...); !strings.Contains(r.stdout, `"matrix-host"`) {
							t.Errorf("no matrix-host: %.300s", r.stdout)
						}
					}),
					refusedRow("view", all(cmd, "--view", "claude-code")...),
					refusedRow("show-cut", all(cmd, "--show-cut")...),
					refusedRow("per-host-tools", all(cmd, "--json", "--per-host-tools")...),
				)
			case "report":
				rows = append(rows,
					effectRow("host", "only that host", func(t *testing.T) {
						hostsOnly(t, wantCode(t, 0, all(cmd, "--json", "--host", "claude-code")...).stdout, "claude-code")
					}),
					effectRow("hosts", "a host of FILE is measured", func(t *testing.T) {
						if r := wantCode(t, 0, all(cmd, "--json", "--hosts", fx.hosts)...); !strings.Contains(r.stdout, `"matrix-host"`) {
							t.Errorf("no matrix-host: %.300s", r.stdout)
						}
					}),
					effectRow("date", "the report's date", func(t *testing.T) {
						if r := wantCode(t, 0, all(cmd, "--date", "2026-01-02")...); !strings.Contains(r.stdout, "2026-01-02") {
							t.Errorf("no date: %.300s", r.stdout)
						}
					}),
					refusedRow("check", all(cmd, "--check", fx.cfg)...),
					refusedRow("ref", all(cmd, "--ref", fx.cfg)...),
					refusedRow("bench", all(cmd, "--bench")...),
					refusedRow("faults", all(cmd, "--faults")...),
					refusedRow("malformed", all(cmd, "--malformed")...),
					refusedRow("call", all(cmd, "--call", "find_orders")...),
					refusedRow("auth", all(cmd, "--auth")...),
				)
			}
			var local []string
			for _, f := range acceptedFlags(t, cmd) {
				if !sharedFlag(t, cmd, f) {
					local = append(local, f)
				}
			}
			runMatrix(t, local, rows)
		})
	}
}

// The global flags of wire, budget and report under --config FILE --all:
// each reaches every server of the file, or is refused.
func TestFlagMatrixConfigAllGlobals(t *testing.T) {
	t.Parallel()
	fx := newMatrixFixtures(t)
	config := func(t *testing.T, servers string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "mcp.json")
		writeFile(t, p, `{"mcpServers":{`+servers+`}}`)
		return p
	}
	good := func(args ...string) string {
		j, _ := json.Marshal(map[string]any{"command": bin.good, "args": args})
		return string(j)
	}
	url := func(u string) string { return `{"type":"http","url":"` + u + `"}` }
	for _, cmd := range []string{"wire", "budget", "report"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			all := func(cfg string, flags ...string) []string {
				return append(append([]string{cmd}, flags...), "--config", cfg, "--all")
			}
			rows := []flagRow{
				effectRow("config", "the file whose servers run (--all needs it)", func(t *testing.T) {
					r := mcpprobe(t, cmd, "--all")
					if r.code != 2 || !strings.Contains(r.stderr, "--config") {
						t.Errorf("--all without --config: exit %d: %s", r.code, r.stderr)
					}
				}),
				effectRow("json", "the envelope", func(t *testing.T) {
					if r := wantCode(t, 0, all(fx.cfg, "--json")...); gjson.Get(r.stdout, "command").String() != cmd {
						t.Errorf("stdout: %.200s", r.stdout)
					}
				}),
				effectRow("out", "output into FILE", func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "o")
					r := wantCode(t, 0, all(fx.cfg, "--out", out)...)
					if b, _ := os.ReadFile(out); r.stdout != "" || len(b) == 0 {
						t.Errorf("stdout %q, file %d bytes", r.stdout, len(b))
					}
				}),
				effectRow("trace", "every server's frames", func(t *testing.T) {
					tr := filepath.Join(t.TempDir(), "t.jsonl")
					wantCode(t, 0, all(fx.cfg, "--trace", tr)...)
					if len(readTrace(t, tr)) == 0 {
						t.Error("empty trace")
					}
				}),
				effectRow("protocol", "initialize with the pinned version", func(t *testing.T) {
					tr := filepath.Join(t.TempDir(), "t.jsonl")
					wantCode(t, 0, all(fx.cfg, "--trace", tr, "--protocol", "2025-06-18")...)
					b, _ := os.ReadFile(tr)
					if !strings.Contains(string(b), `2025-06-18`) {
						t.Error("no 2025-06-18 in the trace")
					}
				}),
				effectRow("discover-timeout", "1ns: a ping of server/discover's era follows it", func(t *testing.T) {
					tr := filepath.Join(t.TempDir(), "t.jsonl")
					mcpprobe(t, all(fx.cfg, "--trace", tr, "--discover-timeout", "1ns")...)
					if !sentModernPing(t, tr) {
						t.Error("no ping sent")
					}
				}),
				effectRow("startup-timeout", "300ms on a server 2 s to start: exit 3", func(t *testing.T) {
					j, _ := json.Marshal(map[string]any{"command": fx.sleepyArgv[0], "args": fx.sleepyArgv[1:]})
					wantCode(t, 3, all(config(t, `"s":`+string(j)), "--startup-timeout", "300ms")...)
				}),
				effectRow("timeout", "1ns: the lists time out", func(t *testing.T) {
					j, _ := json.Marshal(map[string]any{"command": bin.raw, "args": []string{"-slow-list", "3s"}})
					r := mcpprobe(t, all(config(t, `"s":`+string(j)), "--json", "--timeout", "1ns")...)
					if !strings.Contains(r.stdout, `"list-timeout"`) {
						t.Errorf("exit %d, no timeout: %.400s %s", r.code, r.stdout, r.stderr)
					}
				}),
				effectRow("max-bytes", "200: the server is stopped, exit 3", func(t *testing.T) {
					wantCode(t, 3, all(fx.cfg, "--max-bytes", "200")...)
				}),
				effectRow("max-line", "50: the server fails, exit 3", func(t *testing.T) {
					wantCode(t, 3, all(fx.cfg, "--max-line", "50")...)
				}),
				effectRow("max-pages", "1 on a paged list: too-many-pages", func(t *testing.T) {
					r := mcpprobe(t, all(config(t, `"p":`+good("-page-size", "1")), "--json", "--max-pages", "1")...)
					if !strings.Contains(r.stdout, "too-many-pages") {
						t.Errorf("exit %d: %.400s %s", r.code, r.stdout, r.stderr)
					}
				}),
				effectRow("env", "reaches every server", func(t *testing.T) {
					cfg := config(t, `"e":{"command":"sh","args":["-c","test \"$MATRIX_X\" = 1 && exec `+bin.good+`"]}`)
					wantCode(t, 0, all(cfg, "--env", "MATRIX_X=1")...)
				}),
				effectRow("secret-env", "a plain value hidden", func(t *testing.T) {
					// The server's instructions echo MATRIX_V, and the trace
					// holds them.
					cfg := config(t, `"e":{"command":"`+bin.raw+`","args":["-echo-env","MATRIX_V"]}`)
					tr := filepath.Join(t.TempDir(), "t.jsonl")
					wantCode(t, 0, all(cfg, "--trace", tr, "--env", "MATRIX_V=richword")...)
					if b, _ := os.ReadFile(tr); !strings.Contains(string(b), "key is richword") {
						t.Fatalf("without --secret-env the echo is not in the trace, and the row proves nothing: %.300s", b)
					}
					wantCode(t, 0, all(cfg, "--trace", tr, "--env", "MATRIX_V=richword", "--secret-env", "MATRIX_V")...)
					if b, _ := os.ReadFile(tr); strings.Contains(string(b), "richword") || !strings.Contains(string(b), "key is ***") {
						t.Errorf("--secret-env: the value is shown: %.300s", b)
					}
				}),
				effectRow("inherit-env", "mcpprobe's whole environment reaches every server", func(t *testing.T) {
					cfg := config(t, `"e":{"command":"sh","args":["-c","test \"$MATRIX_INH\" = 1 && exec `+bin.good+`"]}`)
					if r := probeRun(t, []string{"MATRIX_INH=1"}, nil, all(cfg)...); r.code != 3 {
						t.Errorf("without --inherit-env: exit %d, want 3: %s", r.code, r.stderr)
					}
					if r := probeRun(t, []string{"MATRIX_INH=1"}, nil, all(cfg, "--inherit-env")...); r.code != 0 {
						t.Errorf("with --inherit-env: exit %d: %s", r.code, r.stderr)
					}
				}),
				effectRow("header", "sent to a URL server", func(t *testing.T) {
					mcpprobe(t, all(config(t, `"h":`+url(fx.httpURL)), "-H", "X-All-"+cmd+": a")...)
					if !fx.http.sawHeader("X-All-"+cmd, "a") {
						t.Error("the header never reached the server")
					}
				}),
				effectRow("header-env", "sent to a URL server from the environment", func(t *testing.T) {
					probeRun(t, []string{"MATRIX_HE=he"}, nil, all(config(t, `"h":`+url(fx.httpURL)), "--header-env", "X-All-Env-"+cmd+"=MATRIX_HE")...)
					if !fx.http.sawHeader("X-All-Env-"+cmd, "he") {
						t.Error("the header never reached the server")
					}
				}),
				effectRow("transport", "sse: no POST to a Streamable server", func(t *testing.T) {
					l := &headerLog{h: &fakeHTTP{}}
					srv := httptest.NewServer(l)
					defer srv.Close()
					wantCode(t, 3, all(config(t, `"h":`+url(srv.URL+"/mcp")), "--transport", "sse")...)
					if l.posts() != 0 {
						t.Error("POSTs with --transport sse")
					}
				}),
				effectRow("insecure", "reaches a self-signed https server", func(t *testing.T) {
					l := &headerLog{h: &fakeHTTP{}}
					srv := httptest.NewUnstartedServer(l)
					srv.StartTLS()
					defer srv.Close()
					mcpprobe(t, all(config(t, `"h":`+url(srv.URL+"/mcp")), "--insecure")...)
					if l.posts() == 0 {
						t.Error("nothing reached the https server")
					}
				}),
				effectRow("grace", "100ms: a lingering server is stopped at once", func(t *testing.T) {
					j, _ := json.Marshal(map[string]any{"command": fx.graceArgv[0], "args": fx.graceArgv[1:]})
					cfg := config(t, `"l":`+string(j))
					graceCut(t, func(grace ...string) result { return mcpprobe(t, all(cfg, grace...)...) })
				}),
				effectRow("fail-on", "exit 1 on a server that failed", func(t *testing.T) {
					wantCode(t, 1, all(config(t, `"g":`+good()+`,"f":{"command":"false"}`), "--fail-on", "error")...)
				}),
				effectRow("quiet", "no progress on a terminal's stderr", func(t *testing.T) {
					if tty, _, _ := onTerminal(t, 100, true, nil, all(fx.slowCfg, "--quiet")...); tty != "" {
						t.Errorf("--quiet: %q", tty)
					}
					if tty, _, _ := onTerminal(t, 100, true, nil, all(fx.slowCfg)...); tty == "" {
						t.Error("no progress without --quiet: the row shows nothing")
					}
				}),
			}
			if cmd == "report" {
				rows = append(rows, refusedRow("no-color", all(fx.cfg, "--no-color")...), refusedRow("wide", all(fx.cfg, "--wide")...))
			} else {
				failing := all(config(t, `"g":`+good()+`,"f":{"command":"false"}`))
				env := []string{"COLUMNS=", "NO_COLOR=", "TERM=xterm"}
				rows = append(rows,
					effectRow("no-color", "no ANSI colour on a terminal", func(t *testing.T) {
						if tty, _, _ := onTerminal(t, 300, false, env, append(failing, "--no-color")...); strings.Contains(tty, "\x1b[") {
							t.Errorf("--no-color still colours: %q", tty)
						}
						if tty, _, _ := onTerminal(t, 300, false, env, failing...); !strings.Contains(tty, "\x1b[") {
							t.Error("no colour without --no-color: the row shows nothing")
						}
					}),
					effectRow("wide", "tables at full width on a narrow terminal", func(t *testing.T) {
						tty, _, _ := onTerminal(t, 40, false, env, append(failing, "--wide")...)
						widest := 0
						for _, l := range strings.Split(tty, "\n") {
							widest = max(widest, terminal.Width(l))
						}
						if widest <= 40 {
							t.Errorf("--wide on a 40-column terminal: widest line %d", widest)
						}
					}),
				)
			}
			rows = append(rows, oauthRefusedRows(func(flags ...string) []string { return all(fx.cfg, flags...) })...) // oauth_e2e_test.go
			rows = append(rows, effectRow("verbose", "each server's text, each finding, every row", func(t *testing.T) {
				// Without it: one line per server, a finding two servers
				// share once, tools delivered whole folded; with it, as
				// each server's own command writes them.
				cfg, shortHas, fullHas := fx.cfg, "server g: ", "=== server g ==="
				switch cmd {
				case "wire":
					j, _ := json.Marshal(map[string]any{"command": bin.raw, "args": []string{"-banner"}})
					cfg = config(t, `"a":`+string(j)+`,"b":`+string(j))
					shortHas, fullHas = "servers `a`, `b`: ", "server `b`: "
				case "report":
					shortHas, fullHas = "2 tools delivered whole on every host", "| `delete_order` | 68 |"
				}
				short, full := mcpprobe(t, all(cfg)...).stdout, mcpprobe(t, all(cfg, "--verbose")...).stdout
				if !strings.Contains(short, shortHas) || strings.Contains(short, fullHas) {
					t.Errorf("without --verbose: want %q, not %q:\n%s", shortHas, fullHas, short)
				}
				if !strings.Contains(full, fullHas) || strings.Contains(full, shortHas) {
					t.Errorf("--verbose: want %q, not %q:\n%s", fullHas, shortHas, full)
				}
			}))
			var global []string
			for _, f := range acceptedFlags(t, cmd) {
				if sharedFlag(t, cmd, f) {
					global = append(global, f)
				}
			}
			runMatrix(t, global, rows)
		})
	}
}

// secretEnvRow shows --secret-env's effect: richword, an argument of the
// server's command line and the value of MATRIX_V, is shown in the
// target as a plain word, and hidden once MATRIX_V is marked secret.
func secretEnvRow(t *testing.T, line func(flags ...string) []string) {
	t.Helper()
	plain := wantCode(t, 0, line("--env", "MATRIX_V=richword")...)
	if !strings.Contains(gjson.Get(plain.stdout, "target").String(), "richword") {
		t.Fatalf("without --secret-env the plain value is hidden: %.300s", plain.stdout)
	}
	r := wantCode(t, 0, line("--env", "MATRIX_V=richword", "--secret-env", "MATRIX_V")...)
	if strings.Contains(r.stdout, "richword") || !strings.Contains(gjson.Get(r.stdout, "target").String(), "***") {
		t.Errorf("--secret-env: the value is shown: %.300s", r.stdout)
	}
}

// graceCut checks that --grace 100ms stops the lingering server of
// fx.graceArgv at once: run (given the grace flags) takes at least 2 s
// less with them than with the default grace, which waits 2 s for the
// exit and 2 s after the SIGTERM it ignores. Those waits are timers, the
// same on any machine, so the difference holds under any load, where a
// bound on the time alone would not.
func graceCut(t *testing.T, run func(grace ...string) result) {
	t.Helper()
	def := run()
	fast := run("--grace", "100ms")
	if saved := def.took - fast.took; saved < 2*time.Second {
		t.Errorf("--grace 100ms took %s, the default grace %s: want at least 2 s less (the default waits 2 s twice)", fast.took, def.took)
	}
}
