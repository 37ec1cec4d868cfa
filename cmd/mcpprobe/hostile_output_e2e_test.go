//go:build e2e

package main

// Hostile servers against what mcpprobe writes (issue 12): markdown a
// server cannot make run, invalid UTF-8 kept byte for byte in JSON that
// every parser reads, a flood folded into one finding, nesting that costs
// its size and no more, and output files that are never an input, are
// written whole, and fail with exit 4. Each case is bounded in time and
// in memory (the peak resident set wait4 reports for mcpprobe, which
// counts the server it reaped), and leaves no server running.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

type rusageResult struct {
	result
	maxRSSKB int64
}

// rusageRun runs mcpprobe with its peak resident set from wait4's rusage:
// exact, where sampling /proc can miss a peak.
func rusageRun(t *testing.T, args ...string) rusageResult {
	t.Helper()
	r := mcpprobe(t, args...)
	return rusageResult{result: r, maxRSSKB: int64(r.peakKB)}
}

// bounded fails the test for a run past within (an idle machine's bound,
// scaled by the load) or maxRSSKB.
func bounded(t *testing.T, r rusageResult, within time.Duration) {
	t.Helper()
	t.Logf("exit %d in %v, peak RSS %d MiB", r.code, r.took.Round(time.Millisecond), r.maxRSSKB>>10)
	within = bound(within)
	if r.took > within {
		t.Errorf("took %v, want under %v", r.took, within)
	}
	if r.maxRSSKB == 0 || r.maxRSSKB > int64(maxRSSKB) {
		t.Errorf("peak RSS %d KiB, want under %d KiB", r.maxRSSKB, maxRSSKB)
	}
}

// A server's names, titles, descriptions, instructions and the messages
// that quote them reach the report's reader as text: rendered as GitHub
// renders markdown, with raw HTML let through, nothing of the server's
// is an element, a fetched image or a link of its wording.
func TestHostileMarkdownIsInert(t *testing.T) {
	t.Parallel()
	pf := pidFile(t)
	out := filepath.Join(t.TempDir(), "report.md")
	r := rusageRun(t, "report", "--out", out, "--", bin.raw, "-html", "-pidfile", pf)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	bounded(t, r, 20*time.Second)
	noneLeft(t, pidsIn(t, pf))
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"<script", "<img", "<b>"} {
		if bytes.Contains(md, []byte(raw)) {
			t.Errorf("the report holds %q raw", raw)
		}
	}
	if m := regexp.MustCompile(`[^\\]\]\(javascript`).Find(md); m != nil {
		t.Errorf("the report holds a link: %q", m)
	}
	var page bytes.Buffer
	g := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := g.Convert(md, &page); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`<(script|img|b)\b[^>]*>|<a href="javascript`).FindString(page.String()); m != "" {
		t.Errorf("the rendered report holds %q", m)
	}
	// A bare URL may be linked, as GitHub links it: to itself, never
	// behind words of the server's.
	for _, a := range regexp.MustCompile(`<a href="([^"]*)">([^<]*)</a>`).FindAllStringSubmatch(page.String(), -1) {
		if a[1] != a[2] {
			t.Errorf("a link behind other words: %s", a[0])
		}
	}
	// Readable still: the reader sees what the server sent.
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the rendered report does not show %q", want)
		}
	}
}

// A server with invalid UTF-8 in its name, instructions and a tool's
// description: --json is UTF-8 a strict parser accepts, with the exact
// bytes in the _b64 companions; the text shows \x escapes; and the
// server shows no drift against its own snapshot or its own --json.
func TestHostileInvalidUTF8(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pf := pidFile(t)
	server := []string{"--", bin.raw, "-bad-utf8", "-pidfile", pf}
	r := rusageRun(t, append([]string{"wire", "--json"}, server...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	bounded(t, r, 20*time.Second)
	if !utf8.ValidString(r.stdout) {
		t.Fatal("--json is not valid UTF-8")
	}
	var strict map[string]any
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&strict); err != nil {
		t.Fatalf("a strict parser refuses --json: %v", err)
	}
	if err := jsonout.ValidateResult([]byte(r.stdout)); err != nil {
		t.Errorf("--json with _b64 companions does not validate: %v", err)
	}
	v := gjson.Get(r.stdout, "wire")
	exact := func(path string) string {
		b, err := base64.StdEncoding.DecodeString(v.Get(path).String())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return string(b)
	}
	if got := exact("instructions_b64"); got != "bad \xff bytes \xc3\x28 here" {
		t.Errorf("instructions_b64 = %q", got)
	}
	if got := exact("tools_b64.0"); !strings.Contains(got, "caf\xe9 \xff\xfe end") {
		t.Errorf("tools_b64.0 = %q", got)
	}
	if text := mcpprobe(t, append([]string{"wire"}, server...)...); !strings.Contains(text.stdout, `rawserver-\xff\xfe`) || !strings.Contains(text.stdout, `bad \xff bytes \xc3(`) {
		t.Errorf("the text does not show the bytes as \\x escapes:\n%s", text.stdout)
	}
	wireOut := filepath.Join(dir, "wire.json")
	if err := os.WriteFile(wireOut, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "lock.json")
	if s := mcpprobe(t, append([]string{"snapshot", "-o", lock}, server...)...); s.code != 0 {
		t.Fatalf("snapshot: exit %d: %s", s.code, s.stderr)
	}
	if b, _ := os.ReadFile(lock); !utf8.Valid(b) || !bytes.Contains(b, []byte(`"raw_b64": "`)) {
		t.Errorf("the lock file is not UTF-8 or has no raw_b64:\n%s", b)
	}
	for _, ref := range []string{lock, wireOut} {
		d := mcpprobe(t, append([]string{"diff", "--json", "--ref", ref, "--fail-on", "drift"}, server...)...)
		if d.code != 0 || !gjson.Get(d.stdout, "diff.identical_bytes").Bool() || gjson.Get(d.stdout, "diff.changes.#").Int() != 0 {
			t.Errorf("%s: a server drifts from itself: exit %d %s %s", filepath.Base(ref), d.code, gjson.Get(d.stdout, "diff.changes").Raw, d.stderr)
		}
	}
	// Every command's --json: UTF-8, strict JSON, and its schema.
	for _, command := range []string{"report", "budget", "snapshot"} {
		j := mcpprobe(t, append([]string{command, "--json"}, server...)...)
		var v map[string]any
		if j.code != 0 || !utf8.ValidString(j.stdout) || json.Unmarshal([]byte(j.stdout), &v) != nil {
			t.Errorf("%s --json: exit %d, not strict UTF-8 JSON: %s", command, j.code, j.stderr)
		} else if err := jsonout.ValidateResult([]byte(j.stdout)); err != nil {
			t.Errorf("%s --json does not validate: %v", command, err)
		}
	}
	noneLeft(t, pidsIn(t, pf))
}

// 100,000 invalid messages are one row of the report with a count and
// examples (100,062 lines and 16 MB before), and one finding in --json.
func TestHostileFloodIsOneRow(t *testing.T) {
	t.Parallel()
	pf := pidFile(t)
	r := rusageRun(t, "report", "--", bin.raw, "-invalid-flood", "100000", "-pidfile", pf)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	bounded(t, r, 30*time.Second)
	if n := strings.Count(r.stdout, "\n"); n > 200 || len(r.stdout) > 64<<10 {
		t.Errorf("the report is %d lines, %d bytes", n, len(r.stdout))
	}
	rows := regexp.MustCompile(`(?m)^\| error \| invalid-message \| stdout line 3: .*×100,000 in all; the next: stdout line 4: `).FindAllString(r.stdout, -1)
	if len(rows) != 1 || strings.Count(r.stdout, "invalid-message") != 1 {
		t.Errorf("invalid-message rows: %d\n%s", len(rows), r.stdout)
	}
	j := rusageRun(t, "wire", "--json", "--", bin.raw, "-invalid-flood", "100000", "-pidfile", pf)
	bounded(t, j, 30*time.Second)
	var folded []gjson.Result
	for _, f := range gjson.Get(j.stdout, "findings").Array() {
		if f.Get("code").String() == "invalid-message" {
			folded = append(folded, f)
		}
	}
	if len(folded) != 1 || folded[0].Get("count").Int() != 100000 || folded[0].Get("examples.#").Int() != 3 {
		t.Errorf("invalid-message in --json: %v", folded)
	}
	noneLeft(t, pidsIn(t, pf))
}

// A tool schema nested 40,000 levels deep (and as many arrays in its
// _meta) is a deep-nesting finding, and every command ends in seconds
// (at 20,000 levels wire took 32 s and budget 117 s; at 100,000, minutes).
func TestHostileDeepNesting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pf := pidFile(t)
	server := []string{"--", bin.raw, "-deep", "20000", "-pidfile", pf}
	lock := filepath.Join(dir, "lock.json")
	for _, args := range [][]string{
		{"wire", "--json"},
		{"budget", "--json"},
		{"snapshot", "-o", lock},
		{"diff", "--json", "--ref", lock, "--fail-on", "drift"},
		{"report"},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := rusageRun(t, append(args, server...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			bounded(t, r, 20*time.Second)
			if args[0] == "wire" || args[0] == "budget" {
				if !has(findingCodes(gjson.Parse(r.stdout)), "deep-nesting") {
					t.Errorf("no deep-nesting finding: %v", findingCodes(gjson.Parse(r.stdout)))
				}
			}
			if args[0] == "diff" && !gjson.Get(r.stdout, "diff.identical_bytes").Bool() {
				t.Errorf("a deep server drifts from its own lock: %s", gjson.Get(r.stdout, "diff.changes").Raw)
			}
		})
	}
	if st, err := os.Stat(lock); err != nil || st.Size() > 64<<20 {
		t.Errorf("the lock file: %v", err)
	}
	noneLeft(t, pidsIn(t, pf))
}

// An output is never an input or another output (exit 2, the input
// untouched); a write that fails is exit 4, whichever output it was,
// with the results still printed; --out replaces a file whole.
func TestHostileOutputFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.json")
	refBody := `{"tools":[{"name":"alpha","inputSchema":{"type":"object"}}]}`
	if err := os.WriteFile(ref, []byte(refBody), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := [][]string{
		{"diff", "--ref", ref, "--out", ref, bin.raw},
		{"diff", "--ref", ref, "--trace", filepath.Join(dir, ".", "ref.json"), bin.raw},
		{"report", "--ref", ref, "-o", ref, bin.raw},
		{"wire", "--out", filepath.Join(dir, "t"), "--trace", filepath.Join(dir, "t"), bin.raw},
		{"wire", "--out", bin.raw, bin.raw},
	}
	for _, args := range refused {
		r := mcpprobe(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "give ") {
			t.Errorf("%v: exit %d, want 2: %s", args, r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(ref); string(b) != refBody {
		t.Errorf("--ref was overwritten: %s", b)
	}
	failing := []struct {
		args  []string
		what  string
		stdio bool // the results still printed on stdout
	}{
		{[]string{"wire", "--out", "/dev/full", bin.raw}, "writing --out /dev/full failed", false},
		{[]string{"snapshot", "-o", "/dev/full", bin.raw}, "writing --out /dev/full failed", false},
		{[]string{"wire", "--trace", "/dev/full", bin.raw}, "writing --trace /dev/full failed", true},
		{[]string{"report", "--trace", "/dev/full", "--fail-on", "info", bin.raw}, "writing --trace /dev/full failed", true},
		{[]string{"wire", "--save", "/dev/full", bin.raw}, "", false},
	}
	for _, tc := range failing {
		r := mcpprobe(t, tc.args...)
		if tc.what == "" {
			if r.code != 2 && r.code != 4 {
				t.Errorf("%v: exit %d: %s", tc.args, r.code, r.stderr)
			}
			continue
		}
		if r.code != exitWrite || !strings.Contains(r.stderr, tc.what+": write /dev/full: no space left on device") {
			t.Errorf("%v: exit %d, want 4: %s", tc.args, r.code, r.stderr)
		}
		if tc.stdio && r.stdout == "" {
			t.Errorf("%v: the results were not printed", tc.args)
		}
	}
	// stdout itself.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	cmd := exec.Command(bin.mcpprobe, "wire", bin.raw)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = full, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitWrite || !strings.Contains(errb.String(), "writing the output failed") {
		t.Errorf("stdout on /dev/full: %v: %s", err, errb.String())
	}
	// --out replaces a file whole, and leaves nothing beside it.
	out := filepath.Join(dir, "lock.json")
	if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := mcpprobe(t, "snapshot", "-o", out, bin.raw); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); !gjson.ValidBytes(b) {
		t.Errorf("not replaced: %q", b)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("permissions not kept: %v", st.Mode())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
