package diff

import (
	"fmt"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	base := `{"name":"purge","description":"Purges the cache.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"the folder"}},"required":["path"]}}`
	tests := []struct {
		name               string
		a, b               string
		sameFP, sameSchema bool
	}{
		{"only the name differs", base, strings.Replace(base, `"purge"`, `"wipe"`, 1), true, true},
		{"whitespace in the description", base, strings.Replace(base, "Purges the cache.", "  Purges\\n the   cache. ", 1), true, true},
		{"key order and number spelling", base, `{"inputSchema":{"required":["path"],"properties":{"path":{"description":"the folder","type":"string"}},"type":"object"},"description":"Purges the cache.","name":"x"}`, true, true},
		{"new words", base, strings.Replace(base, "Purges the cache.", "Purges the cache for good.", 1), false, true},
		{"a property description only", base, strings.Replace(base, "the folder", "a folder", 1), false, true},
		{"a new property", base, strings.Replace(base, `"required"`, `"x":1,"required"`, 1), false, false},
		{"a property's type", base, strings.Replace(base, `"type":"string"`, `"type":"integer"`, 1), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fingerprint([]byte(tc.a)) == Fingerprint([]byte(tc.b)); got != tc.sameFP {
				t.Errorf("same fingerprint: %v, want %v", got, tc.sameFP)
			}
			if got := SchemaFingerprint([]byte(tc.a)) == SchemaFingerprint([]byte(tc.b)); got != tc.sameSchema {
				t.Errorf("same schema fingerprint: %v, want %v", got, tc.sameSchema)
			}
		})
	}
	if SchemaFingerprint([]byte(`{"name":"a","inputSchema":{"type":"object"}}`)) != "" {
		t.Errorf("an empty schema has a schema fingerprint: it would pair any two tools")
	}
	if Fingerprint([]byte(`{"name":`)) != "" {
		t.Errorf("invalid JSON has a fingerprint")
	}
}

func tool(name, desc, props string) Tool {
	return Tool{Name: name, Raw: []byte(fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{%s}}}`, name, desc, props))}
}

func TestRenames(t *testing.T) {
	path := `"path":{"type":"string"}`
	id := `"id":{"type":"integer"}`
	tests := []struct {
		name      string
		ref, live []Tool
		want      string
	}{
		{"a rename", []Tool{tool("purge", "Purges the cache.", path)}, []Tool{tool("wipe", "Purges the cache.", path)},
			"purge→wipe renamed"},
		{"renamed and changed: same schema", []Tool{tool("purge", "Purges the cache.", path)}, []Tool{tool("wipe", "Deletes everything.", path)},
			"purge→wipe renamed_and_changed"},
		{"renamed and changed: most words", []Tool{tool("purge", "Purges the build cache of a folder", path)}, []Tool{tool("wipe", "Purges the build cache of a folder now", id)},
			"purge→wipe renamed_and_changed"},
		{"unrelated tools are no rename", []Tool{tool("purge", "Purges the cache.", path)}, []Tool{tool("add", "Adds two numbers.", id)}, ""},
		{"an exact match wins over a shape match, whatever the order",
			[]Tool{tool("a", "Alpha text here.", path), tool("b", "Beta words there.", path)},
			[]Tool{tool("c", "Beta words there.", path), tool("d", "Something else.", path)},
			"a→d renamed_and_changed,b→c renamed"},
		{"a stored fingerprint is used", []Tool{{Name: "old", Raw: []byte(`{"name":"old"}`), FP: Fingerprint([]byte(`{"name":"x","description":"D"}`))}},
			[]Tool{{Name: "new", Raw: []byte(`{"name":"new","description":"D"}`)}}, "old→new renamed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref := Side{Format: "mcpprobe-snapshot", Records: PartSet(0).With(PartTools), Tools: tc.ref}
			live := Side{Format: "live", Records: PartSet(0).With(PartTools), Tools: tc.live}
			c := Compare(ref, live)
			var got []string
			for _, r := range c.Renames {
				got = append(got, r.From+"→"+r.To+" "+r.Kind)
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("renames %q, want %q", got, tc.want)
			}
			if tc.want != "" && !c.Drift() {
				t.Errorf("a rename is no drift")
			}
		})
	}
}

// TestSnapshotFingerprints: a lock keeps each tool's fingerprints, reads
// them back, and a lock without them (written before) still works.
func TestSnapshotFingerprints(t *testing.T) {
	raw := `{"name":"purge","description":"Purges.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`
	lock := `{"mcpprobe_snapshot":1,"fingerprint_normalisation":"` + FingerprintVersion + ` (derived)","tools":[{"name":"purge","fingerprint":"f1","schema_fingerprint":"s1","raw":` + fmt.Sprintf("%q", raw) + `}]}`
	s, err := Load([]byte(lock))
	if err != nil || len(s.Tools) != 1 || s.Tools[0].FP != "f1" || s.Tools[0].SchemaFP != "s1" {
		t.Fatalf("%+v %v", s.Tools, err)
	}
	old := `{"mcpprobe_snapshot":1,"tools":[{"name":"purge","fingerprint":"f1","raw":` + fmt.Sprintf("%q", raw) + `}]}`
	s, err = Load([]byte(old))
	if err != nil || len(s.Tools) != 1 || s.Tools[0].FP != "" || s.Tools[0].fingerprint() != Fingerprint([]byte(raw)) {
		t.Fatalf("a lock without a normalisation: %+v %v", s.Tools, err)
	}
}

// TestRenamesBounded: 5,000 tools removed and 5,000 added (a server that
// renames everything) pair exactly by fingerprint, without comparing
// every pair.
func TestRenamesBounded(t *testing.T) {
	var ref, live []Tool
	var removed, added []string
	for i := 0; i < 5000; i++ {
		d := fmt.Sprintf("Tool number %d does its job.", i)
		ref = append(ref, tool(fmt.Sprintf("old_%d", i), d, `"x":{"type":"string"}`))
		live = append(live, tool(fmt.Sprintf("new_%d", i), d, `"x":{"type":"string"}`))
		removed, added = append(removed, ref[i].Name), append(added, live[i].Name)
	}
	got := renames(ref, live, removed, added)
	if len(got) != 5000 || got[0].From != "old_0" || got[0].To != "new_0" || got[4999].To != "new_4999" {
		t.Errorf("%d renames; first %+v", len(got), got[0])
	}
}
