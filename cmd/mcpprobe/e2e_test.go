//go:build e2e

package main

// End-to-end tests: the built binary against real processes, the fixture
// servers, a Go SDK example and the npm peer servers, as a user runs it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
	"github.com/tidwall/gjson"
)

var bin struct {
	dir, mcpprobe, good, raw, hello, sdkEverything string
}

func TestMain(m *testing.M) {
	peakRunMain()
	dir, err := os.MkdirTemp("", "mcpprobe-e2e-")
	if err != nil {
		panic(err)
	}
	bin.dir = dir
	bin.mcpprobe = filepath.Join(dir, "mcpprobe")
	bin.good = filepath.Join(dir, "goodserver")
	bin.raw = filepath.Join(dir, "rawserver")
	bin.hello = filepath.Join(dir, "hello")
	bin.sdkEverything = filepath.Join(dir, "sdk-everything")
	builds := [][2]string{
		{bin.mcpprobe, "."},
		{bin.good, "../../fixtures/goodserver"},
		{bin.raw, "../../fixtures/rawserver"},
		{bin.hello, "github.com/modelcontextprotocol/go-sdk/examples/server/hello"},
		{bin.sdkEverything, "github.com/modelcontextprotocol/go-sdk/examples/server/everything"},
	}
	for i, b := range builds {
		args := []string{"build", "-o", b[0], b[1]}
		if i == 0 && os.Getenv("MCPPROBE_E2E_RACE") != "" {
			// The binary under test, built with the race detector.
			args = []string{"build", "-race", "-o", b[0], b[1]}
		}
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", b[1], err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	markdownDir = filepath.Join(dir, "markdown")
	_ = os.Mkdir(markdownDir, 0o755)
	calibrate()
	code := m.Run()
	if code == 0 && !testing.Short() {
		code = lintCollected()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// startReference is how long `mcpprobe wire --json goodserver` takes on
// the idle reference machine (2 cores): a start, a handshake, the lists,
// an exit.
const startReference = 60 * time.Millisecond

// calibrate measures how long this machine takes now to start and probe
// the bundled server (the median of five runs), and raises the load
// factor by it: every wall-clock bound in these tests is scaled by that
// factor (bound, secs), so a loaded machine waits longer instead of
// failing what an idle one passes.
func calibrate() {
	var runs []time.Duration
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		if err := exec.Command(bin.mcpprobe, "wire", "--json", bin.good).Run(); err != nil {
			fmt.Fprintf(os.Stderr, "calibrating: mcpprobe wire goodserver: %v\n", err)
			return
		}
		runs = append(runs, time.Since(t0))
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	loadfactor.Observe("mcpprobe wire goodserver", runs[2], startReference)
	fmt.Fprintf(os.Stderr, "e2e: %s; wall-clock bounds scaled by it\n", loadfactor.Describe())
}

// secs is bound as a flag value for the binary ("3s" → "7.5s").
func secs(d time.Duration) string { return loadfactor.Seconds(d) }

type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
	peakKB         int // mcpprobe's peak resident set, from wait4 (Linux; 0 elsewhere): see measurePeak
}

// mcpprobe runs the built binary; no test may take it past a minute (on
// an idle machine; scaled by the load).
func mcpprobe(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
	peak := measurePeak(cmd)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpprobe: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("mcpprobe %q hung for %v", args, bound(time.Minute))
	}
	r.peakKB = peak()
	collectMarkdown(args, r)
	return r
}

func wireJSON(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	r := mcpprobe(t, append([]string{"wire", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	if !gjson.Valid(r.stdout) {
		t.Fatalf("--json output is not JSON: %q", r.stdout)
	}
	return gjson.Parse(r.stdout)
}

func findingCodes(v gjson.Result) []string {
	var codes []string
	for _, f := range v.Get("findings").Array() {
		codes = append(codes, f.Get("code").String())
	}
	return codes
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func names(v gjson.Result, key string) []string {
	var out []string
	for _, it := range v.Get(key).Array() {
		out = append(out, it.Get("name").String())
	}
	return out
}

type frame struct {
	Dir    string `json:"dir"`
	TNs    int64  `json:"t_ns"`
	Raw    string `json:"raw"`
	RawB64 []byte `json:"raw_b64"`
	Cut    bool   `json:"cut"`
	Redact bool   `json:"redacted"`
}

func (f frame) bytes() []byte {
	if f.RawB64 != nil {
		return f.RawB64
	}
	return []byte(f.Raw)
}

func readTrace(t *testing.T, path string) []frame {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var frames []frame
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		frames = append(frames, f)
	}
	return frames
}

// replay is the independent capture: it starts the server itself, with
// nothing of mcpprobe's code, sends the frames mcpprobe sent, each request
// only once the previous one is answered, and returns every response by id
// exactly as the server wrote it.
func replay(t *testing.T, argv []string, sends []frame) map[string][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound(30*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cancel(); _ = cmd.Wait() }()
	lines := make(chan []byte, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	got := map[string][]byte{}
	for _, f := range sends {
		if _, err := stdin.Write(append(f.bytes(), '\n')); err != nil {
			t.Fatalf("replay write: %v", err)
		}
		m := gjson.Parse(f.Raw)
		if !m.Get("method").Exists() || !m.Get("id").Exists() {
			continue
		}
		want := m.Get("id").Raw
		for {
			l, ok := <-lines
			if !ok {
				t.Fatalf("replay: server closed stdout before answering id %s", want)
			}
			r := gjson.ParseBytes(l)
			if id := r.Get("id"); id.Exists() && !r.Get("method").Exists() {
				got[id.Raw] = l
				if id.Raw == want {
					break
				}
			}
		}
	}
	return got
}

// assertSameAsReplay checks that every response mcpprobe traced is, byte
// for byte, what the server writes to an independent client.
func assertSameAsReplay(t *testing.T, argv []string, frames []frame) int {
	t.Helper()
	var sends []frame
	traced := map[string][]byte{}
	for _, f := range frames {
		switch f.Dir {
		case "send":
			sends = append(sends, f)
		case "recv":
			r := gjson.Parse(f.Raw)
			if id := r.Get("id"); id.Exists() && !r.Get("method").Exists() {
				traced[id.Raw] = f.bytes()
			}
		}
	}
	independent := replay(t, argv, sends)
	compared := 0
	for id, want := range independent {
		got, ok := traced[id]
		if !ok {
			t.Errorf("response %s in the independent capture is missing from the trace", id)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("response %s differs from the independent capture:\ntrace:       %.300s\nindependent: %.300s", id, got, want)
		}
		compared++
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
	return compared
}

func TestWireGoodServer(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	v := wireJSON(t, "--trace", trace, bin.good)
	if got := v.Get("protocol_version").String(); got != "2026-07-28" {
		t.Errorf("protocol_version = %q, want 2026-07-28 (the Go SDK v1.8 answers server/discover)", got)
	}
	if got := v.Get("wire.era").String(); got != "modern" {
		t.Errorf("era = %q", got)
	}
	if got := v.Get("wire.server_info.name").String() + " " + v.Get("wire.server_info.version").String(); got != "orders-server 1.4.2" {
		t.Errorf("server_info = %s", v.Get("wire.server_info").Raw)
	}
	if got := names(v, "wire.tools"); strings.Join(got, ",") != "delete_order,find_orders,order_total" {
		t.Errorf("tools = %v", got)
	}
	if got := names(v, "wire.prompts"); len(got) != 1 || got[0] != "summarize_order" {
		t.Errorf("prompts = %v", got)
	}
	if got := v.Get("wire.resources.0.uri").String(); got != "orders://recent" {
		t.Errorf("resources = %s", v.Get("wire.resources").Raw)
	}
	if got := v.Get("wire.resource_templates.0.uriTemplate").String(); got != "orders://{id}" {
		t.Errorf("resource_templates = %s", v.Get("wire.resource_templates").Raw)
	}
	if !strings.HasPrefix(v.Get("wire.instructions").String(), "This server manages the ACME order book.") {
		t.Errorf("instructions = %s", v.Get("wire.instructions").Raw)
	}
	if n := len(v.Get("findings").Array()); n != 0 {
		t.Errorf("a well-behaved server has findings: %s", v.Get("findings").Raw)
	}
	for _, k := range []string{"first_byte_ns", "initialize_ns", "last_page_ns", "exit_ns"} {
		if v.Get("wire.timings."+k).Int() <= 0 {
			t.Errorf("timings.%s = %s", k, v.Get("wire.timings."+k).Raw)
		}
	}
	tm := v.Get("wire.timings")
	if !(tm.Get("first_byte_ns").Int() <= tm.Get("initialize_ns").Int() && tm.Get("initialize_ns").Int() <= tm.Get("last_page_ns").Int()) {
		t.Errorf("timings out of order: %s", tm.Raw)
	}
	frames := readTrace(t, trace)
	assertSameAsReplay(t, []string{bin.good}, frames)
	// Every tool in --json is, byte for byte, a piece of a traced frame.
	for _, tool := range v.Get("wire.tools").Array() {
		found := false
		for _, f := range frames {
			if f.Dir == "recv" && strings.Contains(f.Raw, tool.Raw) {
				found = true
			}
		}
		if !found {
			t.Errorf("tool %s in --json is not a verbatim piece of any received frame", tool.Get("name"))
		}
	}
}

func TestWirePaginationAndSave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	save := filepath.Join(dir, "saved")
	v := wireJSON(t, "--trace", trace, "--save", save, "--", bin.good, "-page-size", "2", "-extra-tools", "5")
	if n := len(v.Get("wire.tools").Array()); n != 8 {
		t.Fatalf("got %d tools across pages, want 8", n)
	}
	if p := v.Get(`wire.lists.#(method=="tools/list").pages`).Int(); p != 4 {
		t.Errorf("tools/list pages = %d, want 4", p)
	}
	files, _ := filepath.Glob(filepath.Join(save, "*-tools-list.*.json"))
	if len(files) != 4 {
		t.Fatalf("saved %d tools/list pages, want 4: %v", len(files), files)
	}
	recv := map[string]bool{}
	for _, f := range readTrace(t, trace) {
		if f.Dir == "recv" {
			recv[f.Raw] = true
		}
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if !recv[string(b)] {
			t.Errorf("%s is not byte-identical to a received frame: %.200s", filepath.Base(f), b)
		}
	}
	all, _ := filepath.Glob(filepath.Join(save, "*.json"))
	if len(all) != 1+4+1+1+1 {
		t.Errorf("saved %d files, want 8 (discover, 4 tool pages, prompts, resources, templates): %v", len(all), all)
	}
}

func TestWireByteExactOddJSON(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	v := wireJSON(t, "--trace", trace, "--", bin.raw, "-odd-json", "-pages", "3")
	frames := readTrace(t, trace)
	n := assertSameAsReplay(t, []string{bin.raw, "-odd-json", "-pages", "3"}, frames)
	if n < 4 {
		t.Errorf("compared %d responses, want discover, initialize and 3 pages", n)
	}
	// The \u escapes, the escaped slash and the spacing survive into --json.
	alpha := v.Get("wire.tools.0").Raw
	if alpha != `{"inputSchema":{ "type" : "object" },"description":"caf\u00e9 \ud83d\ude00 \/ slash","name":"alpha"}` {
		t.Errorf("tool as received was re-encoded: %s", alpha)
	}
	if got := v.Get("wire.tools.0.description").String(); got != "café 😀 / slash" {
		t.Errorf("decoded description = %q", got)
	}
}

func grandchildPid(t *testing.T, frames []frame) int {
	for _, f := range frames {
		var pid int
		if f.Dir == "stderr" {
			if _, err := fmt.Sscanf(f.Raw, "grandchild pid %d", &pid); err == nil {
				return pid
			}
		}
	}
	t.Fatal("no grandchild pid in the trace")
	return 0
}

// alive is true for a process that exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func TestWireMisbehaviours(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		flags    []string // mcpprobe flags
		server   []string // rawserver flags
		codes    []string // findings that must be there
		notCodes []string // findings that must not
		tools    int
		check    func(t *testing.T, v gjson.Result, frames []frame)
	}{
		{name: "clean", tools: 8, notCodes: []string{"stdout-noise"}},
		{name: "banner on stdout", server: []string{"-banner"}, codes: []string{"stdout-noise"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, _ []frame) {
				if got := v.Get("wire.stdout_noise.0").String(); got != "Server listening on stdio…" {
					t.Errorf("stdout_noise = %s", v.Get("wire.stdout_noise").Raw)
				}
			}},
		{name: "structured log line", server: []string{"-log-json"}, codes: []string{"stdout-noise"}, tools: 8},
		{name: "partial write glued", server: []string{"-partial"}, codes: []string{"partial-write"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, frames []frame) {
				if v.Get("wire.server_info.name").String() != "rawserver" {
					t.Errorf("the glued initialize response was not recovered")
				}
				for _, f := range frames {
					if f.Dir == "noise" && !strings.HasPrefix(f.Raw, `Loading{"jsonrpc"`) {
						t.Errorf("noise frame not kept whole: %q", f.Raw)
					}
				}
			}},
		{name: "invalid utf8", server: []string{"-invalid-utf8"}, codes: []string{"invalid-utf8", "stdout-noise"}, tools: 8,
			check: func(t *testing.T, _ gjson.Result, frames []frame) {
				for _, f := range frames {
					if f.Dir == "noise" && !bytes.Equal(f.bytes(), []byte("bad bytes: \xff\xfe")) {
						t.Errorf("noise = %q (raw_b64 %v), want the exact invalid bytes", f.Raw, f.RawB64 != nil)
					}
				}
			}},
		{name: "line over the limit", flags: []string{"--max-line", "1000"}, server: []string{"-huge-line", "5000"}, codes: []string{"line-too-long"}},
		{name: "unknown id", server: []string{"-unknown-id"}, codes: []string{"unknown-id"}, tools: 8},
		{name: "stderr flood is drained", server: []string{"-stderr-flood", "20000"}, codes: []string{"stderr-flood"}, tools: 8},
		{name: "three pages", server: []string{"-pages", "3"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, _ []frame) {
				if p := v.Get("wire.lists.0.pages").Int(); p != 3 {
					t.Errorf("pages = %d", p)
				}
			}},
		{name: "cursor loop", server: []string{"-pages", "2", "-cursor-loop"}, codes: []string{"cursor-loop"}, tools: 8},
		{name: "duplicate tool", server: []string{"-pages", "2", "-dup-tool"}, codes: []string{"duplicate-tool"}, tools: 9},
		{name: "modern era", server: []string{"-modern"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, frames []frame) {
				if v.Get("wire.era").String() != "modern" || v.Get("protocol_version").String() != "2026-07-28" {
					t.Errorf("era %s version %s", v.Get("wire.era"), v.Get("protocol_version"))
				}
				for _, f := range frames {
					if f.Dir == "send" && strings.Contains(f.Raw, `"initialize"`) {
						t.Errorf("initialize sent to a modern server: %s", f.Raw)
					}
					if f.Dir == "send" && strings.Contains(f.Raw, `"tools/list"`) && !strings.Contains(f.Raw, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
						t.Errorf("modern request without _meta: %s", f.Raw)
					}
				}
			}},
		{name: "silent to discover", flags: []string{"--discover-timeout", "300ms"}, server: []string{"-discover-silent"}, codes: []string{"discover-silent"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, _ []frame) {
				if v.Get("wire.era").String() != "legacy" {
					t.Errorf("era = %s", v.Get("wire.era"))
				}
			}},
		{name: "discover unsupported version", server: []string{"-discover-unsupported"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, _ []frame) {
				if v.Get("protocol_version").String() != "2025-11-25" {
					t.Errorf("protocol_version = %s", v.Get("protocol_version"))
				}
			}},
		{name: "discover answered {}", server: []string{"-discover-empty"}, tools: 8, notCodes: []string{"no-result-type"},
			check: func(t *testing.T, v gjson.Result, frames []frame) {
				if v.Get("wire.era").String() != "legacy" || v.Get("protocol_version").String() != "2025-11-25" {
					t.Errorf("era %s version %s, want legacy 2025-11-25", v.Get("wire.era"), v.Get("protocol_version"))
				}
				sawInit := false
				for _, f := range frames {
					sawInit = sawInit || f.Dir == "send" && strings.Contains(f.Raw, `"initialize"`)
				}
				if !sawInit {
					t.Errorf("no initialize sent after server/discover was answered {}")
				}
			}},
		{name: "newest version rejected", server: []string{"-reject-version", "2025-11-25"}, codes: []string{"initialize-rejected"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, _ []frame) {
				if v.Get("protocol_version").String() != "2025-06-18" {
					t.Errorf("protocol_version = %s", v.Get("protocol_version"))
				}
			}},
		{name: "pinned version", flags: []string{"--protocol", "2024-11-05"}, tools: 8,
			check: func(t *testing.T, v gjson.Result, frames []frame) {
				if v.Get("protocol_version").String() != "2024-11-05" {
					t.Errorf("protocol_version = %s", v.Get("protocol_version"))
				}
				if strings.Contains(frames[0].Raw, "server/discover") {
					t.Errorf("server/discover sent though a legacy version was pinned")
				}
			}},
		{name: "tools change within a session", server: []string{"-unstable"}, codes: []string{"tools-unstable"}, tools: 8},
		{name: "unknown version answered", server: []string{"-init-version", "1999-01-01"}, codes: []string{"unknown-protocol-version"}, tools: 8},
		{name: "advertised list missing", server: []string{"-prompts-missing"}, codes: []string{"method-not-found"}, tools: 8},
		{name: "no final newline then exit", server: []string{"-no-newline-exit"}, codes: []string{"no-final-newline"}, tools: 8}, // it exits as the probe finishes: exited-early would be a race
		{name: "exits after initialize", server: []string{"-exit-after-init"}, codes: []string{"list-failed", "exited-early"}},
		{name: "server requests answered", server: []string{"-server-requests"}, codes: []string{"server-request", "notification"}, tools: 8,
			check: func(t *testing.T, _ gjson.Result, frames []frame) {
				want := map[string]string{
					`"r1"`: `{"jsonrpc":"2.0","id":"r1","error":{"code":-32601,"message":"mcpprobe declared no roots capability"}}`,
					`"r2"`: `{"jsonrpc":"2.0","id":"r2","error":{"code":-32601,"message":"mcpprobe declared no sampling capability"}}`,
					`3`:    `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"mcpprobe declared no elicitation capability"}}`,
					`"p4"`: `{"jsonrpc":"2.0","id":"p4","result":{}}`,
				}
				got := map[string]string{}
				for _, f := range frames {
					if f.Dir == "stderr" && strings.HasPrefix(f.Raw, "answer ") {
						a := strings.TrimPrefix(f.Raw, "answer ")
						got[gjson.Get(a, "id").Raw] = a
					}
				}
				for id, w := range want {
					if got[id] != w {
						t.Errorf("answer to %s = %q, want %q", id, got[id], w)
					}
				}
			}},
		{name: "ignores stdin close and SIGTERM", flags: []string{"--grace", "200ms"}, server: []string{"-ignore-stdin-close", "-ignore-sigterm", "-grandchild"}, codes: []string{"needs-sigkill"}, tools: 8,
			check: func(t *testing.T, _ gjson.Result, frames []frame) {
				if pid := grandchildPid(t, frames); alive(pid) {
					t.Errorf("grandchild %d survived the probe", pid)
				}
			}},
		{name: "leaves a child behind", server: []string{"-grandchild"}, codes: []string{"leftover-processes"}, notCodes: []string{"needs-sigkill"}, tools: 8,
			check: func(t *testing.T, _ gjson.Result, frames []frame) {
				if pid := grandchildPid(t, frames); alive(pid) {
					t.Errorf("grandchild %d survived the probe", pid)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "t.jsonl")
			args := append(append([]string{"--trace", trace}, tc.flags...), "--", bin.raw)
			v := wireJSON(t, append(args, tc.server...)...)
			codes := findingCodes(v)
			for _, c := range tc.codes {
				if !has(codes, c) {
					t.Errorf("finding %q missing; got %v", c, codes)
				}
			}
			for _, c := range tc.notCodes {
				if has(codes, c) {
					t.Errorf("finding %q unexpected; got %v", c, codes)
				}
			}
			if n := len(v.Get("wire.tools").Array()); n != tc.tools {
				t.Errorf("got %d tools, want %d", n, tc.tools)
			}
			if tc.check != nil {
				tc.check(t, v, readTrace(t, trace))
			}
		})
	}
}

func TestCannotProbe(t *testing.T) {
	t.Parallel()
	noexec := filepath.Join(t.TempDir(), "server")
	os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		code    int
		stderr  []string
		maxTook time.Duration
	}{
		{"command not found", []string{"wire", "no-such-mcp-server-xyz"}, 3, []string{"not on PATH"}, 5 * time.Second},
		{"not executable", []string{"wire", noexec}, 3, []string{"not executable"}, 5 * time.Second},
		{"exits before answering", []string{"wire", "--", bin.raw, "-exit-before-init", "3"}, 3,
			[]string{"exited before it answered", "exit status 3", "stderr: fatal: ORDERS_API_KEY is not set"}, 5 * time.Second},
		{"never answers", []string{"wire", "--startup-timeout", "1s", "--discover-timeout", "300ms", "--", bin.raw, "-silent"}, 3,
			[]string{"did not answer initialize within 1s (--startup-timeout)", "Try:"}, 5 * time.Second},
		{"no target", []string{"wire"}, 2, []string{"no target"}, 5 * time.Second},
		{"unknown protocol", []string{"wire", "--protocol", "2030-01-01", bin.raw}, 2, []string{"--protocol"}, 5 * time.Second},
		{"unknown flag", []string{"wire", "--no-such-flag", bin.raw}, 2, []string{"no-such-flag"}, 5 * time.Second},
		{"fail-on gate", []string{"wire", "--fail-on", "error", "--", bin.raw, "-banner"}, 1, []string{"--fail-on tripped: error (1)"}, 5 * time.Second},
		// One error counted once, at its own severity, though both gates trip on it.
		{"fail-on two gates", []string{"wire", "--fail-on", "error,warning", "--", bin.raw, "-banner"}, 1, []string{"--fail-on tripped: error (1)\n"}, 5 * time.Second},
		{"fail-on unknown gate", []string{"wire", "--fail-on", "sometimes", bin.raw}, 2, []string{"--fail-on \"sometimes\""}, 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpprobe(t, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", r.code, tc.code, r.stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
				t.Errorf("stack trace on stderr:\n%s", r.stderr)
			}
			if r.took > bound(tc.maxTook) {
				t.Errorf("took %v, want under %v", r.took, bound(tc.maxTook))
			}
		})
	}
}

func TestTerminalOutputEscapesServerText(t *testing.T) {
	t.Parallel()
	r := mcpprobe(t, "wire", "--", bin.raw, "-ansi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, bad := range []string{"\x1b", "\u202e", "\u202c"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("output contains raw %q", bad)
		}
	}
	if !strings.Contains(r.stdout, `\x1b[2J\x1b[31mthese\x1b[0m tools \u202eesrever\u202c`) {
		t.Errorf("escaped instructions missing from:\n%s", r.stdout)
	}
}

func TestSecretsNeverShown(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-s3cr3t"
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	for _, format := range []string{"--json", "--quiet"} {
		r := mcpprobe(t, "wire", format, "--trace", trace, "--env", "ORDERS_API_KEY="+secret, "--", bin.raw, "-echo-env", "ORDERS_API_KEY")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s output shows the --env value", format)
		}
		if format == "--json" {
			if got := gjson.Get(r.stdout, "wire.instructions").String(); got != "key is ***" {
				t.Errorf("instructions = %q, want the value redacted", got)
			}
			if got := gjson.Get(r.stdout, "target").String(); !strings.HasPrefix(got, "ORDERS_API_KEY=*** ") {
				t.Errorf("target = %q", got)
			}
		}
		data, _ := os.ReadFile(trace)
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("trace shows the --env value")
		}
		redacted := 0
		for _, f := range readTrace(t, trace) {
			if f.Redact {
				redacted++
			}
		}
		if redacted != 1 {
			t.Errorf("%d frames marked redacted, want 1 (the initialize result)", redacted)
		}
	}
}

func TestConfigFiles(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, ".mcp.json")
	os.WriteFile(claude, []byte(`{"mcpServers":{"raw":{"command":"`+bin.raw+`","args":["-pages","${PAGES:-2}"],"env":{"ORDERS_API_KEY":"${MY_KEY}"}}}}`), 0o644)
	vsdir := filepath.Join(dir, ".vscode")
	os.Mkdir(vsdir, 0o755)
	vscode := filepath.Join(vsdir, "mcp.json")
	os.WriteFile(vscode, []byte(`{
  // VS Code allows comments and trailing commas
  "servers": {
    "good": {"type": "stdio", "command": "${env:GOOD}", "args": [],},
  },
}`), 0o644)
	t.Setenv("MY_KEY", "config-secret-value")
	t.Setenv("GOOD", bin.good)
	v := wireJSON(t, "--config", claude, "raw")
	if p := v.Get("wire.lists.0.pages").Int(); p != 2 {
		t.Errorf("${PAGES:-2} not expanded: pages = %d", p)
	}
	if got := v.Get("target").String(); got != "ORDERS_API_KEY=*** "+bin.raw+" -pages 2" {
		t.Errorf("target = %q", got)
	}
	v = wireJSON(t, "--config", vscode, "good")
	if got := v.Get("wire.server_info.name").String(); got != "orders-server" {
		t.Errorf("server_info = %s", v.Get("wire.server_info").Raw)
	}
	r := mcpprobe(t, "wire", "--config", claude, "nope")
	if r.code != 2 || !strings.Contains(r.stderr, `no server "nope"; it has: raw`) {
		t.Errorf("unknown name: exit %d, %s", r.code, r.stderr)
	}
}

func TestReportIsDeterministic(t *testing.T) {
	t.Parallel()
	run := func() string {
		r := mcpprobe(t, "report", "--date", "2026-12-02", bin.good)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		return r.stdout
	}
	a, b := run(), run()
	if a != b {
		t.Errorf("two reports of the same server differ")
	}
	for _, want := range []string{
		"# orders-server 1.4.2 — mcpprobe report\n",
		"· protocol 2026-07-28 (server/discover: supported) · mcpprobe ",
		"· 2026-12-02\n",
		"## Findings\n\n| severity | code",
		"| warning | instructions-cut | the server instructions lose 126 of 638 chars (20%) on ChatGPT chat: cut at 512 (line 1, column 513, mid-word) |",
		"## Delivery by host\n",
		// Claude Code (4,096 since 2.1.296) delivers find_orders whole; the
		// strictest row counts its older versions' 2,048 cut.
		"| `find_orders` | 2,172 | whole | whole, deferred | whole, deferred | whole | whole | whole, deferred; describes kept | whole | whole | 94% (cut at 2,048), deferred; describes kept |",
		"tools/list: 1 page, 3,953 bytes, ~891 tokens (o200k_base estimate) as the server sent them.",
		"## Wire\n",
		"### Tools\n\n3 items in 1 page,",
		"| `find_orders` | Find orders | 2,172 |",
		"### Prompts",
		"| `summarize_order` |",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("report lacks %q:\n%s", want, a)
		}
	}
}

// peer returns the path of an installed npm peer server's entry point.
func peer(t *testing.T, pkg, entry string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("../../scripts/peers/node_modules", pkg, entry))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatalf("%s is not installed: run scripts/install-peers.sh", pkg)
		}
		t.Skipf("%s is not installed (scripts/install-peers.sh)", pkg)
	}
	return p
}

func TestRealPeers(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	fsroot := t.TempDir()
	tests := []struct {
		name     string
		argv     []string
		server   string
		tools    []string // some tools that must be there
		nTools   int
		protocol string
		check    func(t *testing.T, v gjson.Result)
	}{
		{"server-everything", []string{"node", peer(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"},
			"mcp-servers/everything", []string{"echo", "get-sum"}, 13, "2025-11-25",
			func(t *testing.T, v gjson.Result) {
				if !strings.Contains(v.Get("wire.discover").String(), "-32601") {
					t.Errorf("discover = %s", v.Get("wire.discover"))
				}
				if !has(findingCodes(v), "notification") {
					t.Errorf("notifications/tools/list_changed not recorded: %v", findingCodes(v))
				}
			}},
		{"server-filesystem", []string{"node", peer(t, "@modelcontextprotocol/server-filesystem", "dist/index.js"), fsroot},
			"secure-filesystem-server", []string{"read_text_file", "list_directory"}, 14, "2025-11-25", nil},
		{"go-sdk example hello", []string{bin.hello}, "greeter", []string{"greet"}, 1, "2026-07-28", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "t.jsonl")
			// Node starts the npm servers slowly on a loaded machine: the
			// discover and startup bounds scale with the load, so that the
			// verdict is the server's, not the machine's.
			v := wireJSON(t, append([]string{"--trace", trace, "--discover-timeout", secs(3 * time.Second),
				"--startup-timeout", secs(30 * time.Second), "--"}, tc.argv...)...)
			if got := v.Get("wire.server_info.name").String(); got != tc.server {
				t.Errorf("server name = %q, want %q", got, tc.server)
			}
			if got := v.Get("protocol_version").String(); got != tc.protocol {
				t.Errorf("protocol = %q, want %q", got, tc.protocol)
			}
			got := names(v, "wire.tools")
			if len(got) != tc.nTools {
				t.Errorf("%d tools, want %d: %v", len(got), tc.nTools, got)
			}
			for _, n := range tc.tools {
				if !has(got, n) {
					t.Errorf("tool %s missing from %v", n, got)
				}
			}
			if codes := findingCodes(v); has(codes, "stdout-noise") || has(codes, "list-failed") {
				t.Errorf("unexpected findings: %s", v.Get("findings").Raw)
			}
			assertSameAsReplay(t, tc.argv, readTrace(t, trace))
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}
