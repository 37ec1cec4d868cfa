package diff

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// full is a capture with every part a snapshot records.
func full() *probe.Capture {
	in := "Use find first."
	c := &probe.Capture{ProtocolVersion: "2025-06-18", Instructions: &in,
		ServerInfo:   []byte(`{"version":"1.4.2","name":"orders","title":"Orders"}`),
		Capabilities: []byte(`{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true}}`)}
	c.Tools.Items = [][]byte{[]byte(`{"name":"find","inputSchema":{"type":"object"}}`), []byte(`{"name":"get","inputSchema":{"type":"object"}}`)}
	c.Prompts.Items = [][]byte{[]byte(`{"name":"summarize","description":"Sum up."}`), []byte(`{"name":"triage"}`)}
	c.Resources.Items = [][]byte{[]byte(`{"uri":"file:///orders.csv","name":"orders"}`)}
	c.Templates.Items = [][]byte{[]byte(`{"uriTemplate":"orders://{id}","name":"order"}`), []byte(`{"uriTemplate":"customers://{id}","name":"customer"}`)}
	return c
}

// fullSkills is full with the Skills extension declared and one skill
// listed: every part a snapshot can record.
func fullSkills() *probe.Capture {
	c := full()
	c.Capabilities = []byte(`{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true},"extensions":{"io.modelcontextprotocol/skills":{}}}`)
	c.Skills = &probe.Skills{Setting: []byte(`{}`)}
	c.Skills.List.Items = [][]byte{[]byte(`{"uri":"skill://refunds/SKILL.md","frontmatter":{"name":"refunds","description":"Refund orders."},"resources":[{"uri":"skill://refunds/SKILL.md","digest":"sha256:` + strings.Repeat("a", 64) + `","size":120}]}`)}
	return c
}

// Editing any one part of what a snapshot records is drift in that part,
// and in no other.
func TestDriftEveryPart(t *testing.T) {
	ref, err := Load(Snapshot(fullSkills()))
	if err != nil {
		t.Fatal(err)
	}
	if same := Compare(ref, FromCapture(fullSkills(), "live")); same.Drift() || !same.IdenticalBytes || len(same.Compared) != len(Parts) {
		t.Fatalf("a capture against its own snapshot: %+v", same)
	}
	tests := []struct {
		part Part
		edit func(c *probe.Capture)
		path string // of one change, or "" when an item is added or removed
	}{
		{PartTools, func(c *probe.Capture) { c.Tools.Items = c.Tools.Items[:1] }, ""},
		{PartTools, func(c *probe.Capture) { c.Tools.Items[0] = []byte(`{"name":"find","inputSchema":{"type":"array"}}`) }, "find.inputSchema.type"},
		{PartPrompts, func(c *probe.Capture) { c.Prompts.Items = c.Prompts.Items[1:] }, ""},
		{PartPrompts, func(c *probe.Capture) { c.Prompts.Items[0] = []byte(`{"name":"summarize","description":"Sum it up."}`) }, "prompts.summarize.description"},
		{PartResources, func(c *probe.Capture) {
			c.Resources.Items[0] = []byte(`{"uri":"file:///orders.csv","name":"orders","mimeType":"text/csv"}`)
		}, `resources["file:///orders.csv"].mimeType`},
		{PartTemplates, func(c *probe.Capture) { c.Templates.Items = nil }, ""},
		{PartInstructions, func(c *probe.Capture) { c.Instructions = nil }, "instructions"},
		{PartServerName, func(c *probe.Capture) { c.ServerInfo = []byte(`{"name":"orders2","version":"1.4.2","title":"Orders"}`) }, "server_info.name"},
		{PartServerVersion, func(c *probe.Capture) { c.ServerInfo = []byte(`{"name":"orders","version":"1.5.0","title":"Orders"}`) }, "server_info.version"},
		{PartServerInfo, func(c *probe.Capture) { c.ServerInfo = []byte(`{"name":"orders","version":"1.4.2"}`) }, "server_info.title"},
		{PartProtocol, func(c *probe.Capture) { c.ProtocolVersion = "2025-11-25" }, "protocol_version"},
		{PartCapabilities, func(c *probe.Capture) {
			c.Capabilities = []byte(`{"tools":{},"prompts":{},"resources":{"subscribe":true},"extensions":{"io.modelcontextprotocol/skills":{}}}`)
		}, "capabilities.tools.listChanged"},
		{PartCapabilities, func(c *probe.Capture) { c.Capabilities = nil }, "capabilities"},
		{PartSkills, func(c *probe.Capture) {
			c.Skills.List.Items[0] = bytes.Replace(c.Skills.List.Items[0], []byte(`"size":120`), []byte(`"size":121`), 1)
		}, `skills["skill://refunds/SKILL.md"].resources[0].size`},
		{PartSkills, func(c *probe.Capture) { c.Skills.List.Items = nil }, ""},
	}
	for _, tc := range tests {
		t.Run(string(tc.part)+" "+tc.path, func(t *testing.T) {
			c := fullSkills()
			tc.edit(c)
			r := Compare(ref, FromCapture(c, "live"))
			if got := JoinParts(r.ChangedParts()); got != string(tc.part) {
				t.Fatalf("changed parts %q, want %q: %+v", got, tc.part, r)
			}
			if r.DriftCount() == 0 {
				t.Errorf("drift not counted")
			}
			if tc.path != "" {
				found := false
				for _, ch := range r.Changes {
					found = found || ch.Path == tc.path && ch.Part == tc.part
				}
				if !found {
					t.Errorf("no change at %s: %+v", tc.path, r.Changes)
				}
			}
			// The items answer for the items, the metadata for the rest.
			if tc.part.IsList() == r.IdenticalCanonical || tc.part.IsList() != r.IdenticalMetadata {
				t.Errorf("canonical %v metadata %v for a change to %s", r.IdenticalCanonical, r.IdenticalMetadata, tc.part)
			}
			// Ignored on purpose, it is no drift.
			if ig := CompareParts(ref, FromCapture(c, "live"), []Part{tc.part}); ig.Drift() || JoinParts(ig.Ignored) != string(tc.part) {
				t.Errorf("--ignore %s: %+v", tc.part, ig)
			}
		})
	}
}

// A server that writes serverInfo and capabilities in its own key order
// is no drift against its snapshot, which writes them sorted.
func TestValuesIgnoreKeyOrder(t *testing.T) {
	c := full()
	ref, _ := Load(Snapshot(c))
	c.ServerInfo = []byte(`{"title":"Orders","name":"orders","version":"1.4.2"}`)
	c.Capabilities = []byte(`{"resources":{"subscribe":true},"prompts":{},"tools":{"listChanged":true}}`)
	if r := Compare(ref, FromCapture(c, "live")); r.Drift() {
		t.Errorf("key order of server info or capabilities is drift: %+v", r.Changes)
	}
}

func TestNotCompared(t *testing.T) {
	lock := string(Snapshot(full()))
	old := strings.Replace(lock, `"capabilities": {`, `"x_capabilities": {`, 1) // a lock from before capabilities were recorded
	tests := []struct {
		name, ref   string
		compared    string
		notCompared string // part: why, joined
	}{
		{"anthropic tools", `[{"name":"find","input_schema":{"type":"object"}}]`, "tools",
			"prompts resources templates instructions server-name server-version server-info protocol capabilities: not recorded by the reference (Anthropic tool definitions (input_schema))"},
		{"a tools/list result", `{"tools":[{"name":"find","inputSchema":{"type":"object"}}]}`, "tools",
			"prompts resources templates instructions server-name server-version server-info protocol capabilities: not recorded by the reference (an MCP tools/list result)"},
		{"a snapshot without capabilities", old, "tools, prompts, resources, templates, instructions, server-name, server-version, server-info, protocol",
			"capabilities: not recorded by the reference (an mcpprobe snapshot)"},
		{"wire --json", `{"schema":"mcpprobe/result/v1","command":"wire","protocol_version":"2025-06-18","wire":{"server_info":null,"capabilities":{},"instructions":null,"tools":[],"prompts":[],"resources":[],"resource_templates":[]}}`,
			strings.Join(strings.Fields("tools, prompts, resources, templates, instructions, server-name, server-version, server-info, protocol, capabilities"), " "), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := Load([]byte(tc.ref))
			if err != nil {
				t.Fatal(err)
			}
			r := Compare(ref, FromCapture(full(), "live"))
			if got := JoinParts(r.Compared); strings.ReplaceAll(got, ",", "") != strings.ReplaceAll(tc.compared, ",", "") {
				t.Errorf("compared %q, want %q", got, tc.compared)
			}
			var parts []string
			why := ""
			for _, o := range r.NotCompared {
				parts = append(parts, string(o.Part))
				if why != "" && o.Why != why {
					t.Errorf("reasons differ: %q, %q", why, o.Why)
				}
				why = o.Why
			}
			got := ""
			if len(parts) > 0 {
				got = strings.Join(parts, " ") + ": " + why
			}
			if got != tc.notCompared {
				t.Errorf("not compared\n %q, want\n %q", got, tc.notCompared)
			}
		})
	}
}

func TestParseParts(t *testing.T) {
	got, err := ParseParts([]string{"server-version, protocol", "tools", "protocol"})
	if err != nil || JoinParts(got) != "server-version, protocol, tools" {
		t.Errorf("ParseParts = %v, %v", got, err)
	}
	for _, bad := range []string{"version", "Tools", "resource_templates", "prompt"} {
		if _, err := ParseParts([]string{bad}); err == nil || !strings.Contains(err.Error(), "want tools, prompts") {
			t.Errorf("ParseParts(%q) = %v", bad, err)
		}
	}
}

// --ignore of a part a reference file does not record is refused: it is
// not compared anyway, and saying it is ignored would say it could be.
func TestRunIgnore(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	lock := filepath.Join(dir, "lock.json")
	os.WriteFile(tools, []byte(`[`+liveTool+`]`), 0o644)
	os.WriteFile(lock, Snapshot(full()), 0o644)
	tests := []struct {
		name     string
		o        Options
		optError string
		ignored  string
	}{
		{"a part the reference does not record", Options{Ref: Source{Path: tools, Name: "--ref"}, Live: Source{Path: lock}, Ignore: []Part{PartPrompts}}, "--ignore prompts: the reference (" + tools + ", an array of MCP tools) does not record prompts", ""},
		{"a part the compared side does not record", Options{Ref: Source{Path: lock}, Live: Source{Path: tools}, Ignore: []Part{PartProtocol}}, "--ignore protocol: the compared side", ""},
		{"a recorded part", Options{Ref: Source{Path: lock}, Live: Source{Path: lock}, Ignore: []Part{PartServerVersion, PartProtocol}}, "", "server-version, protocol"},
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
			if JoinParts(r.Ignored) != tc.ignored || r.Drift() {
				t.Errorf("ignored %q drift %v", JoinParts(r.Ignored), r.Drift())
			}
		})
	}
}

// The key-order note names the zod call that produces the order the
// compared side wrote, and claims nothing about an order it did not see.
func TestOrderNotes(t *testing.T) {
	prop := func(p string) string {
		return `{"name":"t","description":"T.","inputSchema":{"type":"object","properties":{"a":` + p + `}}}`
	}
	tests := []struct {
		name, ref, live string
		has, hasNot     []string
	}{
		{"description moved after type", prop(`{"description":"A.","type":"string"}`), prop(`{"type":"string","description":"A."}`),
			[]string{"key order only", "description after the type's keywords", "z.string().describe(…).optional()"},
			[]string{"description first is", "Go SDK"}},
		{"description moved after enum", prop(`{"type":"string","description":"A.","enum":["x"]}`), prop(`{"type":"string","enum":["x"],"description":"A."}`),
			[]string{"description after the type's keywords", ".describe() called on the type itself"},
			[]string{"description first is"}},
		{"description moved between keywords", prop(`{"description":"A.","type":"string","enum":["x"]}`), prop(`{"type":"string","description":"A.","enum":["x"]}`),
			[]string{"key order only. JSON objects"},
			[]string{"zod"}},
		{"description moved first", prop(`{"type":"string","description":"A."}`), prop(`{"description":"A.","type":"string"}`),
			[]string{"description first", "z.string().optional().describe(…)"},
			[]string{"Go SDK", "description after the type's keywords is"}},
		{"description not involved", prop(`{"type":"string","enum":["x"]}`), prop(`{"enum":["x"],"type":"string"}`),
			[]string{"key order only. JSON objects are unordered"},
			[]string{"zod", "Go SDK"}},
		{"a tool's fields, name last", `{"name":"t","description":"T.","inputSchema":{}}`, `{"description":"T.","inputSchema":{},"name":"t"}`,
			[]string{"Go SDK writes a tool's fields in its struct's order"},
			[]string{"zod"}},
		{"array elements", `{"name":"t","inputSchema":{"required":["a","b"]}}`, `{"name":"t","inputSchema":{"required":["b","a"]}}`,
			[]string{"element order only"},
			[]string{"key order", "zod"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := Load([]byte("[" + tc.ref + "]"))
			if err != nil {
				t.Fatal(err)
			}
			r := Compare(ref, live(tc.live))
			if len(r.Changes) != 1 || r.Changes[0].Kind != "order" {
				t.Fatalf("changes: %+v", r.Changes)
			}
			note := r.Changes[0].Note
			for _, h := range tc.has {
				if !strings.Contains(note, h) {
					t.Errorf("note %q lacks %q", note, h)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(note, h) {
					t.Errorf("note %q claims %q", note, h)
				}
			}
		})
	}
}

// The lock records capabilities, and reads back every part.
func TestSnapshotRecordsEveryPart(t *testing.T) {
	snap := Snapshot(fullSkills())
	v := gjson.ParseBytes(snap)
	if v.Get("capabilities.resources.subscribe").Bool() != true || len(v.Get("resource_templates").Array()) != 2 {
		t.Errorf("lock: %s", snap)
	}
	ref, _ := Load(snap)
	if ref.Records != AllParts || len(ref.Prompts) != 2 || ref.ProtocolVersion != "2025-06-18" || ref.Templates[0].Name != "customers://{id}" {
		t.Errorf("read back: %+v", ref)
	}
}

// A server that declares no Skills extension records no skills: its lock
// has no skills member, and a comparison does not mention them.
func TestNoSkillsNotMentioned(t *testing.T) {
	c := full()
	snap := Snapshot(c)
	if gjson.GetBytes(snap, "skills").Exists() {
		t.Errorf("lock has skills: %s", snap)
	}
	ref, _ := Load(snap)
	r := Compare(ref, FromCapture(c, "live"))
	if r.Drift() || len(r.NotCompared) != 0 || len(r.Compared) != len(Parts)-1 {
		t.Errorf("comparison: %+v", r)
	}
	// the extension appearing is drift in capabilities, and the skills
	// a lock without them never recorded are not compared
	r = Compare(ref, FromCapture(fullSkills(), "live"))
	if got := JoinParts(r.ChangedParts()); got != "capabilities" || len(r.NotCompared) != 1 || r.NotCompared[0].Part != PartSkills {
		t.Errorf("changed %q, not compared %+v", got, r.NotCompared)
	}
}
