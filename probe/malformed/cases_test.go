package malformed

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestToolCases(t *testing.T) {
	tool := []byte(`{"name":"t","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","minimum":1,"maximum":20},"mode":{"type":"string","enum":["fast","slow"]}},"required":["q","n"],"additionalProperties":false}}`)
	args := BaselineArgs(tool)
	if string(args) != `{"q":"a","n":1}` {
		t.Fatalf("BaselineArgs = %s", args)
	}
	cases := ToolCases(tool, args, "2025-11-25", "")
	got := map[string]string{}
	for _, c := range cases {
		got[c.Name] = string(c.Frame(`"x"`))
	}
	want := map[string]string{
		"wrong type (q)":         `"arguments":{"n":1,"q":12345}`,
		"missing required (q)":   `"arguments":{"n":1}`,
		"out of range (n)":       `"arguments":{"q":"a","n":21}`,
		"wrong-case enum (mode)": `"arguments":{"q":"a","n":1,"mode":"FAST"}`,
		"fractional integer (n)": `"arguments":{"q":"a","n":1.5}`,
		"unknown property":       `"arguments":{"q":"a","n":1,"mcpprobe_unknown":1}`,
		"arguments: null":        `"arguments":null`,
	}
	for name, frag := range want {
		f, ok := got[name]
		if !ok {
			t.Errorf("no case %q; got %v", name, got)
			continue
		}
		if !strings.Contains(f, frag) || !gjson.Valid(f) {
			t.Errorf("%s: frame %s lacks %s", name, f, frag)
		}
	}
	for _, c := range cases {
		if c.Name == "unknown property" && (c.Expect.Channel != IsError || !c.ClosedSchema) {
			t.Errorf("additionalProperties: false makes an unknown property an input error: %+v", c.Expect)
		}
	}
	// Cases start from the arguments given (--args), not the schema's.
	user := ToolCases(tool, []byte(`{"q":"hello","n":7}`), "2025-11-25", "")
	if f := string(user[0].Frame(`"x"`)); !strings.Contains(f, `"arguments":{"n":7,"q":12345}`) {
		t.Errorf("wrong type from --args: %s", f)
	}
	// The modern era carries _meta in every frame.
	modern := ToolCases(tool, args, "2026-07-28", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)
	if !strings.Contains(string(modern[0].Frame(`"x"`)), `"_meta":{"io.modelcontextprotocol/protocolVersion"`) {
		t.Errorf("modern frame lacks _meta")
	}
	b := BaselineCase("t", args, "")
	if !b.Baseline || !strings.Contains(string(b.Frame(`"x"`)), `"arguments":{"q":"a","n":1}`) {
		t.Errorf("baseline = %+v %s", b, b.Frame(`"x"`))
	}
}

func TestProtocolCases(t *testing.T) {
	legacy := ProtocolCases("2025-03-26", "", "echo", false)
	names := map[string]Case{}
	for _, c := range legacy {
		names[c.Name] = c
		if c.Name != "invalid JSON" && c.Name != "cancel an unknown id" && !gjson.Valid(string(c.Frame(`"x"`))) {
			t.Errorf("%s: frame is not JSON", c.Name)
		}
	}
	if gjson.Valid(string(names["invalid JSON"].Frame(`"x"`))) {
		t.Errorf("invalid JSON is valid")
	}
	if !names["request before initialize"].Fresh {
		t.Errorf("request before initialize needs a fresh server")
	}
	if len(names["1 MB string"].Frame(`"x"`)) < 1<<20 {
		t.Errorf("1 MB string is short")
	}
	modern := ProtocolCases("2026-07-28", `{}`, "", false)
	for _, c := range modern {
		if c.Name == "second initialize" || c.Name == "request before initialize" || c.Name == "1 MB string" {
			t.Errorf("%s makes no sense here", c.Name)
		}
	}
}
