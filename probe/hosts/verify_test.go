package hosts

import (
	"fmt"
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
	sha256      string
	limits      []int  // the numeric limit constants the cut code names
	limit       int    // the default limit: the one constant, or the ternary's "else"
	loadedLimit int    // the limit once a tool is loaded through tool search; 0: none
	marker      string // what the cut helper appends
	descCut     bool   // the tool description goes through the cut
	instrCut    bool   // the server instructions go through the cut
	wholePairs  bool   // the slice helper drops a high surrogate left at the end
	env         bool   // the limit reads CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH
	loaded      bool   // prompt() asks whether the tool was loaded through tool search
}

var (
	reSHA       = regexp.MustCompile(`^# tarball sha256 ([0-9a-f]{64})$`)
	reConst     = regexp.MustCompile(`^(?:var |[,;])([A-Za-z0-9_$]+)=([0-9]+)[,;]$`)
	reMarker    = regexp.MustCompile(`\+"((?:\\u2026|…) \[truncated\])"`)
	reSurrogate = regexp.MustCompile(`charCodeAt\([a-z]-1\);return [A-Za-z0-9_$]*\(?[a-z]>=55296&&[a-z]<=56319\?[a-z]\.slice\(0,-1\):[a-z]\)?\}`)
	// the limit function: ??NAME} (one limit) or ??(e?LOADED:DEFAULT)}
	reOneLimit = regexp.MustCompile(`\?\?([A-Za-z0-9_$]+)\}$`)
	reTwoLimit = regexp.MustCompile(`\?\?\([a-z]\?([A-Za-z0-9_$]+):([A-Za-z0-9_$]+)\)\}$`)
	// an untouched minified constant: BJ=2048 in "var BJ=2048;"
	reVarLimit = regexp.MustCompile(`length>([A-Za-z0-9_$]+)\?`)
)

func readExtract(t *testing.T, path string) extract {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var x extract
	consts := map[string]int{}
	var defName, loadedName string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if m := reSHA.FindStringSubmatch(l); m != nil {
			x.sha256 = m[1]
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		if m := reConst.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			consts[m[1]] = n
			x.limits = append(x.limits, n)
		}
		if m := reTwoLimit.FindStringSubmatch(l); m != nil && strings.Contains(l, "CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH") {
			loadedName, defName = m[1], m[2]
		} else if m := reOneLimit.FindStringSubmatch(l); m != nil && strings.Contains(l, "CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH") {
			defName = m[1]
		} else if m := reVarLimit.FindStringSubmatch(l); m != nil && defName == "" && strings.Contains(l, "prompt()") {
			defName = m[1]
		}
		if m := reMarker.FindStringSubmatch(l); m != nil {
			x.marker = strings.ReplaceAll(m[1], `\u2026`, "…")
		}
		x.descCut = x.descCut || strings.Contains(l, `description`) && (strings.Contains(l, "prompt()") || strings.Contains(l, "`Tool \""))
		x.instrCut = x.instrCut || strings.Contains(l, "Server instructions")
		x.wholePairs = x.wholePairs || reSurrogate.MatchString(l)
		x.env = x.env || strings.Contains(l, ".CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH??")
		x.loaded = x.loaded || strings.Contains(l, "loadedThroughToolSearch")
	}
	sort.Ints(x.limits)
	x.limit, x.loadedLimit = consts[defName], consts[loadedName]
	return x
}

// TestClaudeCodeExtracts checks the Claude Code profile against what
// scripts/verify-hosts.sh read out of each version's shipped code
// (testdata/claude-code/VERSION.txt, with the tarball's sha256). Every
// extract must be in the table: a new version extracted (--latest) fails
// here until its facts are reviewed and recorded. Then, for each version
// read, the profile --host claude-code@VERSION picks must agree with that
// version's code on every rule (the default limit of descriptions and of
// instructions, the unit: a JavaScript slice counts UTF-16 units, the
// marker on both, surrogate pairs kept whole), cite the version in both
// rules' verified, and name the tool-search limit it does not model; and
// the default profile must be the newest version's.
func TestClaudeCodeExtracts(t *testing.T) {
	const newest = "2.1.332" // npm view @anthropic-ai/claude-code version, 2026-12-02
	want := map[string]extract{
		"2.1.197": {limits: []int{2048}, limit: 2048, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true},
		"2.1.280": {limits: []int{2048}, limit: 2048, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true},
		// The last with one limit.
		"2.1.294": {limits: []int{2048}, limit: 2048, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true},
		// The first with 16,384 once the model loads the tool through
		// tool search; its default still 2,048.
		"2.1.295": {limits: []int{2048, 16384}, limit: 2048, loadedLimit: 16384, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true, loaded: true},
		// The first whose default is 4,096.
		"2.1.296": {limits: []int{4096, 16384}, limit: 4096, loadedLimit: 16384, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true, loaded: true},
		// The newest published (2026-11-24).
		"2.1.332": {limits: []int{4096, 16384}, limit: 4096, loadedLimit: 16384, marker: "… [truncated]", descCut: true, instrCut: true, wholePairs: true, env: true, loaded: true},
	}
	files, _ := filepath.Glob("testdata/claude-code/*.txt")
	if len(files) < len(want) {
		t.Fatalf("%d extracts, want %d: run scripts/verify-hosts.sh", len(files), len(want))
	}
	base, ok := find(Known(), "claude-code")
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
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s: the shipped code says %+v, recorded %+v", v, got, w)
		}
		h, err := base.AtVersion(v)
		if err != nil {
			t.Errorf("%s: %v", v, err)
			continue
		}
		for _, r := range []struct {
			what string
			rule Rule
		}{{"description", h.Description}, {"instructions", h.Instructions}} {
			agrees := r.rule.Rule == "cut" && r.rule.Limit == got.limit && r.rule.Unit == "utf16" && r.rule.Marker == got.marker &&
				(r.rule.Surrogate == "whole") == got.wholePairs
			if !agrees {
				t.Errorf("claude-code@%s: its %s rule %+v, its code: %+v", v, r.what, r.rule, got)
			}
			if !strings.Contains(r.rule.Verified, v) {
				t.Errorf("claude-code@%s: its %s rule's verified does not cite %s, a version read that it covers", v, r.what, v)
			}
		}
		if got.env != (h.OverrideEnv == "CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH") && !strings.Contains(h.Notes, v+" has no such variable") {
			t.Errorf("claude-code@%s: the variable is read: %v; the notes do not say so: %q", v, got.env, h.Notes)
		}
		if got.loadedLimit > 0 && !strings.Contains(h.Notes, "16,384") {
			t.Errorf("claude-code@%s: a description loaded through tool search is cut at %d; the notes do not say so", v, got.loadedLimit)
		}
		if !strings.Contains(h.Notes, v) {
			t.Errorf("claude-code@%s: its notes do not name %s, a version read", v, v)
		}
	}
	if h, _ := base.AtVersion(newest); h.Description != base.Description || h.Instructions != base.Instructions {
		t.Errorf("the default claude-code profile is not the newest version's (%s) rules", newest)
	}
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

// hostExtract is one host's extract (testdata/HOST/PIN.txt): its header
// lines and its matched lines.
type hostExtract struct {
	pin, header string
	lines       []string
	hashes      int // files (or the tarball) named with their sha256
}

func readHostExtract(t *testing.T, host string) hostExtract {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", host, "*.txt"))
	if len(files) != 1 {
		t.Fatalf("%s: %d extracts, want 1: run scripts/verify-hosts.sh %s", host, len(files), host)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	x := hostExtract{pin: strings.TrimSuffix(filepath.Base(files[0]), ".txt")}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		switch {
		case reSHA.MatchString(l) || regexp.MustCompile(`^# file \S+ sha256 [0-9a-f]{64}$`).MatchString(l):
			x.hashes++
		case strings.HasPrefix(l, "#"):
			x.header += l + "\n"
		default:
			x.lines = append(x.lines, l)
		}
	}
	return x
}

// int1 is the integer the first line matching re captures ("40_000" reads
// 40000); -1 when no line matches.
func (x hostExtract) int1(re string) int {
	r := regexp.MustCompile(re)
	for _, l := range x.lines {
		if m := r.FindStringSubmatch(l); m != nil {
			n, err := strconv.Atoi(strings.ReplaceAll(m[1], "_", ""))
			if err == nil {
				return n
			}
		}
	}
	return -1
}

func (x hostExtract) has(s string) bool {
	for _, l := range x.lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestHostExtracts checks the profiles of the hosts whose code ships in a
// package or is public against what scripts/verify-hosts.sh read out of
// that code, pinned by version or commit with sha256s: each rule the
// profile says it read in code must agree with the code, and cite the
// pin. A change to a profile or a re-extract that disagrees fails here.
func TestHostExtracts(t *testing.T) {
	known := map[string]Host{}
	for _, h := range Known() {
		known[h.ID] = h
	}
	check := func(host, what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %s: the profile says %v, the code %v", host, what, got, want)
		}
	}
	cites := func(host, pin string, texts ...string) {
		t.Helper()
		for _, s := range texts {
			if !strings.Contains(s, pin) {
				t.Errorf("%s: a rule read in code does not cite %s: %.120q", host, pin, s)
			}
		}
	}

	t.Run("gemini-cli", func(t *testing.T) {
		x, h := readHostExtract(t, "gemini-cli"), known["gemini-cli"]
		r := h.Result
		check("gemini-cli", "result threshold", r.MaxChars, x.int1(`DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = ([0-9_]+);`))
		share := regexp.MustCompile(`Math\.floor\(maxChars \* ([0-9.]+)\)`)
		for _, l := range x.lines {
			if m := share.FindStringSubmatch(l); m != nil {
				check("gemini-cli", "head share", r.HeadShare, m[1])
			}
		}
		check("gemini-cli", "kept", r.Rule+"/"+r.Keep, "spill/head_tail")
		check("gemini-cli", "marker", x.has("Output too large. Showing first") && x.has("characters omitted] ..."),
			strings.HasPrefix(r.Marker, "Output too large. Showing first") && strings.Contains(r.Marker, " characters omitted] ..."))
		check("gemini-cli", "one text part only", r.OneTextOnly, x.has("content.length === 1 &&") && x.has("call.tool instanceof DiscoveredMCPTool"))
		check("gemini-cli", "wrap", r.Wrap == "<untrusted_context>\n{text}\n</untrusted_context>",
			x.has("return { text: wrapUntrusted(block.text) };") && x.has("return `<untrusted_context>\\n${escaped}\\n</untrusted_context>`;"))
		n := h.ToolNames
		check("gemini-cli", "name length", n.MaxLen, x.int1(`const MAX_FUNCTION_NAME_LENGTH = ([0-9]+);`)-1)
		check("gemini-cli", "name rule", n.Prefix+" "+n.Allowed+" "+n.Replacement+" "+n.OverLimit, "mcp_{server}_{tool} A-Za-z0-9_.:- _ shortened")
		check("gemini-cli", "name chars", x.has(`replace(/[^a-zA-Z0-9_\-.:]/g, '_')`), true)
		check("gemini-cli", "instructions", h.Instructions.Rule == "whole", x.has("---[start of server instructions]---\\n${clientInstructions}\\n"))
		quirks := map[string]string{}
		for _, q := range h.SchemaQuirks {
			quirks[q.Does] = q.What
			cites("gemini-cli", x.pin, q.Source)
		}
		check("gemini-cli", "nullable rewrite", strings.Contains(quirks["rewritten"], `"null"`), x.has("res['type'] = res['type'][1 - nIdx];") && x.has("res['nullable'] = true;"))
		check("gemini-cli", "secureInputSchema not delivered", h.SecureInputSchema != nil && h.SecureInputSchema.Rule == "not_delivered",
			x.has("toolDef.description ?? '', toolDef.inputSchema ??") && strings.Contains(x.header, "# secureInputSchema named in dist/src: 0 files"))
		check("gemini-cli", "cyclic schemas refused", strings.Contains(quirks["refused"], "cyclic $ref"), x.has("This error was probably caused by cyclic schema references"))
		if x.hashes < 2 {
			t.Errorf("gemini-cli: the extract names %d sha256s", x.hashes)
		}
		cites("gemini-cli", x.pin, r.Source, n.Source, h.Instructions.Source, h.Description.Source)
	})

	t.Run("vscode", func(t *testing.T) {
		x, h := readHostExtract(t, "vscode"), known["vscode"]
		if len(h.ToolLimits) != 1 {
			t.Fatalf("vscode: %d tool limits, want 1", len(h.ToolLimits))
		}
		l := h.ToolLimits[0]
		check("vscode", "tool limit", l.Limit, x.int1(`export const HARD_TOOL_LIMIT = ([0-9]+);`))
		check("vscode", "grouping threshold", l.Threshold == l.Limit, x.has("'chat.virtualTools.threshold', ConfigType.ExperimentBased, HARD_TOOL_LIMIT)"))
		check("vscode", "past it", l.Over == "grouped" && l.Scope == "request", x.has("VIRTUAL_TOOL_NAME_PREFIX = 'activate_';"))
		check("vscode", "refused when not grouped", strings.Contains(l.Source, "Tool limit exceeded"), x.has("Tool limit exceeded ("))
		check("vscode", "sure", l.Sure, SureCode)
		cites("vscode", x.pin, l.Source)
	})

	t.Run("cline", func(t *testing.T) {
		x, h := readHostExtract(t, "cline"), known["cline"]
		n := h.ToolNames
		check("cline", "name length", n.MaxLen, x.int1(`const MAX_MCP_TOOL_NAME_LENGTH = ([0-9]+);`))
		check("cline", "prefix", n.Prefix == "{server}__{tool}", x.has("const rawName = `${serverName}__${toolName}`;"))
		check("cline", "name chars", n.Allowed+" "+n.Replacement, "A-Za-z0-9_- _")
		check("cline", "name chars in code", x.has("/[^a-zA-Z0-9_-]+/g"), true)
		check("cline", "over the limit", n.OverLimit == "shortened", x.has("return `${baseName}_${hash}`;"))
		check("cline", "description", h.Description.Rule == "whole", x.has("const base = tool.description?.trim();"))
		cites("cline", x.pin, n.Source, h.Description.Source)
	})

	t.Run("opencode", func(t *testing.T) {
		x, h := readHostExtract(t, "opencode"), known["opencode"]
		r := h.Result
		consts := regexp.MustCompile(`\.days\(7\),[A-Za-z0-9_$]+=([0-9]+),[A-Za-z0-9_$]+=([0-9]+),`)
		found := false
		for _, l := range x.lines {
			if m := consts.FindStringSubmatch(l); m != nil {
				found = true
				check("opencode", "max lines", r.MaxLines, m[1])
				check("opencode", "max bytes", r.MaxBytes, m[2])
			}
		}
		if !found {
			t.Errorf("opencode: the extract has no limits")
		}
		check("opencode", "head kept, notice", r.Keep == "head_lines" && strings.Contains(r.Marker, "truncated...\n\n"),
			x.has("return{content:j===\"head\"?`${n}") && x.has("...${u} ${Y} truncated..."))
		check("opencode", "config override", strings.Contains(r.Source, "tool_output.max_lines"), x.has("tool_output?.max_lines??"))
		cites("opencode", x.pin, r.Source)
	})

	t.Run("copilot-cli", func(t *testing.T) {
		x, h := readHostExtract(t, "copilot-cli"), known["copilot-cli"]
		if !strings.Contains(x.header, "not plain text") || x.hashes != 1 {
			t.Errorf("copilot-cli: %q", x.header)
		}
		// Nothing read in code: no rule may claim it.
		for what, sure := range map[string]string{"result": h.Result.Sure, "description": h.Description.Sure, "names": h.ToolNames.Sure} {
			if sure == SureCode {
				t.Errorf("copilot-cli: its %s rule claims to be read in code, which is not readable", what)
			}
		}
		cites("copilot-cli", x.pin, h.Source)
	})
}
