package hosts

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/hosts.md")

// TestHostsDoc: docs/hosts.md is generated from the registry.
func TestHostsDoc(t *testing.T) {
	const path = "../../docs/hosts.md"
	want := Markdown(Known())
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/hosts.md is stale: run go test ./probe/hosts -run TestHostsDoc -update")
	}
}

// TestEveryRuleSourced: every rule of every profile names a source, and a
// date unless it is unknown or read in code (its source then names the
// version); a rule whose source is unknown says so.
func TestEveryRuleSourced(t *testing.T) {
	for _, h := range Known() {
		for _, l := range h.Rules() {
			if l.Source == "" {
				t.Errorf("%s: %s: no source", h.ID, l.What)
			}
			if l.Date == "" && l.Sure != SureUnknown && l.Sure != SureCode {
				t.Errorf("%s: %s (%s): no date", h.ID, l.What, l.Rule)
			}
			if l.Sure == SureUnknown && !strings.HasPrefix(l.Rule, "unknown") {
				t.Errorf("%s: %s: a rule with no source is given as %q", h.ID, l.What, l.Rule)
			}
		}
	}
}
