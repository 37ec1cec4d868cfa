package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
)

const (
	emptyLock   = `{"mcpprobe_snapshot":1,"protocol_version":"","server_info":null,"instructions":null,"tools":[],"prompts":[],"resources":[],"resource_templates":[]}`
	emptyBudget = `{"hosts":[],"output_schema_undelivered":[],"filtered_out":[],"tokens":null}`
)

func TestEnvelopeValidates(t *testing.T) {
	fs := []findings.Finding{findings.New(findings.ParamNoDescription, "m")}
	cases := []struct {
		name    string
		env     jsonout.Envelope
		section string
		ok      bool
	}{
		{"empty snapshot", jsonout.Envelope{Version: "dev", Command: "snapshot", Target: "./s"}, emptyLock, true},
		{"snapshot entry without its hash", jsonout.Envelope{Version: "dev", Command: "snapshot", Target: "./s"},
			strings.Replace(emptyLock, `"tools":[]`, `"tools":[{"name":"a","definition":{},"raw":"{}"}]`, 1), false},
		{"tripped gate", jsonout.Envelope{Version: "dev", Command: "budget", Target: "./s", ProtocolVersion: "2025-06-18",
			Findings: fs, Gates: []string{"warning"}, Tripped: findings.Trip([]string{"warning"}, fs, nil)}, emptyBudget, true},
		{"budget section empty", jsonout.Envelope{Version: "dev", Command: "budget", Target: "./s"}, `{}`, false},
		{"budget host without tools", jsonout.Envelope{Version: "dev", Command: "budget", Target: "./s"},
			`{"hosts":[{"host":"x"}],"output_schema_undelivered":[],"tokens":null}`, false},
		{"diff change of an unknown kind", jsonout.Envelope{Version: "dev", Command: "diff", Target: "./s"},
			`{"reference":"r","compared_with":"s","reference_format":"anthropic","bytes_comparable":false,"identical_bytes":false,` +
				`"identical_canonical":false,"tools_added":[],"tools_removed":[],"changes":[{"tool":"t","path":"t.x","kind":"moved","old":1,"new":2,"note":null}]}`, false},
		{"diff not comparable: identical_bytes null", jsonout.Envelope{Version: "dev", Command: "diff", Target: "./s"},
			`{"reference":"r","compared_with":"s","reference_format":"anthropic","compared":["tools"],"not_compared":[],"ignored":[],"bytes_comparable":false,"identical_bytes":null,` +
				`"identical_canonical":true,"identical_metadata":null,"changed_parts":[],"tools_added":[],"tools_removed":[],"added":{"tools":[]},"removed":{"tools":[]},"changes":[]}`, true},
		{"diff identical_bytes a string", jsonout.Envelope{Version: "dev", Command: "diff", Target: "./s"},
			`{"reference":"r","compared_with":"s","reference_format":"anthropic","compared":["tools"],"not_compared":[],"ignored":[],"bytes_comparable":false,"identical_bytes":"n/a",` +
				`"identical_canonical":true,"identical_metadata":null,"changed_parts":[],"tools_added":[],"tools_removed":[],"added":{"tools":[]},"removed":{"tools":[]},"changes":[]}`, false},
		{"report without its budget", jsonout.Envelope{Version: "dev", Command: "report", Target: "./s"}, `{"date":"2026-01-02","wire":null}`, false},
		{"wire section missing keys", jsonout.Envelope{Version: "dev", Command: "wire", Target: "./s"}, `{"transport":"stdio"}`, false},
		{"unknown command", jsonout.Envelope{Version: "dev", Command: "frob", Target: "./s"}, `{}`, false},
		{"section null", jsonout.Envelope{Version: "dev", Command: "wire", Target: "./s"}, `null`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := c.env.JSON([]byte(c.section))
			err := jsonout.ValidateResult(out)
			if (err == nil) != c.ok {
				t.Fatalf("ValidateResult = %v, want ok=%v\n%s", err, c.ok, out)
			}
		})
	}
}

func TestEnvelopeKeyOrder(t *testing.T) {
	out := jsonout.Envelope{Version: "v", Command: "diff", Target: "t"}.JSON([]byte(`{"a":1}`))
	dec := json.NewDecoder(bytes.NewReader(out))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"schema", "mcpprobe_version", "command", "target", "protocol_version", "findings", "fail_on", "diff"}
	if len(keys) != len(want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Fatalf("keys %v, want %v", keys, want)
		}
	}
}
