package reports

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

func TestEnvelopeValidates(t *testing.T) {
	fs := []findings.Finding{findings.New(findings.ParamNoDescription, "m")}
	cases := []struct {
		name    string
		env     Envelope
		section string
		ok      bool
	}{
		{"minimal snapshot", Envelope{Version: "dev", Command: "snapshot", Target: "./s"}, `{}`, true},
		{"tripped gate", Envelope{Version: "dev", Command: "budget", Target: "./s", ProtocolVersion: "2025-06-18",
			Findings: fs, Gates: []string{"warning"}, Tripped: findings.Trip([]string{"warning"}, fs, nil)}, `{}`, true},
		{"wire section missing keys", Envelope{Version: "dev", Command: "wire", Target: "./s"}, `{"transport":"stdio"}`, false},
		{"unknown command", Envelope{Version: "dev", Command: "frob", Target: "./s"}, `{}`, false},
		{"section null", Envelope{Version: "dev", Command: "wire", Target: "./s"}, `null`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := c.env.JSON([]byte(c.section))
			err := ValidateResult(out)
			if (err == nil) != c.ok {
				t.Fatalf("ValidateResult = %v, want ok=%v\n%s", err, c.ok, out)
			}
		})
	}
}

func TestEnvelopeKeyOrder(t *testing.T) {
	out := Envelope{Version: "v", Command: "diff", Target: "t"}.JSON([]byte(`{"a":1}`))
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
