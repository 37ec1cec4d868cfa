package findings

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
)

const findingsDocPath = "../../docs/findings.md"

// originSections titles docs/findings.md's section of each origin, and
// says in a line what that analysis looks at.
var originSections = map[Origin][2]string{
	OriginWire:      {"The wire", "What `wire` (and every command that probes) sees the server send: transport, handshake, lists, shutdown."},
	OriginBudget:    {"Host budgets", "What `budget` finds each AI host does with the definitions: cuts, dropped schemas, instructions, a whole host config."},
	OriginLint:      {"Lint", "What `budget` and `report` find in the text a host delivers to the model."},
	OriginBench:     {"Bench", "What `bench` finds in startup and call latency, as a host feels it."},
	OriginFaults:    {"Faults", "What `faults` (and `report --faults`) finds in how the server stops and restarts."},
	OriginMalformed: {"Malformed calls", "What `malformed` finds in how calls a server should refuse are answered."},
	OriginCall:      {"Calls, reads and prompts", "What `call`, `read` and `prompt` find in a result, what hosts deliver of it, and long calls."},
	OriginLoad:      {"Load", "What `load` finds under many sessions at a rate: failed requests, answers that depend on the replica."},
	OriginCheck:     {"Conformance checks", "What `check` finds: a check failed or warned, in an era, on the clause it names."},
	OriginAuth:      {"Authorization", "What `auth` (and the report's Authorization section) finds in a remote server's authorization, probe by probe."},
}

// findingsDoc is docs/findings.md: every registered code, by origin in the
// registry's order, with its severities, its meaning and, where the
// registry names one, the section of the reference that says more.
func findingsDoc() string {
	var b strings.Builder
	b.WriteString("# Findings\n\n")
	b.WriteString("<!-- generated from probe/findings/codes.go by `go test ./probe/findings -run FindingsDoc -update`: edit there -->\n\n")
	b.WriteString("Every finding mcpprobe prints has one of these codes and a severity: `error` (the server breaks\n")
	b.WriteString("the protocol or a host loses something), `warning` (a host or client will likely stumble), `info`\n")
	b.WriteString("(worth knowing). A code with two severities says in its row when it takes which. `--fail-on error`,\n")
	b.WriteString("`warning` or `info` exits 1 when a finding at that severity or above is reported; the full\n")
	b.WriteString("reference is [reference.md](reference.md).\n")
	for _, o := range Origins {
		sec := originSections[o]
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", sec[0], sec[1])
		b.WriteString("| code | severity | what it means |\n| --- | --- | --- |\n")
		for _, d := range defs {
			if d.Origin != o {
				continue
			}
			sev := string(d.Severity)
			for _, a := range d.Also {
				sev += ", " + string(a)
			}
			title := d.Title
			if d.More != "" {
				// The link text is the heading's own words, since
				// markdownlint wants link text that says where it goes.
				text := strings.TrimSpace(strings.ReplaceAll(d.More, "-", " "))
				title += fmt.Sprintf(" (see [%s](reference.md#%s))", text, d.More)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.Name, sev, title)
		}
	}
	return b.String()
}

// TestFindingsDoc keeps docs/findings.md what the registry says: every
// registered code has exactly one row, the file names no code the
// registry lacks, and the whole file is what findingsDoc renders. With
// -update it rewrites the file.
func TestFindingsDoc(t *testing.T) {
	for _, o := range Origins {
		if _, ok := originSections[o]; !ok {
			t.Fatalf("origin %s has no section title in originSections", o)
		}
	}
	want := []byte(findingsDoc())
	if gold.Update() {
		if err := os.WriteFile(findingsDocPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(findingsDocPath)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllSubmatch(got, -1) {
		rows[string(m[1])]++
	}
	for _, d := range All() {
		if rows[d.Name] != 1 {
			t.Errorf("docs/findings.md has %d rows of %s, want 1", rows[d.Name], d.Name)
		}
	}
	for name := range rows {
		if _, ok := ParseCode(name); !ok {
			t.Errorf("docs/findings.md lists %s, which is no registered code", name)
		}
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/findings.md is stale: run go test ./probe/findings -run FindingsDoc -update, then review the diff\n%s", gold.FirstDiff(got, want))
	}
}

// TestFindingsDocLinks checks that every "more" link of docs/findings.md
// lands on a heading of docs/reference.md.
func TestFindingsDocLinks(t *testing.T) {
	ref, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	headings := headingAnchors(string(ref))
	for _, m := range regexp.MustCompile(`\(reference\.md#([^)]+)\)`).FindAllStringSubmatch(findingsDoc(), -1) {
		if !headings[m[1]] {
			t.Errorf("docs/findings.md links reference.md#%s, which is no heading there", m[1])
		}
	}
}
