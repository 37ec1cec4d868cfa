package reports

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/survey"
)

// mainFormat is the file of surveyRecords' lines as main's writer wrote
// them before the record was typed: the writer must keep every byte, so
// that the files of older runs still resume and merge.
const mainFormat = "../probe/survey/testdata/main/writer.jsonl"

// surveyRecords take every branch of the writer: a whole run and a shard,
// ok and failed, with and without wire, budget, counts, --with errors,
// secrets, invalid UTF-8 and escapes.
func surveyRecords() []*survey.Record {
	n, m := 1234, 77
	started := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	return []*survey.Record{
		{
			ID: "ok-whole", Source: "fleet.jsonl:1", Digest: "sha256:abc", Target: "./server --flag", Protocol: "2025-11-25",
			Findings:      []findings.Finding{{Severity: findings.Warning, Code: findings.Code(1), Message: "first", Tool: "t"}},
			FindingCounts: map[string]int{"zeta": 1, "alpha": 25},
			Started:       started, Elapsed: 1500 * time.Millisecond,
			Wire: &survey.WireSummary{
				Transport: "stdio", Era: " ", ServerInfo: []byte(`{ "name" : "s",  "version":"1" }`), InstructionsLen: -1,
				Lists: []survey.ListSummary{
					{Method: "tools/list", Asked: true, Pages: 2, Items: 3, Bytes: 400},
					{Method: "prompts/list", Asked: true, Error: "-32601 method not found"},
				},
				Tools: 3, DescriptionUTF16: nil, DefinitionBytes: 390, NoiseLines: 2, StderrLines: 1,
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
				Transport: "http", Era: "2026", ServerInfo: []byte("{\"name\":\"bad \xff\"}"), Capabilities: []byte(`{"tools":{}}`),
				InstructionsLen: 0, Lists: []survey.ListSummary{}, DescriptionUTF16: []int{3, 1, 2},
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
