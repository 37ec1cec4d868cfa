//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// conformanceMap is scripts/conformance-map.json, the join between the
// official suite's scenarios and mcpprobe's findings.
type conformanceMap struct {
	// PendingChecks are check ids another branch adds; a scenario may name
	// them before this binary has them.
	PendingChecks []string `json:"pending_checks"`
	Scenarios     map[string]struct {
		Relation  string   `json:"relation"`
		Checks    []string `json:"checks"`
		NoCheck   string   `json:"no_check"`
		Extension string   `json:"extension"`
		Mcpprobe  *struct {
			Command  string   `json:"command"`
			Findings []string `json:"findings"`
		} `json:"mcpprobe"`
		Clause     string              `json:"clause"`
		Capability string              `json:"capability"`
		Fixture    map[string][]string `json:"fixture"`
		BeyondSpec []struct {
			Reason string `json:"reason"`
			Clause string `json:"clause"`
		} `json:"beyond_spec"`
	} `json:"scenarios"`
}

// TestConformanceSideBySide runs scripts/conformance-side-by-side.sh in its
// quick mode (the Go SDK fixture only) and checks the table it writes:
// every server scenario the suite lists has exactly one row, the mapping
// names no scenario the suite does not have and no finding mcpprobe does
// not have, and the cells say what the fixture server is known to do.
func TestConformanceSideBySide(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the side-by-side script is bash with setsid and timeout: linux only")
	}
	root, _ := filepath.Abs("../..")
	suiteDir := filepath.Join(root, "scripts", "conformance")
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
			t.Fatal("npm is not installed: it installs the Node.js 22 and the conformance suite this test runs")
		}
		t.Skip("npm is not installed: the official conformance suite needs Node.js 22, which npm installs into scripts/conformance")
	}
	nodeBin := filepath.Join(suiteDir, "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(nodeBin, "conformance")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), bound(5*time.Minute))
		defer cancel()
		out, err := exec.CommandContext(ctx, "npm", "ci", "--prefix", suiteDir, "--no-audit", "--no-fund", "--loglevel=error").CombinedOutput()
		if err != nil {
			if os.Getenv("MCPPROBE_REQUIRE_PEERS") != "" {
				t.Fatalf("npm ci in scripts/conformance: %v\n%s", err, out)
			}
			t.Skipf("could not install Node.js 22 and the conformance suite (npm ci in scripts/conformance): %v\n%s", err, out)
		}
	}

	// The scenarios as the pinned suite lists them, the source of truth.
	ctx, cancel := context.WithTimeout(context.Background(), bound(time.Minute))
	defer cancel()
	list := exec.CommandContext(ctx, filepath.Join(nodeBin, "node"), filepath.Join(nodeBin, "conformance"), "list", "--server")
	listed, err := list.Output()
	if err != nil {
		t.Fatalf("conformance list --server: %v", err)
	}
	var scenarios []string
	for _, m := range regexp.MustCompile(`(?m)^\s+-\s+(\S+)`).FindAllStringSubmatch(string(listed), -1) {
		scenarios = append(scenarios, m[1])
	}
	if len(scenarios) < 20 {
		t.Fatalf("the suite lists %d server scenarios:\n%s", len(scenarios), listed)
	}

	raw, err := os.ReadFile(filepath.Join(root, "scripts", "conformance-map.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cm conformanceMap
	if err := json.Unmarshal(raw, &cm); err != nil {
		t.Fatalf("scripts/conformance-map.json: %v", err)
	}
	checkList := mcpprobe(t, "check", "--list")
	if checkList.code != 0 {
		t.Fatalf("check --list: exit %d\n%s", checkList.code, checkList.stderr)
	}
	var ids []string
	for _, line := range strings.Split(checkList.stdout, "\n") {
		if id, _, ok := strings.Cut(line, "\t"); ok {
			ids = append(ids, id)
		}
	}
	var noCheck []string
	for name, e := range cm.Scenarios {
		if !slices.Contains(scenarios, name) {
			t.Errorf("the mapping names %q, which the suite does not list", name)
		}
		if !slices.Contains([]string{"same", "partial", "none"}, e.Relation) {
			t.Errorf("%s: relation %q, want same, partial or none", name, e.Relation)
		}
		if (e.Relation == "none") != (e.Mcpprobe == nil && len(e.Checks) == 0) {
			t.Errorf("%s: relation %q with mcpprobe %v and checks %v: an equivalent names its checks (or command and findings), none names none", name, e.Relation, e.Mcpprobe, e.Checks)
		}
		for _, id := range e.Checks {
			if !slices.Contains(ids, id) && !slices.Contains(cm.PendingChecks, id) {
				t.Errorf("%s: check %q is not in check --list (nor pending)", name, id)
			}
		}
		if len(e.Checks) == 0 {
			noCheck = append(noCheck, name)
			if e.NoCheck == "" {
				t.Errorf("%s: no check, and no no_check saying why from the spec's text", name)
			}
		}
		if e.Mcpprobe != nil {
			if !slices.Contains([]string{"wire", "malformed"}, e.Mcpprobe.Command) {
				t.Errorf("%s: command %q is not one the script runs", name, e.Mcpprobe.Command)
			}
			for _, code := range e.Mcpprobe.Findings {
				if _, ok := findings.ParseCode(code); !ok {
					t.Errorf("%s: finding %q is not in mcpprobe's registry", name, code)
				}
			}
		}
		if !regexp.MustCompile(`20\d\d-\d\d-\d\d|SEP-\d+`).MatchString(e.Clause) {
			t.Errorf("%s: clause %q names no revision", name, e.Clause)
		}
		for _, b := range e.BeyondSpec {
			if b.Reason == "" || b.Clause == "" {
				t.Errorf("%s: a beyond_spec entry without its reason or clause: %+v", name, b)
			}
		}
	}
	for _, name := range scenarios {
		if _, ok := cm.Scenarios[name]; !ok {
			t.Errorf("the suite lists %q, which the mapping does not cover", name)
		}
	}
	if len(noCheck) > 3 {
		slices.Sort(noCheck)
		t.Errorf("%d scenarios have no mcpprobe check, want 3 or fewer: %v", len(noCheck), noCheck)
	}
	for _, id := range cm.PendingChecks {
		if slices.Contains(ids, id) {
			t.Logf("pending check %s is in this binary: take it out of pending_checks", id)
		}
	}

	work := t.TempDir()
	out := filepath.Join(work, "conformance.md")
	run, cancelRun := context.WithTimeout(context.Background(), bound(5*time.Minute))
	defer cancelRun()
	cmd := exec.CommandContext(run, filepath.Join(root, "scripts", "conformance-side-by-side.sh"),
		"--quick", "--bin", bin.dir, "--work", filepath.Join(work, "raw"), "--out", out)
	cmd.Dir = root
	// On the deadline the script gets SIGTERM, so that its trap ends the
	// servers' process groups; SIGKILL would leave them running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = bound(30 * time.Second)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("conformance-side-by-side.sh --quick: %v\n%s", err, b)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(md)
	for _, want := range []string{"- Date: ", "- Machine: ", "- Suite: `@modelcontextprotocol/conformance@", "run with Node.js v22.", "**Go SDK fixture (fixtures/goodserver)** (`go-sdk`)"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the table lacks %q", want)
		}
	}

	// Each scenario once in the overview and once in the server's table.
	rows := map[string]int{}
	cells := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		m := regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| (.*) \\|$").FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows[m[1]]++
		cells[m[1]+"#"+strconv.Itoa(rows[m[1]])] = m[2]
	}
	for _, name := range scenarios {
		if rows[name] != 2 {
			t.Errorf("scenario %s has %d rows, want 2 (overview and go-sdk)", name, rows[name])
		}
	}
	for name := range rows {
		if !slices.Contains(scenarios, name) {
			t.Errorf("the table has a row for %q, which the suite does not list", name)
		}
	}

	// What the Go SDK fixture is known to do: it completes the handshake and
	// lists for both; it has none of the suite's fixture tools; it declares
	// resources but not resources.subscribe.
	for _, tc := range []struct{ key, want string }{
		{"server-initialize#1", "| pass / pass |"},
		{"tools-list#1", "| pass / pass |"},
		{"tools-call-simple-text#2", "suite fixture absent (tool `test_simple_text`)"},
		{"resources-subscribe#2", "`resources.subscribe` not declared, so not applicable"},
		{"caching#1", "| fail / n/a ‡ |"},
		{"caching#2", "the server does not serve 2026-07-28 (mcpprobe check found no modern era), which is no failure"},
		{"tasks-lifecycle#2", "`io.modelcontextprotocol/tasks` not declared"},
	} {
		if got := "| " + cells[tc.key] + " |"; !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to hold %q", tc.key, got, tc.want)
		}
	}
	if markdownDir != "" {
		_ = os.WriteFile(filepath.Join(markdownDir, "conformance.md"), md, 0o644)
	}
}
