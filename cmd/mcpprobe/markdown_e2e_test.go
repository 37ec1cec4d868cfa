//go:build e2e

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// markdownDir collects every markdown document the e2e tests make
// mcpprobe write (report, budget --view, on stdout or --out), for
// markdownlint-cli2 to lint once they have all run (lintCollected).
var (
	markdownDir string
	markdownN   atomic.Int64
)

// collectMarkdown keeps a copy of the markdown a run wrote, if it wrote
// any.
func collectMarkdown(args []string, r result) {
	// --check prints a diff of two reports, not a report.
	if markdownDir == "" || len(args) == 0 || slices.Contains(args, "--json") || slices.Contains(args, "--check") || (r.code != 0 && r.code != 1) {
		return
	}
	isMarkdown := args[0] == "report" || (slices.Contains([]string{"budget", "call", "read", "prompt"}, args[0]) && slices.Contains(args, "--view")) ||
		(args[0] == "survey" && len(args) > 1 && args[1] == "summary")
	if !isMarkdown {
		return
	}
	md := r.stdout
	if i := slices.IndexFunc(args, func(a string) bool { return a == "--out" || a == "-o" }); i >= 0 && i+1 < len(args) {
		b, err := os.ReadFile(args[i+1])
		if err != nil {
			return
		}
		md = string(b)
	}
	if strings.TrimSpace(md) == "" {
		return
	}
	name := fmt.Sprintf("%03d-%s.md", markdownN.Add(1), args[0])
	_ = os.WriteFile(filepath.Join(markdownDir, name), []byte(md), 0o644)
}

// markdownlint is markdownlint-cli2 as install-peers.sh installs it, or
// "" when it is not installed.
func markdownlint() string {
	p, _ := filepath.Abs("../../scripts/peers/node_modules/.bin/markdownlint-cli2")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// lint runs markdownlint-cli2 with the repository's settings (the
// default rules, MD013 off) over the markdown files in dir.
func lint(dir string) (string, error) {
	cfg, _ := filepath.Abs("../../.markdownlint-cli2.jsonc")
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, markdownlint(), "--config", cfg, "*.md")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// lintCollected lints every collected document: TestMain's last step, as
// the documents come from tests that run in parallel.
func lintCollected() int {
	if markdownlint() == "" {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			fmt.Fprintln(os.Stderr, "markdownlint-cli2 is not installed: run scripts/install-peers.sh")
			return 1
		}
		return 0
	}
	files, _ := filepath.Glob(filepath.Join(markdownDir, "*.md"))
	if len(files) == 0 {
		return 0
	}
	out, err := lint(markdownDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: markdownlint-cli2 on the %d markdown documents the e2e tests wrote:\n%s\n", len(files), out)
		return 1
	}
	return 0
}

// TestReportMarkdownLintsClean: the report with every section, and
// budget --view, pass markdownlint-cli2's default rules, and a report
// holds no absolute path when the target was given as a relative one.
func TestReportMarkdownLintsClean(t *testing.T) {
	t.Parallel()
	if markdownlint() == "" {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatal("markdownlint-cli2 is not installed: run scripts/install-peers.sh")
		}
		t.Skip("markdownlint-cli2 is not installed: run scripts/install-peers.sh")
	}
	dir := t.TempDir()
	// The reference beside the binaries, named as a user names a file in
	// the folder they work in.
	ref := "markdown-lint-ref.json"
	runIn := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
		defer cancel()
		cmd := exec.CommandContext(ctx, bin.mcpprobe, args...)
		cmd.Dir = bin.dir // the target as a user types it: ./goodserver
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() > 1 {
			t.Fatalf("%s: exit %d: %s", args, ee.ExitCode(), ee.Stderr)
		}
		return string(out)
	}
	if err := os.WriteFile(filepath.Join(bin.dir, ref), []byte(runIn("wire", "--json", "--", "./rawserver", "-pages", "2")), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"report.md":     runIn("report", "--date", "2026-12-01", "./goodserver"),
		"report-all.md": runIn("report", "--date", "2026-12-01", "--ref", ref, "--faults", "--malformed", "--bench", "--timeout", secs(2*time.Second), "./goodserver"),
		"report-raw.md": runIn("report", "--date", "2026-12-01", "--ref", ref, "--", "./rawserver", "-banner"),
		"view.md":       runIn("budget", "--view", "codex", "./goodserver"),
	}
	absolute := regexp.MustCompile(`(^|[\s(\x60'"])/(tmp|home|root|Users|work|var)/`)
	for name, md := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(md, bin.dir) || absolute.MatchString(md) {
			t.Errorf("%s holds an absolute path:\n%s", name, absolute.FindString(md))
		}
	}
	if out, err := lint(dir); err != nil {
		t.Errorf("markdownlint-cli2: %v\n%s", err, out)
	}
	// Each term of the delivery table is explained once, under it.
	if n := strings.Count(docs["report.md"], `"describes kept":`); n != 1 {
		t.Errorf(`"describes kept" explained %d times`, n)
	}
}

// TestDemoShowsTheReportsFindings: make demo prints budget's text, then
// writes the report; both list the same findings (a server with a wire
// finding too, so none of the three sources is left out).
func TestDemoShowsTheReportsFindings(t *testing.T) {
	t.Parallel()
	codes := func(text, sep string) []string {
		var out []string
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sep) + ` *(error|warning|info) *` + regexp.QuoteMeta(sep) + ` *([a-z0-9-]+) `)
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1]+" "+m[2])
		}
		// The terminal folds the infos into one line of their codes.
		if m := regexp.MustCompile(`(?m)^info: (.*) \(--verbose says what\)$`).FindStringSubmatch(text); m != nil {
			for _, c := range strings.Split(m[1], ", ") {
				code, n, _ := strings.Cut(c, " ×")
				times, _ := strconv.Atoi(n)
				for range max(times, 1) {
					out = append(out, "info "+code)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	for _, server := range [][]string{{bin.good}, {"--", bin.raw, "-banner"}} {
		budget := mcpprobe(t, append([]string{"budget"}, server...)...)
		report := mcpprobe(t, append([]string{"report", "--date", "2026-12-01"}, server...)...)
		b, r := codes(budget.stdout, "│"), codes(report.stdout, "|")
		if len(b) == 0 || !slices.Equal(b, r) {
			t.Errorf("%s: budget lists %q, the report %q", server, b, r)
		}
	}
}
