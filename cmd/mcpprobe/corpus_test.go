package main

// The verdict corpus: real servers from four SDKs, each built with its
// SDK's ordinary high-level API and the same four tools, one prompt and
// one resource (fixtures/tsserver corpus, fixtures/tsserver2,
// fixtures/goodserver -corpus, fixtures/mcpgoserver). Their `wire` and
// `malformed` runs are recorded under testdata/corpus/NAME/, and the
// verdicts mcpprobe draws from them are kept as golden files
// (testdata/corpus/NAME/verdicts.json), so that any change in a verdict,
// ours or an SDK's, shows in review.
//
//	go test ./cmd/mcpprobe -run Corpus                               replay the traces, compare the verdicts
//	go test ./cmd/mcpprobe -run Corpus -update                       rewrite verdicts.json from the traces
//	go test -tags e2e ./cmd/mcpprobe -run Corpus -record -update     re-record the traces from the live servers first
//
// Replays run in-process with no server, with or without the e2e tag;
// TestCorpusLive (corpus_live_e2e_test.go, tag e2e) runs one quick `wire`
// against each live server to check that the installed SDK is the one
// recorded.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

var record = flag.Bool("record", false, "re-record testdata/corpus from the live corpus servers before replaying them")

// corpusServer is one server of the corpus.
type corpusServer struct {
	name     string // its directory under testdata/corpus
	sdk      string // the SDK and how the server uses it, for people
	server   string // serverInfo.name
	version  string // serverInfo.version: each corpus server reports its SDK's release
	protocol string // negotiated by mcpprobe's default (auto)
	argv     func(t *testing.T) []string
}

var corpus = []corpusServer{
	{"typescript-sdk-v1", "@modelcontextprotocol/sdk 1.32.2: McpServer, registerTool with zod, StdioServerTransport",
		"corpus-typescript-sdk", "1.32.2", "2025-11-25",
		func(t *testing.T) []string { return tsServer(t, "corpus") }},
	{"typescript-sdk-v2", "@modelcontextprotocol/server 2.4.0: McpServer, registerTool with z.object, connect(StdioServerTransport)",
		"corpus-typescript-sdk-v2", "2.4.0", "2025-11-25",
		func(t *testing.T) []string { return tsServer2(t, "connect") }},
	{"typescript-sdk-v2-serve", "@modelcontextprotocol/server 2.4.0: the same McpServer behind serveStdio, which also speaks 2026-07-28",
		"corpus-typescript-sdk-v2", "2.4.0", "2026-07-28",
		func(t *testing.T) []string { return tsServer2(t, "serve") }},
	{"go-sdk", "github.com/modelcontextprotocol/go-sdk v1.8.0: mcp.AddTool with typed arguments, StdioTransport",
		"corpus-go-sdk", "v1.8.0", "2026-07-28",
		func(t *testing.T) []string { return []string{goodServer(t), "-corpus"} }},
	{"mcp-go", "github.com/mark3labs/mcp-go v1.2.1: mcp.NewTool, ServeStdio, no input validation (the default)",
		"corpus-mcp-go", "v1.2.1", "2026-07-28",
		func(t *testing.T) []string { return []string{mcpgoServer(t)} }},
	{"mcp-go-validate", "github.com/mark3labs/mcp-go v1.2.1: the same with server.WithInputSchemaValidation",
		"corpus-mcp-go", "v1.2.1", "2026-07-28",
		func(t *testing.T) []string { return []string{mcpgoServer(t), "-validate"} }},
}

// The corpus tools, every one named with --call: malformed's default
// (read-only tools only) would leave three of them out.
var corpusTools = []string{"echo", "pick", "strict_echo", "lookup"}

// corpusReplayTimeout is how long a replay waits for an answer never
// recorded: a replay delivers each recorded answer at once, so it can wait
// less than the recording did (corpusRecordTimeout).
const corpusReplayTimeout = 300 * time.Millisecond

// corpusRun is one server's recorded runs, replayed.
type corpusRun struct {
	wire      *wire.Result
	malformed *malformed.Result
	err       error
}

var corpusRuns sync.Map // name → *corpusOnce

type corpusOnce struct {
	once sync.Once
	run  corpusRun
}

// replayed records cs first when -record is given, then replays its
// traces, once per test binary: TestCorpus and TestCorpusPermitted read
// the same runs.
func replayed(t *testing.T, cs corpusServer) corpusRun {
	t.Helper()
	v, _ := corpusRuns.LoadOrStore(cs.name, &corpusOnce{})
	co := v.(*corpusOnce)
	co.once.Do(func() {
		dir := filepath.Join("testdata", "corpus", cs.name)
		if *record {
			if co.run.err = recordCorpus(t, cs, dir); co.run.err != nil {
				return
			}
		}
		co.run = replayCorpus(dir)
	})
	if co.run.err == nil && co.run.malformed == nil {
		// The recording stopped short: its test was skipped (a server not
		// installed) or failed, and said why.
		t.Fatalf("%s was not recorded", cs.name)
	}
	if co.run.err != nil {
		t.Fatal(co.run.err)
	}
	return co.run
}

// replayCorpus runs wire and malformed in-process on the recorded traces,
// with the options they were recorded with.
func replayCorpus(dir string) corpusRun {
	ctx, cancel := context.WithTimeout(context.Background(), bound(30*time.Second))
	defer cancel()
	po := probe.Options{Protocol: "auto", Timeout: bound(corpusReplayTimeout), StartupTimeout: bound(2 * time.Second),
		DiscoverTimeout: time.Second, ClientVersion: version, MaxPages: 1000}

	wf, err := os.Open(filepath.Join(dir, "wire.jsonl"))
	if err != nil {
		return corpusRun{err: err}
	}
	defer wf.Close()
	frames, err := transport.ReadTrace(wf, 0)
	if err != nil {
		return corpusRun{err: err}
	}
	w, err := wire.Run(ctx, wire.Options{Spec: dial.Spec{Target: launch.ReplayTarget(filepath.Base(dir), frames), Probe: po}})
	if err != nil {
		return corpusRun{err: err}
	}

	mf, err := os.Open(filepath.Join(dir, "malformed.jsonl.gz"))
	if err != nil {
		return corpusRun{err: err}
	}
	defer mf.Close()
	z, err := gzip.NewReader(mf)
	if err != nil {
		return corpusRun{err: err}
	}
	frames, err = transport.ReadTrace(z, 0)
	if err != nil {
		return corpusRun{err: err}
	}
	m, err := malformed.Run(ctx, malformed.Options{
		Spec:  dial.Spec{Target: launch.ReplayTarget(filepath.Base(dir), frames), Probe: po},
		Tools: corpusTools,
	})
	if err != nil {
		return corpusRun{err: err}
	}
	return corpusRun{wire: w, malformed: m}
}

// verdictsJSON is what testdata/corpus/NAME/verdicts.json holds: the
// server, the negotiated version, wire's findings, and malformed's cases
// and findings, each as `--json` prints them (through the CLI's own
// reports.Result and envelope, findings sorted, validated against the schema), indented so
// that a change reviews line by line.
func verdictsJSON(t *testing.T, cs corpusServer, run corpusRun) []byte {
	t.Helper()
	c := run.wire.Capture
	wj := resultJSON(reports.NewWire(run.wire))
	m := run.malformed
	mj := resultJSON(reports.NewMalformed(m))
	for _, js := range [][]byte{wj, mj} {
		if err := jsonout.ValidateResult(js); err != nil {
			t.Errorf("the --json does not validate against the schema: %v", err)
		}
	}
	mal := &jsonout.Object{}
	mal.Set("protocol_version", m.Protocol)
	mal.Raw("verdicts", []byte(gjson.GetBytes(mj, "malformed.verdicts").Raw))
	mal.Raw("unjudged", []byte(gjson.GetBytes(mj, "malformed.unjudged").Raw))
	mal.Raw("cases", []byte(gjson.GetBytes(mj, "malformed.cases").Raw))
	mal.Raw("findings", []byte(gjson.GetBytes(mj, "findings").Raw))
	wr := &jsonout.Object{}
	wr.Set("protocol_version", c.ProtocolVersion)
	wr.Raw("server_info", []byte(gjson.GetBytes(wj, "wire.server_info").Raw))
	wr.Raw("findings", []byte(gjson.GetBytes(wj, "findings").Raw))
	o := &jsonout.Object{}
	o.Set("corpus", cs.name).Set("sdk", cs.sdk)
	o.Raw("wire", wr.Bytes()).Raw("malformed", mal.Bytes())
	var out bytes.Buffer
	if err := json.Indent(&out, o.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// TestCorpus replays each corpus server's traces and compares its verdicts
// with testdata/corpus/NAME/verdicts.json (-update rewrites them; -record
// re-records the traces first).
func TestCorpus(t *testing.T) {
	t.Parallel()
	for _, cs := range corpus {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			run := replayed(t, cs)
			// The recording is of the SDK release the table names, and of
			// the server it names: a trace recorded elsewhere fails here.
			info := run.wire.Capture.ServerInfo
			if got := gjson.GetBytes(info, "name").String(); got != cs.server {
				t.Errorf("recorded serverInfo.name %q, want %q", got, cs.server)
			}
			if got := gjson.GetBytes(info, "version").String(); got != cs.version {
				t.Errorf("recorded with SDK %s, the corpus pins %s: re-record (-record -update)", got, cs.version)
			}
			if run.wire.Capture.ProtocolVersion != cs.protocol || run.malformed.Protocol != cs.protocol {
				t.Errorf("negotiated %s (wire) and %s (malformed), want %s", run.wire.Capture.ProtocolVersion, run.malformed.Protocol, cs.protocol)
			}
			corpusGolden(t, filepath.Join("testdata", "corpus", cs.name, "verdicts.json"), verdictsJSON(t, cs, run))
		})
	}
}

// corpusGolden compares got with the file at path, or rewrites it with
// -update.
func corpusGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	gold.Check(t, path, got, "go test ./cmd/mcpprobe -run Corpus -update")
}

// permitted reports whether the spec permits what the server did in o's
// case, so that no verdict on it may be an error: everything except what a
// MUST (or MUST NOT) that binds the server decides. A clause that binds
// only the client, a SHOULD, or a text with no keyword leaves the server's
// behaviour open.
func permitted(o malformed.Outcome) bool {
	c := o.Clause
	return c == nil || c.Binds != "server" || !strings.HasPrefix(c.Keyword, "MUST")
}

// permittedErrors lists each case of r that the spec permits and that
// still draws an error-severity finding.
func permittedErrors(r *malformed.Result) []string {
	var bad []string
	for _, o := range r.Cases {
		if !permitted(o) {
			continue
		}
		one := &malformed.Result{Target: r.Target, Protocol: r.Protocol, Cases: []malformed.Outcome{o}}
		for _, f := range one.Findings() {
			if f.Severity == findings.Error {
				bad = append(bad, f.Tool+"|"+o.Case+": "+f.Message)
			}
		}
	}
	return bad
}

// Behaviour the spec permits never yields an error-severity verdict, on
// any server of the corpus.
func TestCorpusPermitted(t *testing.T) {
	t.Parallel()
	for _, cs := range corpus {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			for _, e := range permittedErrors(replayed(t, cs).malformed) {
				t.Errorf("the spec permits what the server did, yet: %s", e)
			}
		})
	}
}

// The check above can fail: a permitted case that drew an error is found.
func TestPermittedErrors(t *testing.T) {
	t.Parallel()
	client := &malformed.Clause{Version: "2025-11-25", Keyword: "SHOULD NOT", Binds: "client", Text: "the client SHOULD NOT send requests other than pings"}
	must := &malformed.Clause{Version: "JSON-RPC 2.0", Keyword: "MUST", Binds: "server", Text: "the Server MUST reply"}
	open := malformed.Expectation{Channel: malformed.Observed, Clause: client}
	strict := malformed.Expectation{Channel: malformed.RPCError, Code: -32601, Clause: must}
	tests := []struct {
		name string
		o    malformed.Outcome
		want int
	}{
		{"open case judged an error (the bug this guards)", malformed.Outcome{Case: "request before initialize", Channel: malformed.Crashed, Expected: open,
			Judgement: malformed.Judgement{Verdict: malformed.Fail, Severity: findings.Error, Clause: client}}, 1},
		{"open case observed", malformed.Outcome{Case: "request before initialize", Channel: malformed.OK, Expected: open,
			Judgement: malformed.Judgement{Verdict: malformed.Observed, Clause: client}}, 0},
		{"server MUST broken", malformed.Outcome{Case: "unknown method", Channel: malformed.Crashed, Expected: strict,
			Judgement: malformed.Judgement{Verdict: malformed.Fail, Severity: findings.Error, Clause: must}}, 0},
		{"server MUST met", malformed.Outcome{Case: "unknown method", Channel: malformed.RPCError, Code: -32601, Expected: strict,
			Judgement: malformed.Judgement{Verdict: malformed.Pass, Clause: must}}, 0},
	}
	for _, tc := range tests {
		r := &malformed.Result{Protocol: "2025-11-25", Cases: []malformed.Outcome{tc.o}}
		if got := permittedErrors(r); len(got) != tc.want {
			t.Errorf("%s: %d errors %q, want %d", tc.name, len(got), got, tc.want)
		}
	}
}
