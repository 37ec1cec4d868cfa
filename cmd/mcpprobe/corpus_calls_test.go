package main

// The call corpus: the same calls made of a server from each SDK, recorded
// and kept with mcpprobe's verdicts as golden files, beside the verdict
// corpus (corpus_test.go). Every corpus server has, behind a flag, the same
// call-worthy tools (fixtures/tsserver corpus --calls, fixtures/tsserver2
// --calls, fixtures/goodserver -corpus -calls, fixtures/mcpgoserver
// -calls), plus the corpus's resource and prompt:
//
//	structured      outputSchema {count, unit}; conforming structuredContent
//	bad_structured  outputSchema {count: integer}; returns {"count":"many"} if the SDK lets it
//	slow_progress   3 steps of 50 ms, notifications/progress each, called with --progress
//	tiny_image      a 1×1 PNG
//	read            corpus://about
//	prompt          greet, name=Ada
//
// Each call is recorded with `mcpprobe call|read|prompt --trace` into
// testdata/corpus/NAME/calls/CASE.jsonl; the replay runs call.Run on it
// in-process at the recorded times (launch.Target.Timed), so the progress
// timeline and the timeout verdicts are the recording's, and
// calls/verdicts.json keeps what `--json` says of each. The README's table
// of what each SDK does is generated from the same replays.
//
//	go test ./cmd/mcpprobe -run CorpusCalls                            replay, compare
//	go test ./cmd/mcpprobe -run CorpusCalls -update                    rewrite verdicts.json and the README table
//	go test -tags e2e ./cmd/mcpprobe -run CorpusCalls -record -update  re-record from the live servers first

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/call"
	"github.com/mcpprobe/mcpprobe/probe/dial"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	callresult "github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// callCase is one call of the call corpus.
type callCase struct {
	name     string // the trace's name, CASE.jsonl
	command  string // call, read or prompt
	what     string // the tool, URI or prompt
	args     string // --args, "" for none
	progress bool
}

var callCases = []callCase{
	{"structured", "call", "structured", "", false},
	{"bad_structured", "call", "bad_structured", "", false},
	{"slow_progress", "call", "slow_progress", `{"interval_ms":50,"duration_ms":150}`, true},
	{"tiny_image", "call", "tiny_image", "", false},
	{"read", "read", "corpus://about", "", false},
	{"prompt", "prompt", "greet", `{"name":"Ada"}`, false},
}

// cli is the case as a user types it, for people reading the goldens.
func (c callCase) cli() string {
	s := "mcpprobe " + c.command
	if c.progress {
		s += " --progress"
	}
	if c.args != "" {
		s += " --args '" + c.args + "'"
	}
	return s + " SERVER " + c.what
}

// callCorpus names the corpus servers the calls are made of: each with
// its calls flag. mcp-go-validate differs from mcp-go only in checking
// arguments, which these calls do not exercise.
var callCorpus = []struct {
	corpus string // the entry of corpus whose server this is
	argv   func(t *testing.T) []string
}{
	{"typescript-sdk-v1", func(t *testing.T) []string { return append(tsServer(t, "corpus"), "--calls") }},
	{"typescript-sdk-v2", func(t *testing.T) []string { return append(tsServer2(t, "connect"), "--calls") }},
	{"typescript-sdk-v2-serve", func(t *testing.T) []string { return append(tsServer2(t, "serve"), "--calls") }},
	{"go-sdk", func(t *testing.T) []string { return []string{goodServer(t), "-corpus", "-calls"} }},
	{"mcp-go", func(t *testing.T) []string { return []string{mcpgoServer(t), "-calls"} }},
}

func corpusEntry(name string) corpusServer {
	for _, cs := range corpus {
		if cs.name == name {
			return cs
		}
	}
	panic("no corpus entry " + name)
}

func callsDir(name string) string { return filepath.Join("testdata", "corpus", name, "calls") }

// replayCall runs the case in-process on its trace, at the recorded times.
func replayCall(dir string, c callCase) (*call.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), bound(30*time.Second))
	defer cancel()
	f, err := os.Open(filepath.Join(dir, c.name+".jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	frames, err := transport.ReadTrace(f, 0)
	if err != nil {
		return nil, err
	}
	target := launch.ReplayTarget(c.name, frames)
	target.Timed = true
	o := call.Options{
		Spec: dial.Spec{Target: target, Probe: probe.Options{Protocol: "auto", Timeout: bound(10 * time.Second),
			StartupTimeout: bound(2 * time.Second), DiscoverTimeout: time.Second, ClientVersion: version, MaxPages: 1000}},
		Kind: map[string]callresult.Kind{"call": callresult.KindTool, "read": callresult.KindResource, "prompt": callresult.KindPrompt}[c.command],
		Name: c.what, Progress: c.progress,
	}
	if c.args != "" {
		o.Args = []byte(c.args)
	}
	return call.Run(ctx, o)
}

// callRuns are one server's replayed cases, in callCases' order.
type callRuns struct {
	runs []*call.Result
	err  error
}

var callReplays sync.Map // corpus name → *callOnce

type callOnce struct {
	once sync.Once
	r    callRuns
}

func replayedCalls(t *testing.T, name string, argv func(*testing.T) []string) []*call.Result {
	t.Helper()
	v, _ := callReplays.LoadOrStore(name, &callOnce{})
	co := v.(*callOnce)
	co.once.Do(func() {
		dir := callsDir(name)
		if *record {
			if co.r.err = recordCalls(t, dir, argv(t)); co.r.err != nil {
				return
			}
		}
		for _, c := range callCases {
			r, err := replayCall(dir, c)
			if err != nil {
				co.r.err = fmt.Errorf("replaying %s: %w", c.name, err)
				return
			}
			co.r.runs = append(co.r.runs, r)
		}
	})
	if co.r.err == nil && len(co.r.runs) != len(callCases) {
		t.Fatalf("the calls of %s were not recorded", name)
	}
	if co.r.err != nil {
		t.Fatal(co.r.err)
	}
	return co.r.runs
}

// callVerdict is one case in calls/verdicts.json: the result as the server
// sent it, and what `--json` judges of it (the analysis, the progress
// timeline, each host's delivery, each timeout policy's verdict, the
// findings), the times being the recording's.
func callVerdict(t *testing.T, c callCase, r *call.Result) []byte {
	t.Helper()
	js := resultJSON(reports.NewCall(c.command, r, ""))
	if err := jsonout.ValidateResult(js); err != nil {
		t.Errorf("%s: the --json does not validate against the schema: %v", c.name, err)
	}
	get := func(path string) []byte {
		v := gjson.GetBytes(js, path)
		if !v.Exists() {
			return []byte("null")
		}
		return []byte(v.Raw)
	}
	o := &jsonout.Object{}
	o.Set("case", c.name).Set("command", c.cli()).Set("protocol_version", r.Protocol)
	o.Raw("completed", get("call.completed")).Raw("error", get("call.error")).Raw("result", get("call.result"))
	o.Raw("timings", get("call.timings")).Raw("progress", get("call.progress"))
	o.Raw("analysis", get("call.analysis"))
	// Each host's outcome in its own unit; its sources are the data file's
	// and the README's, not the corpus's.
	dl := &bytes.Buffer{}
	dl.WriteByte('[')
	for i, d := range gjson.GetBytes(js, "call.deliveries").Array() {
		if i > 0 {
			dl.WriteByte(',')
		}
		do := &jsonout.Object{}
		for _, k := range []string{"host", "outcome", "unit", "size", "limit", "delivered", "lost"} {
			do.Raw(k, []byte(d.Get(k).Raw))
		}
		dl.Write(do.Bytes())
	}
	dl.WriteByte(']')
	o.Raw("deliveries", dl.Bytes())
	vl := &bytes.Buffer{}
	vl.WriteByte('[')
	for i, v := range gjson.GetBytes(js, "call.verdicts").Array() {
		if i > 0 {
			vl.WriteByte(',')
		}
		vo := &jsonout.Object{}
		vo.Set("policy", v.Get("policy.name").String()).Raw("outcome", []byte(v.Get("outcome").Raw)).Raw("why", []byte(v.Get("why").Raw))
		vl.Write(vo.Bytes())
	}
	vl.WriteByte(']')
	o.Raw("verdicts", vl.Bytes())
	o.Raw("findings", get("findings"))
	return o.Bytes()
}

// callsVerdictsJSON is calls/verdicts.json: the SDK, then every case.
func callsVerdictsJSON(t *testing.T, cs corpusServer, runs []*call.Result) []byte {
	t.Helper()
	cases := make([][]byte, len(runs))
	for i, r := range runs {
		cases[i] = callVerdict(t, callCases[i], r)
	}
	o := &jsonout.Object{}
	o.Set("corpus", cs.name).Set("sdk", cs.sdk)
	o.Raw("calls", append(append([]byte("["), bytes.Join(cases, []byte(","))...), ']'))
	var out bytes.Buffer
	if err := json.Indent(&out, o.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// TestCorpusCalls replays each server's calls and compares the verdicts
// with testdata/corpus/NAME/calls/verdicts.json.
func TestCorpusCalls(t *testing.T) {
	t.Parallel()
	for _, cc := range callCorpus {
		t.Run(cc.corpus, func(t *testing.T) {
			t.Parallel()
			cs := corpusEntry(cc.corpus)
			runs := replayedCalls(t, cc.corpus, cc.argv)
			for i, r := range runs {
				c := callCases[i]
				if info := gjson.GetBytes(r.Result, `_meta.io\.modelcontextprotocol/serverInfo.version`); info.Exists() && info.String() != cs.version {
					t.Errorf("%s recorded with SDK %s, the corpus pins %s: re-record (-record -update)", c.name, info.String(), cs.version)
				}
				if r.Protocol != cs.protocol {
					t.Errorf("%s negotiated %s, want %s", c.name, r.Protocol, cs.protocol)
				}
				if !r.Completed {
					t.Errorf("%s was not answered in the recording: %s", c.name, r.Unanswered)
				}
			}
			gold.Check(t, filepath.Join(callsDir(cc.corpus), "verdicts.json"), callsVerdictsJSON(t, cs, runs),
				"go test ./cmd/mcpprobe -run CorpusCalls -update")
		})
	}
}

// The replay is deterministic: two replays of the same trace judge alike,
// at the same recorded times.
func TestCorpusCallsDeterministic(t *testing.T) {
	t.Parallel()
	cc := callCorpus[len(callCorpus)-1]
	var got [][]byte
	for range 2 {
		var all []byte
		for _, c := range callCases {
			r, err := replayCall(callsDir(cc.corpus), c)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, callVerdict(t, c, r)...)
		}
		got = append(got, all)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Errorf("two replays differ:\n%s", gold.FirstDiff(got[0], got[1]))
	}
}

const readmeFile = "../../docs/reference.md"

var callsTableRE = regexp.MustCompile(`(?s)(<!-- corpus-calls:begin -->\n)(.*?)(<!-- corpus-calls:end -->)`)

// TestCorpusCallsREADME keeps the README's table of what each SDK does
// with each call what the replays say (-update rewrites it).
func TestCorpusCallsREADME(t *testing.T) {
	cols := make([][]*call.Result, len(callCorpus))
	for i, cc := range callCorpus {
		cols[i] = replayedCalls(t, cc.corpus, cc.argv)
	}
	readme, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(callsTableRE.FindAllIndex(readme, -1)); n != 1 {
		t.Fatalf("README has %d corpus-calls blocks, want 1", n)
	}
	table := callsTable(cols)
	want := callsTableRE.ReplaceAllFunc(readme, func(m []byte) []byte {
		sm := callsTableRE.FindSubmatch(m)
		return append(append(append([]byte(nil), sm[1]...), table...), sm[3]...)
	})
	if gold.Update() {
		if !bytes.Equal(want, readme) {
			if err := os.WriteFile(readmeFile, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(want, readme) {
		t.Errorf("docs/reference.md's call corpus table is stale: run go test ./cmd/mcpprobe -run CorpusCalls -update, then review the diff\n%s", gold.FirstDiff(readme, want))
	}
}

// callsTable is the README's table: one row per case, one column per
// SDK, each cell what came on the wire and mcpprobe's verdict.
func callsTable(cols [][]*call.Result) []byte {
	// Indented: the table sits in a list item of the README.
	var b strings.Builder
	b.WriteString("  <!-- generated from testdata/corpus/*/calls by `go test ./cmd/mcpprobe -run CorpusCalls -update`: edit there -->\n\n")
	b.WriteString("  | case |")
	for _, cc := range callCorpus {
		cs := corpusEntry(cc.corpus)
		fmt.Fprintf(&b, " `%s` (%s, %s) |", cs.name, cs.version, cs.protocol)
	}
	b.WriteString("\n  | --- |")
	for range callCorpus {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for i, c := range callCases {
		fmt.Fprintf(&b, "  | `%s` |", strings.TrimPrefix(c.cli(), "mcpprobe "))
		for _, col := range cols {
			fmt.Fprintf(&b, " %s |", callCell(col[i]))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n  ")
	return []byte(b.String())
}

// callCell says in a few words what came on the wire, then the verdict:
// the findings' codes (the generic `notification` count left out), or
// "no finding".
func callCell(r *call.Result) string {
	var wire []string
	switch {
	case r.Error != nil:
		wire = append(wire, fmt.Sprintf("JSON-RPC error %s", rawCodeOf(r.Error)))
	case r.Result != nil:
		a := r.Analysis
		if a.IsError {
			wire = append(wire, "`isError`")
		}
		var blocks []string
		for _, bl := range a.Blocks {
			s := bl.Type
			if bl.MIMEType != "" {
				s += " (" + bl.MIMEType + ")"
			}
			blocks = append(blocks, s)
		}
		if len(blocks) > 0 {
			wire = append(wire, strings.Join(blocks, " + "))
		}
		if st := a.Structured; st != nil && st.Present {
			wire = append(wire, "`structuredContent`")
		}
		if a.IsError && len(a.Blocks) > 0 {
			text := []rune(gjson.GetBytes(r.Result, "content.0.text").String())
			if len(text) > 40 {
				text = append(text[:40], '…')
			}
			if len(text) > 0 {
				wire = append(wire, "“"+strings.ReplaceAll(string(text), "|", `\|`)+"”")
			}
		}
	}
	if len(r.Progress) > 0 {
		after := 0
		for _, p := range r.Progress {
			if r.Completed && p.Seq > r.ResponseSeq {
				after++
			}
		}
		var at []string
		for _, p := range r.Progress {
			at = append(at, fmt.Sprint(p.At.Milliseconds()))
		}
		s := fmt.Sprintf("%d progress at %s ms", len(r.Progress), strings.Join(at, ", "))
		if after > 0 {
			s += fmt.Sprintf(" (%d after the response)", after)
		}
		if r.Completed {
			s += fmt.Sprintf(", answered at %d ms", r.Answered.Milliseconds())
		}
		wire = append(wire, s)
	}
	if r.Token != "" {
		// The timeout policies' verdicts, on the recorded timeline.
		var out []string
		for _, v := range r.Verdicts {
			if v.Outcome != "survives" {
				out = append(out, v.Policy.Name+": "+v.Outcome)
			}
		}
		if len(out) == 0 {
			wire = append(wire, fmt.Sprintf("survives all %d timeout policies", len(r.Verdicts)))
		} else {
			wire = append(wire, strings.Join(out, ", "))
		}
	}
	var codes []string
	for _, f := range r.Findings() {
		if f.Code == findings.Notification {
			continue
		}
		codes = append(codes, fmt.Sprintf("`%s` (%s)", f.Code, f.Severity))
	}
	verdict := "no finding"
	if len(codes) > 0 {
		verdict = strings.Join(codes, ", ")
	}
	return strings.Join(wire, ", ") + "; " + verdict
}

func rawCodeOf(e *probe.RPCError) string {
	if e.RawCode != "" {
		return e.RawCode
	}
	return fmt.Sprint(e.Code)
}
