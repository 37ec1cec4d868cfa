package hosts

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// extract is what scripts/verify-hosts.sh read out of one Claude Code
// version's shipped code, as the facts a profile rests on.
type extract struct {
	sha256         string
	limits         []int  // the numeric limit constants the cut code names
	marker         string // what the cut helper appends
	descCut        bool   // the tool description goes through the cut
	instrCut       bool   // the server instructions go through the cut
	wholePairs     bool   // the slice helper drops a high surrogate left at the end
	env            bool   // the limit reads CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH
	loadedOverride bool   // a second limit once a tool is loaded through tool search
}

var (
	reSHA       = regexp.MustCompile(`^# tarball sha256 ([0-9a-f]{64})$`)
	reConst     = regexp.MustCompile(`^(?:var |[,;])[A-Za-z0-9_$]+=([0-9]+)[,;]$`)
	reMarker    = regexp.MustCompile(`\+"((?:\\u2026|…) \[truncated\])"`)
	reSurrogate = regexp.MustCompile(`charCodeAt\([a-z]-1\);return [A-Za-z0-9_$]*\(?[a-z]>=55296&&[a-z]<=56319\?[a-z]\.slice\(0,-1\):[a-z]\)?\}`)
)

func readExtract(t *testing.T, path string) extract {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var x extract
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if m := reSHA.FindStringSubmatch(l); m != nil {
			x.sha256 = m[1]
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		if m := reConst.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			x.limits = append(x.limits, n)
		}
		if m := reMarker.FindStringSubmatch(l); m != nil {
			x.marker = strings.ReplaceAll(m[1], `\u2026`, "…")
		}
		x.descCut = x.descCut || strings.Contains(l, `description`) && (strings.Contains(l, "prompt()") || strings.Contains(l, "`Tool \""))
		x.instrCut = x.instrCut || strings.Contains(l, "Server instructions")
		x.wholePairs = x.wholePairs || reSurrogate.MatchString(l)
		x.env = x.env || strings.Contains(l, ".CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH??")
		x.loadedOverride = x.loadedOverride || strings.Contains(l, "loadedThroughToolSearch")
	}
	sort.Ints(x.limits)
	return x
}

// TestClaudeCodeExtracts checks the Claude Code profile against what
// scripts/verify-hosts.sh read out of each version's shipped code
// (testdata/claude-code/VERSION.txt, with the tarball's sha256). Every
// extract must be in the table: a new version extracted (--latest) fails
// here until its facts are reviewed and recorded. A version the profile
// cites as verified must agree with the profile on every rule: the limit,
// the unit (a JavaScript slice: UTF-16 units), the marker on descriptions
// and instructions, and surrogate pairs kept whole.
func TestClaudeCodeExtracts(t *testing.T) {
	want := map[string]extract{
		"2.1.197": {limits: []int{2048}, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true},
		"2.1.280": {limits: []int{2048}, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true},
		// The newest published (2026-11-24): 4,096, and 16,384 once the
		// model loads the tool through tool search. Not the profile's.
		"2.1.332": {limits: []int{4096, 16384}, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true, loadedOverride: true},
	}
	files, _ := filepath.Glob("testdata/claude-code/*.txt")
	if len(files) < len(want) {
		t.Fatalf("%d extracts, want %d: run scripts/verify-hosts.sh", len(files), len(want))
	}
	h, ok := find(Known(), "claude-code")
	if !ok {
		t.Fatal("no claude-code profile")
	}
	for _, f := range files {
		v := strings.TrimSuffix(filepath.Base(f), ".txt")
		got := readExtract(t, f)
		w, ok := want[v]
		if !ok {
			t.Errorf("%s: extracted but not recorded here: review its snippets and add its facts (%+v)", v, got)
			continue
		}
		if got.sha256 == "" {
			t.Errorf("%s: the extract names no tarball sha256", v)
		}
		got.sha256 = ""
		if strings.Join(intStrings(got.limits), " ") != strings.Join(intStrings(w.limits), " ") ||
			got.marker != w.marker || got.descCut != w.descCut || got.instrCut != w.instrCut || got.wholePairs != w.wholePairs || got.env != w.env || got.loadedOverride != w.loadedOverride {
			t.Errorf("%s: the shipped code says %+v, recorded %+v", v, got, w)
		}
		cited := strings.Contains(h.Description.Verified, v)
		agrees := len(got.limits) == 1 && got.limits[0] == h.Description.Limit && got.limits[0] == h.Instructions.Limit &&
			h.Description.Unit == "utf16" && h.Instructions.Unit == "utf16" &&
			h.Description.Marker == got.marker && h.Instructions.Marker == got.marker &&
			(h.Description.Surrogate == "whole") == got.wholePairs && (h.Instructions.Surrogate == "whole") == got.wholePairs &&
			!got.loadedOverride
		switch {
		case cited && !agrees:
			t.Errorf("the claude-code profile cites %s as verified but its code says otherwise: %+v; profile %+v / %+v", v, got, h.Description, h.Instructions)
		case !cited && agrees:
			t.Errorf("%s agrees with the claude-code profile: cite it in the rule's verified", v)
		}
		if !strings.Contains(h.Notes, v) {
			t.Errorf("the claude-code notes do not name %s, a version read", v)
		}
	}
}

func intStrings(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}

// TestCodexExtract: Codex ships a compiled binary, so no rule of its
// profile is verified against its code; the profile must not claim one.
func TestCodexExtract(t *testing.T) {
	data, err := os.ReadFile("testdata/codex.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "a compiled Rust binary") || !reSHA.MatchString(strings.Split(string(data), "\n")[1]) {
		t.Errorf("testdata/codex.txt: %q", data)
	}
	h, _ := find(Known(), "codex")
	if h.Description.Verified != "" || h.Instructions.Verified != "" {
		t.Errorf("the codex profile claims a rule verified against its code")
	}
}
