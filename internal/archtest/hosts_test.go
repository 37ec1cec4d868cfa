package archtest

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// budgetUsers are the packages allowed to import probe/budget, each for
// budget's analysis (what a host delivers of a server's definitions), not
// for host data: that lives in probe/hosts.
var budgetUsers = map[string]string{
	"cmd/mcpprobe": "the budget command runs budget.Run and hands its Result to the writers",
	"probe/config": "--config FILE --all adds up each server's budget.Result (budget.Sum)",
	"probe/report": "the report's delivery section is budget.AnalyseFiltered of its capture",
	"probe/survey": "each surveyed server's budget.AnalyseFiltered, and its HostTokens in the record",
	"reports":      "renders budget.Result, Delivery and Totals",
}

// hostsMayImport are the only module packages probe/hosts may import:
// leaves that read a bounded input file and explain JSON errors. Host data
// sits below every package that judges a server against it.
var hostsMayImport = map[string]bool{
	"probe/inputfile": true,
	"probe/jsonerr":   true,
}

// importers returns the module packages that import pkg directly
// (non-test files), from one go list of the whole module.
func importers(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var in []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if imp == module+pkg {
				in = append(in, strings.TrimPrefix(f[0], module))
			}
		}
	}
	return in
}

func TestOnlyAnalysisImportsBudget(t *testing.T) {
	in := importers(t, "probe/budget")
	if len(in) == 0 {
		t.Fatal("nothing imports probe/budget: importers() is broken")
	}
	seen := map[string]bool{}
	for _, p := range in {
		seen[p] = true
		if _, ok := budgetUsers[p]; !ok {
			t.Errorf("%s imports probe/budget: host profiles and call policies are in probe/hosts; import budget only for its analysis, and then add %s to budgetUsers with the reason", p, p)
		}
	}
	var stale []string
	for p := range budgetUsers {
		if !seen[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("budgetUsers lists %s, which no longer import probe/budget: drop them so the list stays the truth", strings.Join(stale, ", "))
	}
}

func TestHostsImportsNothingAboveIt(t *testing.T) {
	for _, imp := range imports(t, "probe/hosts") {
		if !hostsMayImport[imp] {
			t.Errorf("probe/hosts imports %s: host data must sit below what reads it (budget, result, bench, call, cmd, reports)", imp)
		}
	}
	for _, above := range []string{"probe/budget", "probe/result", "probe/bench", "probe/call", "cmd/mcpprobe", "reports"} {
		forbid(t, "probe/hosts", above, "host data sits below the packages that judge a server against it")
	}
	// The allowed leaves stay leaves: nothing above probe/hosts comes in
	// through them.
	for leaf := range hostsMayImport {
		if imps := imports(t, leaf); len(imps) > 0 {
			t.Errorf("%s, which probe/hosts imports, imports %s: keep it a leaf or check the arrow again", leaf, strings.Join(imps, ", "))
		}
	}
}
