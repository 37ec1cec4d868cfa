package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/survey"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
)

// mainFormat is the file of surveyRecords' lines as main's writer wrote
// them before the record was typed: the writer must keep every byte, so
// that the files of older runs still resume and merge.
const mainFormat = "../probe/survey/testdata/main/writer.jsonl"

// surveyRecords take every branch of the writer: a whole run and a shard,
// ok and failed, with and without wire, budget, counts, --with errors,
// secrets, invalid UTF-8 and escapes.
func surveyRecords() []*survey.Record {
	n, m, zero := 1234, 77, 0
	str := func(s string) *string { return &s }
	started := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	return []*survey.Record{
		{
			ID: "ok-whole", Source: "fleet.jsonl:1", Digest: "sha256:abc", Target: "./server --flag", Protocol: "2025-11-25",
			Findings:      []findings.Finding{{Severity: findings.Warning, Code: findings.Code(1), Message: "first", Tool: "t"}},
			FindingCounts: map[string]int{"zeta": 1, "alpha": 25},
			Started:       started, Elapsed: 1500 * time.Millisecond,
			Wire: &survey.WireSummary{
				Transport: "stdio", ServerInfo: []byte(`{ "name" : "s",  "version":"1" }`),
				Lists: []survey.ListSummary{
					{Method: "tools/list", Asked: true, Pages: 2, Items: 3, Bytes: 400},
					{Method: "prompts/list", Asked: true, Error: str("-32601 method not found")},
				},
				Tools: survey.ToolsSummary{Count: 3, DefinitionBytes: 390}, NoiseLines: 2, StderrLines: 1,
				SDK:     survey.SDKArtefacts{SchemaDraft07: 1, TaskSupport: 2, SafeIntegerZod: 3, ClosedObjects: 4, ToolsWithOutput: 5},
				Timings: probe.Timings{FirstByte: 5 * time.Millisecond, Handshake: 9 * time.Millisecond},
			},
			Budget: &survey.BudgetSummary{
				Hosts: []survey.HostSummary{
					{ID: "claude-code", Tools: 3, Cut: 1, LostUnits: 40, SchemaDrops: 2, Instructions: "delivered", Tokens: &n, IfLoaded: true},
					{ID: "codex", Tools: 3, Instructions: "not_delivered", InstructionsLost: 12},
				},
			},
		},
		{
			ID: "failed-\xff-\x1b[2J", Source: "fleet.jsonl:2", Digest: "sha256:abc", Shard: &survey.Shard{I: 1, N: 3},
			Target: "./gone", Started: started, Elapsed: time.Millisecond,
			Failure: &survey.Failure{Cause: survey.CauseSpawn, What: "no such file \xfe", Received: "nothing", Try: "check <the> path & \u202e"},
		},
		{
			ID: "with-secret", Source: "fleet.jsonl:3", Digest: "sha256:abc", Target: "./s --token s3cr3t-fixture-value", Protocol: "2026-07-28",
			FindingCounts: map[string]int{}, Started: started, Elapsed: time.Second,
			Wire: &survey.WireSummary{
				Transport: "http", Era: str("2026"), ServerInfo: []byte("{\"name\":\"bad \xff\"}"), Capabilities: []byte(`{"tools":{}}`),
				InstructionsLen: &zero, Lists: []survey.ListSummary{}, Tools: survey.ToolsSummary{Kept: 3, DescriptionUTF16: []int{3, 1, 2}},
				Timings: probe.Timings{FirstByte: 1, Handshake: 2, LastPage: 3, ExitAfter: 0, ExitKnown: true},
			},
			Budget:     &survey.BudgetSummary{Hosts: []survey.HostSummary{}, Tokens: &m, FilteredOut: []string{"a", "b\xff"}},
			FaultsNot:  "the server annotates no tool read-only, and a survey calls no other",
			WithErrors: map[string]string{survey.WithMalformed: "m failed", survey.WithBench: "b failed: s3cr3t-fixture-value"},
			Secrets:    []string{"s3cr3t-fixture-value"},
		},
	}
}

func TestSurveyLineKeepsMainFormat(t *testing.T) {
	var b bytes.Buffer
	for _, r := range surveyRecords() {
		b.Write(SurveyLine("1.2.3", r))
	}
	if os.Getenv("MCPPROBE_WRITE_MAIN_FORMAT") == "1" {
		if err := os.WriteFile(mainFormat, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(mainFormat)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the writer no longer writes main's bytes:\n got %s\nwant %s", b.Bytes(), want)
	}
}

// The census of main's files is the one main wrote.
func TestSurveySummaryOfMainFiles(t *testing.T) {
	dir := "../probe/survey/testdata/main/"
	c, err := survey.Summarize([]string{dir + "whole.jsonl", dir + "with.jsonl", dir + "with2.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	SurveySummary(&b, c)
	want, err := os.ReadFile(dir + "summary.md")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("summary of main's files:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A record written is read back as it was (but for what the line itself
// changes: secrets hidden, bytes that are not UTF-8 replaced): the writer
// and the readers go by the same tags.
func TestSurveyLineRoundTrip(t *testing.T) {
	for _, r := range surveyRecords() {
		line := SurveyLine("1.2.3", r)
		l, err := survey.ParseLine(line)
		if err != nil {
			t.Fatalf("%q: %v", r.ID, err)
		}
		want := r.Section()
		if r.Secrets != nil {
			want.WithErrors = map[string]string{survey.WithBench: "b failed: ***", survey.WithMalformed: "m failed"}
		}
		if w := want.Wire; w != nil {
			v := *w
			v.ServerInfo = jsonout.ValidUTF8(w.ServerInfo)
			v.Tools.DescriptionUTF16 = append([]int{}, w.Tools.DescriptionUTF16...) // written [], never null
			want.Wire = &v
		}
		if b := want.Budget; b != nil {
			v := *b
			v.FilteredOut = append([]string{}, b.FilteredOut...)
			want.Budget = &v
		}
		got := l.Survey
		if r.FaultsNot != "" && !bytes.Contains(got.Faults, []byte(r.FaultsNot)) {
			t.Errorf("%q: faults %s", r.ID, got.Faults)
		}
		got.Faults = nil // rendered by reports, not part of Section()
		if g, w := decoded(t, got), decoded(t, want); !reflect.DeepEqual(g, w) {
			t.Errorf("%q read back:\n got %v\nwant %v", r.ID, g, w)
		}
		if p := l.ProtocolVersion; (p == nil) != (r.Protocol == "") || p != nil && *p != r.Protocol {
			t.Errorf("%q: protocol %v, want %q", r.ID, p, r.Protocol)
		}
		if got.Wire != nil && !bytes.Equal(got.Wire.ServerInfo, want.Wire.ServerInfo) {
			t.Errorf("%q: server_info %s, want it as sent: %s", r.ID, got.Wire.ServerInfo, want.Wire.ServerInfo)
		}
	}
}

// decoded is v as plain JSON values, for comparing what decoding made of
// a line with what was written.
func decoded(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
