package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/mcpprobe/mcpprobe/probe/canon"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe"
)

const liveTool = `{"name":"find","description":"Find orders fast.","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","description":"1 to 20"}}}}`

func live(items ...string) Side {
	c := &probe.Capture{}
	for _, it := range items {
		c.Tools.Items = append(c.Tools.Items, []byte(it))
	}
	return FromCapture(c, "live")
}

func TestLoadFormats(t *testing.T) {
	schema := `{"type":"object","properties":{"limit":{"type":"integer","description":"1 to 20"}}}`
	tests := []struct {
		name, in, format string
		wire             bool
	}{
		{"mcp tools/list result", `{"tools":[` + liveTool + `]}`, "mcp-tools-list-result", true},
		{"json-rpc response line", `{"jsonrpc":"2.0","id":2,"result":{"tools":[` + liveTool + `]}}`, "jsonrpc-response", true},
		{"array of mcp tools", `[` + liveTool + `]`, "mcp-tools", true},
		{"anthropic", `[{"name":"find","description":"Find orders fast.","input_schema":` + schema + `,"cache_control":{"type":"ephemeral"}}]`, "anthropic", false},
		{"anthropic request body", `{"tools":[{"name":"find","description":"Find orders fast.","input_schema":` + schema + `}]}`, "anthropic (in a tools object)", false},
		{"openai chat completions", `[{"type":"function","function":{"name":"find","description":"Find orders fast.","parameters":` + schema + `,"strict":false}}]`, "openai-chat-completions", false},
		{"openai responses", `[{"type":"function","name":"find","description":"Find orders fast.","parameters":` + schema + `}]`, "openai-responses", false},
		{"wire --json, before the envelope", `{"mcpprobe_version":"dev","instructions":null,"tools":[` + liveTool + `]}`, "mcpprobe-wire-json", true},
		// In the envelope the tool sits deeper: its bytes must still be
		// cut from the file exactly (identical bytes below).
		{"wire --json", `{"schema":"mcpprobe/result/v1","command":"wire","findings":[],"wire":{"instructions":null,"tools":[ ` + liveTool + ` ]}}`, "mcpprobe-wire-json", true},
		{"report --json", `{"schema":"mcpprobe/result/v1","command":"report","report":{"date":"2026-01-02","wire":{"tools":[` + liveTool + `]}}}`, "mcpprobe-wire-json", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := Load([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if ref.Format != tc.format || ref.Wire != tc.wire || len(ref.Tools) != 1 || ref.Tools[0].Name != "find" {
				t.Fatalf("format %q wire %v tools %d", ref.Format, ref.Wire, len(ref.Tools))
			}
			r := Compare(ref, live(liveTool))
			if !r.IdenticalCanonical || len(r.Changes) != 0 {
				t.Errorf("mapped reference differs: %+v", r.Changes)
			}
			if r.IdenticalBytes != tc.wire {
				t.Errorf("identical bytes = %v, want %v", r.IdenticalBytes, tc.wire)
			}
		})
	}
	for _, bad := range []string{`{"x":1}`, `[1,2]`, `not json`, `[{"input_schema":{}}]`,
		`{"schema":"mcpprobe/result/v1","command":"bench","bench":{"calls":[]}}`} {
		if _, err := Load([]byte(bad)); err == nil {
			t.Errorf("Load(%s) accepted", bad)
		}
	}
}

func TestCompareChanges(t *testing.T) {
	tests := []struct {
		name           string
		ref, live      string
		bytesSame      bool
		canonicalSame  bool
		want           []string // "kind path"
		noteContaining string
	}{
		{"identical", liveTool, liveTool, true, true, nil, ""},
		{"key order only", liveTool,
			`{"name":"find","description":"Find orders fast.","inputSchema":{"type":"object","properties":{"limit":{"description":"1 to 20","type":"integer"}}}}`,
			false, true, []string{"order find.inputSchema.properties.limit"}, "key order only"},
		{"numbers written differently", `{"name":"n","inputSchema":{"maximum":1000,"minimum":1}}`, `{"name":"n","inputSchema":{"maximum":1e3,"minimum":1.0}}`, false, true, nil, ""},
		{"unicode escapes", `{"name":"u","description":"café"}`, `{"name":"u","description":"caf\u00e9"}`, false, true, nil, ""},
		{"zod bounds", liveTool,
			`{"name":"find","description":"Find orders fast.","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991,"description":"1 to 20"}}}}`,
			false, false, []string{"added find.inputSchema.properties.limit.minimum", "added find.inputSchema.properties.limit.maximum"}, "9007199254740991"},
		{"$schema added", `{"name":"s","inputSchema":{"type":"object"}}`, `{"name":"s","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}}`,
			false, false, []string{"added s.inputSchema.$schema"}, "draft-07"},
		{"execution added", `{"name":"e","inputSchema":{}}`, `{"name":"e","inputSchema":{},"execution":{"taskSupport":"forbidden"}}`,
			false, false, []string{"added e.execution"}, "taskSupport"},
		{"additionalProperties added", `{"name":"a","inputSchema":{"type":"object"}}`, `{"name":"a","inputSchema":{"type":"object","additionalProperties":false}}`,
			false, false, []string{"added a.inputSchema.additionalProperties"}, "Go SDK"},
		{"empty required dropped", `{"name":"r","inputSchema":{"type":"object","required":[]}}`, `{"name":"r","inputSchema":{"type":"object"}}`,
			false, false, []string{"removed r.inputSchema.required"}, "means the same"},
		{"go sdk false hints", `{"name":"h","annotations":{"destructiveHint":true}}`, `{"name":"h","annotations":{"destructiveHint":true,"readOnlyHint":false}}`,
			false, false, []string{"added h.annotations.readOnlyHint"}, "Go SDK"},
		{"required reordered", `{"name":"q","inputSchema":{"required":["a","b"]}}`, `{"name":"q","inputSchema":{"required":["b","a"]}}`,
			false, true, []string{"order q.inputSchema.required"}, ""},
		{"changed value", `{"name":"m","inputSchema":{"maximum":20}}`, `{"name":"m","inputSchema":{"maximum":30}}`, false, false, []string{"changed m.inputSchema.maximum"}, ""},
		{"odd key quoted in path", `{"name":"k","inputSchema":{"properties":{"a.b c":{"type":"string"}}}}`, `{"name":"k","inputSchema":{"properties":{"a.b c":{"type":"number"}}}}`,
			false, false, []string{`changed k.inputSchema.properties["a.b c"].type`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := Load([]byte("[" + tc.ref + "]"))
			if err != nil {
				t.Fatal(err)
			}
			r := Compare(ref, live(tc.live))
			if r.IdenticalBytes != tc.bytesSame || r.IdenticalCanonical != tc.canonicalSame {
				t.Errorf("bytes %v canonical %v, want %v %v", r.IdenticalBytes, r.IdenticalCanonical, tc.bytesSame, tc.canonicalSame)
			}
			var got []string
			notes := ""
			for _, c := range r.Changes {
				got = append(got, c.Kind+" "+c.Path)
				notes += c.Note
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("changes %q, want %q", got, tc.want)
			}
			if tc.noteContaining != "" && !strings.Contains(notes, tc.noteContaining) {
				t.Errorf("notes %q lack %q", notes, tc.noteContaining)
			}
		})
	}
}

func TestToolsAddedRemovedReordered(t *testing.T) {
	a := `{"name":"a"}`
	b := `{"name":"b"}`
	c := `{"name":"c"}`
	ref, _ := Load([]byte("[" + a + "," + b + "]"))
	r := Compare(ref, live(b, c))
	if strings.Join(r.ToolsAdded, ",") != "c" || strings.Join(r.ToolsRemoved, ",") != "a" || r.IdenticalCanonical {
		t.Errorf("added %v removed %v", r.ToolsAdded, r.ToolsRemoved)
	}
	// Reordered between pages: the same tools, in another order; each
	// tool's bytes are still the same.
	r = Compare(ref, live(b, a))
	if !r.IdenticalCanonical || !r.IdenticalBytes || len(r.Changes) != 1 || r.Changes[0].Kind != "order" || r.Changes[0].Path != "tools" {
		t.Errorf("reordered: %+v", r)
	}
	if !r.Drift() {
		t.Errorf("a reorder is drift")
	}
}

func TestWordDiff(t *testing.T) {
	got := WordDiff("Search the order book by customer.", "Search the whole order book by customer name.")
	want := "Search the {+whole +}order book by [-customer.-]{+customer name.+}"
	if got != want {
		t.Errorf("WordDiff = %q, want %q", got, want)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	in := "Use it."
	c := &probe.Capture{ProtocolVersion: "2025-11-25", ServerInfo: []byte(`{"version":"1","name":"s"}`), Instructions: &in}
	c.Tools.Items = [][]byte{[]byte(`{"name":"z","inputSchema":{ "type" : "object" }}`), []byte(`{"name":"a","description":"caf\u00e9"}`)}
	snap := Snapshot(c)
	if !strings.Contains(string(snap), `"raw": "{\"name\":\"a\",\"description\":\"caf\\u00e9\"}"`) {
		t.Errorf("raw bytes not kept verbatim:\n%s", snap)
	}
	if strings.Index(string(snap), `"name": "a"`) > strings.Index(string(snap), `"name": "z"`) {
		t.Errorf("tools not sorted by name")
	}
	if Snapshot(c) == nil || string(Snapshot(c)) != string(snap) {
		t.Errorf("snapshot not stable")
	}
	ref, err := Load(snap)
	if err != nil || ref.Format != "mcpprobe-snapshot" {
		t.Fatalf("load: %v %q", err, ref.Format)
	}
	// snapshot --json carries the same lock file as its section.
	env := `{"schema":"mcpprobe/result/v1","command":"snapshot","findings":[],"snapshot":` + string(snap) + `}`
	if ref, err := Load([]byte(env)); err != nil || ref.Format != "mcpprobe-snapshot" || len(ref.Tools) != 2 || ref.Instructions == nil || !strings.Contains(string(ref.ServerInfo), `"name": "s"`) {
		t.Fatalf("snapshot --json: %v %q %+v", err, ref.Format, ref)
	}
	// The snapshot sorted the tools; the live order differs, so a tools
	// "order" change is all there is, and the bytes of each tool are kept.
	r := Compare(ref, FromCapture(c, "live"))
	if !r.IdenticalCanonical || !r.IdenticalBytes || r.Drift() {
		t.Errorf("a snapshot differs from its own capture (sorted tools are no drift): %+v", r)
	}
	// A changed schema is a changed tool.
	if Hash([]byte(`{"name":"a","inputSchema":{}}`)) == Hash([]byte(`{"name":"a","inputSchema":{"type":"object"}}`)) {
		t.Errorf("hash ignores the schema")
	}
	if Hash([]byte(`{"b":1,"a":2}`)) != Hash([]byte(`{"a":2, "b":1.0}`)) {
		t.Errorf("hash depends on form, not meaning")
	}
	// Changed instructions are drift, and the answers keep their scopes:
	// the items are the same, byte for byte and in meaning; the session's
	// values are not.
	changed := "Use it well."
	c.Instructions = &changed
	r = Compare(ref, FromCapture(c, "live"))
	if !r.IdenticalBytes || !r.IdenticalCanonical || r.IdenticalMetadata || !r.Drift() ||
		JoinParts(r.ChangedParts()) != "instructions" || r.Changes[0].Path != "instructions" {
		t.Errorf("changed instructions: %+v", r)
	}
}

func TestRunFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := write("same.json", `[`+liveTool+`]`)
	other := write("other.json", `[`+strings.Replace(liveTool, "1 to 20", "1 to 50", 1)+`,{"name":"new","inputSchema":{}}]`)
	bad := write("bad.json", `{"x":1}`)
	tests := []struct {
		name     string
		o        Options
		drift    int
		optError string // a *probe.OptionError starting so
	}{
		{"identical", Options{Ref: Source{Path: same}, Live: Source{Path: same}}, 0, ""},
		{"a change and a tool added", Options{Ref: Source{Path: same}, Live: Source{Path: other}}, 2, ""},
		{"a missing reference names its flag", Options{Ref: Source{Path: filepath.Join(dir, "none"), Name: "--ref"}, Live: Source{Path: same}}, 0, "--ref: "},
		{"an unknown format", Options{Ref: Source{Path: same}, Live: Source{Path: bad}}, 0, bad + ": not a known"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Run(context.Background(), tc.o)
			if tc.optError != "" {
				var oe *probe.OptionError
				if !errors.As(err, &oe) || !strings.HasPrefix(oe.Msg, tc.optError) {
					t.Fatalf("err = %v, want an OptionError starting %q", err, tc.optError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Counts()["drift"]; got != tc.drift {
				t.Errorf("drift = %d, want %d (%+v)", got, tc.drift, r.Comparison)
			}
			if r.Findings() != nil || r.Capture != nil {
				t.Errorf("files gave findings or a capture")
			}
			if r.Ref.Label != tc.o.Ref.Path || r.Live.Label != tc.o.Live.Path {
				t.Errorf("labels %q %q", r.Ref.Label, r.Live.Label)
			}
		})
	}
}

// A server whose definitions hold bytes that are not UTF-8 shows no drift
// against its own snapshot, nor against its own wire --json: the lock file
// is UTF-8 (each such byte written as U+FFFD) and keeps the exact bytes in
// raw_b64 and instructions_b64.
func TestSnapshotKeepsInvalidUTF8(t *testing.T) {
	in := "bad \xff bytes"
	c := &probe.Capture{ProtocolVersion: "2025-11-25", ServerInfo: []byte("{\"name\":\"s\xfe\",\"version\":\"1\"}"), Instructions: &in}
	c.Tools.Items = [][]byte{[]byte("{\"name\":\"t\xff\",\"description\":\"caf\xe9 \xff\"}"), []byte(`{"name":"ok"}`)}
	snap := Snapshot(c)
	if !utf8.Valid(snap) || !json.Valid(snap) {
		t.Fatalf("the lock file is not UTF-8 JSON:\n%s", snap)
	}
	for _, want := range []string{`"raw_b64": "`, `"instructions_b64": "`} {
		if !strings.Contains(string(snap), want) {
			t.Errorf("no %s in\n%s", want, snap)
		}
	}
	ref, err := Load(snap)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Instructions == nil || *ref.Instructions != in || string(ref.Tools[1].Raw) != string(c.Tools.Items[0]) || ref.Tools[1].Name != "t\xff" {
		t.Fatalf("not read back exactly: %q %+v", *ref.Instructions, ref.Tools)
	}
	if r := Compare(ref, FromCapture(c, "live")); r.Drift() || !r.IdenticalBytes || !r.IdenticalCanonical {
		t.Errorf("a snapshot differs from its own capture: %+v", r.Changes)
	}
	// A real change to those bytes is still drift.
	c.Tools.Items[0] = []byte("{\"name\":\"t\xff\",\"description\":\"caf\xe9 \xfe\"}")
	if r := Compare(ref, FromCapture(c, "live")); r.IdenticalBytes {
		t.Errorf("a changed byte is not seen")
	}
}

// indentJSON writes what json.Indent writes, down to maxDepth, and
// deeper containers compact: a lock file grows linearly with depth.
func TestIndentJSON(t *testing.T) {
	for _, src := range []string{`{}`, `[]`, `1`, `"a"`, `{"a":[1,{"b":"x,\"y\":[z]"}],"c":{},"d":[]}`, `[[[[1,2],[]],{}],"\\"]`} {
		c := canon.JSON([]byte(src))
		var want bytes.Buffer
		if err := json.Indent(&want, c, "  ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(c, "  ", 100); string(got) != want.String() {
			t.Errorf("indentJSON(%s) =\n%s\nwant\n%s", src, got, want.String())
		}
	}
	if got := string(indentJSON([]byte(`{"a":{"b":[1,{"c":2}]}}`), "", 2)); got != "{\n  \"a\": {\n    \"b\": [1,{\"c\":2}]\n  }\n}" {
		t.Errorf("past maxDepth: %q", got)
	}
	deep := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	if got := pretty([]byte(deep), "  "); len(got) > 4*len(deep) {
		t.Errorf("a definition nested 100,000 levels: %d bytes pretty", len(got))
	}
}
