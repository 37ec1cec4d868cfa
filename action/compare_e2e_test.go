//go:build e2e

package action

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/loadfactor"
)

// A pull request that changes one tool's description, run through the
// action's base-against-head mode with the real mcpprobe over two
// configurations: the summary and the comment file name the tool, every
// host's delivery of it on both sides, and the change.
func TestRunComparesBaseAndHead(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	dir := t.TempDir()
	probe, server := filepath.Join(dir, "mcpprobe"), filepath.Join(dir, "goodserver")
	for _, b := range [][2]string{{probe, "../cmd/mcpprobe"}, {server, "../fixtures/goodserver"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", b[1], err, out)
		}
	}
	summary, comment := filepath.Join(dir, "summary.md"), filepath.Join(dir, "comment.md")
	ctx, cancel := context.WithTimeout(context.Background(), loadfactor.Scale(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "run.sh")
	cmd.Env = append(os.Environ(), "MCPPROBE="+probe,
		"INPUT_BASE_SERVER="+server+" -cut-tool",
		"INPUT_SERVER="+server+" -cut-tool -cut-tool-note Also.prints.a.receipt.",
		"INPUT_CONFIGS=--protocol 2025-06-18\n\n", "INPUT_COMMENT_FILE="+comment,
		"GITHUB_EVENT_NAME=push", "GITHUB_STEP_SUMMARY="+summary)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}
	s, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile(comment)
	if err != nil || string(c) != string(s) {
		t.Errorf("the comment file should hold the summary (%v):\n%s", err, c)
	}
	// The comparison, without the head's report that follows it.
	cmp, _, _ := strings.Cut(string(s), "<details><summary>Report</summary>")
	for _, want := range []string{
		"### Base against head",
		"#### Configuration 1: `default flags`",
		"#### Configuration 2: `--protocol 2025-06-18`",
		"1 change(s) in the definitions:\n\n- `purge_cache.description` changed\n",
		"| `purge_cache` | Claude Code | whole | whole |  |",
		"| `purge_cache` | Codex CLI | whole, deferred | whole, deferred |  |",
		"{+Also.prints.a.receipt. +}",
	} {
		if n := strings.Count(cmp, want); n == 0 || strings.HasPrefix(want, "| `purge") && n != 2 {
			t.Errorf("summary has %q %d times:\n%s", want, n, cmp)
		}
	}
	if strings.Contains(cmp, "find_orders") {
		t.Errorf("an unchanged tool is named:\n%s", cmp)
	}
}
