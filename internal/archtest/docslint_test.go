package archtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The docs are held to the rules the reports are (markdownlint-cli2's
// defaults but MD013, .markdownlint-cli2.jsonc): a reader of the reference
// meets the same markdown a report's reader does, and a rule broken by
// hand-written docs would soon be broken by a generator too. Generated
// pages (docs/commands, docs/findings.md, docs/conformance.md, the tables
// in docs/reference.md) are fixed at their generators.
func TestDocsLintClean(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lint := filepath.Join(root, "scripts", "peers", "node_modules", ".bin", "markdownlint-cli2")
	if _, err := os.Stat(lint); err != nil {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatal("markdownlint-cli2 is not installed: run scripts/install-peers.sh")
		}
		t.Skip("markdownlint-cli2 is not installed: run scripts/install-peers.sh")
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	top, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(docs)+len(top) < 5 {
		t.Fatalf("found %d markdown files under docs/: the check would pass vacuously", len(docs)+len(top))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lint, "--config", filepath.Join(root, ".markdownlint-cli2.jsonc"), "README.md", "docs/**/*.md")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("markdownlint-cli2 on README.md and docs/ (%v):\n%s", err, out)
	}
}
