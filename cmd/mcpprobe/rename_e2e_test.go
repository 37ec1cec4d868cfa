//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRenameDriftE2E is issue 28's done-when line for drift: a server
// that renames a tool and changes its text trips --fail-on drift with
// "renamed and changed"; one that only renames it is "renamed"; one that
// only reorders its tools does not trip; a lock written before locks held
// fingerprints still finds the rename.
func TestRenameDriftE2E(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock := filepath.Join(dir, "lock.json")
	if r := mcpprobe(t, "snapshot", "-o", lock, "--", bin.good, "-cut-tool"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	data, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"fingerprint_normalisation": "fp1 (derived)`) || strings.Count(string(data), `"fingerprint": "`) != 4 {
		t.Errorf("the lock keeps no fingerprint per tool:\n%.600s", data)
	}
	// The same lock as written before fingerprints: every member gone.
	old := filepath.Join(dir, "old.json")
	stripped := regexp.MustCompile(`(?m)^\s*"(fingerprint_normalisation|fingerprint|schema_fingerprint)": .*\n`).ReplaceAll(data, nil)
	if err := os.WriteFile(old, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	// The same lock with its tools in reverse order.
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	_ = json.Unmarshal(doc["tools"], &tools)
	for i, j := 0, len(tools)-1; i < j; i, j = i+1, j-1 {
		tools[i], tools[j] = tools[j], tools[i]
	}
	doc["tools"], _ = json.Marshal(tools)
	reversed := filepath.Join(dir, "reversed.json")
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(reversed, b, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		ref    string
		server []string
		code   int
		kind   string // the rename's kind in --json, "" for none
		text   string // in the text output
	}{
		{"renamed", lock, []string{"-cut-tool-name", "wipe_cache"}, 1, "renamed", "tools renamed          purge_cache → wipe_cache (the same content fingerprint)"},
		{"renamed and changed", lock, []string{"-cut-tool-name", "wipe_cache", "-cut-tool-note", "It also empties the trash."}, 1, "renamed_and_changed", "renamed and changed    purge_cache → wipe_cache (the same input schema shape, changed text)"},
		{"same name, new text", lock, []string{"-cut-tool-note", "It also empties the trash."}, 1, "", "changed parts          tools"},
		{"an old lock still finds the rename", old, []string{"-cut-tool-name", "wipe_cache"}, 1, "renamed", "tools renamed          purge_cache → wipe_cache"},
		{"reordered only", reversed, nil, 0, "", "changed parts          —"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := append([]string{"--", bin.good, "-cut-tool"}, tc.server...)
			r := mcpprobe(t, append([]string{"diff", "--ref", tc.ref, "--fail-on", "drift"}, server...)...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.text) {
				t.Errorf("exit %d, want %d; want %q in:\n%s\n%s", r.code, tc.code, tc.text, r.stdout, r.stderr)
			}
			if tc.code == 1 && !strings.Contains(r.stderr, "--fail-on tripped: drift") {
				t.Errorf("stderr: %s", r.stderr)
			}
			v := diffJSON(t, tc.code, append([]string{"--ref", tc.ref, "--fail-on", "drift"}, server...)...)
			got := v.Get("tools_renamed.0.kind").String()
			if got != tc.kind || (tc.kind != "" && (v.Get("tools_renamed.0.from").String() != "purge_cache" || v.Get("tools_renamed.0.to").String() != "wipe_cache")) {
				t.Errorf("tools_renamed %s, want kind %q", v.Get("tools_renamed").Raw, tc.kind)
			}
		})
	}
}
