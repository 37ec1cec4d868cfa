package hosts

import (
	"slices"
	"testing"
)

// The OAuth rows sit in the one host registry: each names the profiles it
// applies to, by ids the registry has, and a rule the audit reads.
func TestKnownOAuth(t *testing.T) {
	rows := KnownOAuth()
	if len(rows) == 0 {
		t.Fatal("no oauth rows in hosts.json")
	}
	ids := map[string]bool{}
	for _, h := range Known() {
		ids[h.ID] = true
	}
	for _, r := range rows {
		if r.Host == "" || r.Source == "" || r.Reported == "" || r.Versions == "" {
			t.Errorf("%q: an oauth row needs its host, source, date and versions", r.Host)
		}
		if !slices.Contains(OAuthRules, r.Rule) {
			t.Errorf("%s: rule %q: want one of %v", r.Host, r.Rule, OAuthRules)
		}
		if len(r.Profiles) == 0 {
			t.Errorf("%s: names no host profile", r.Host)
		}
		for _, id := range r.Profiles {
			if !ids[id] {
				t.Errorf("%s: profile %q is not in hosts.json", r.Host, id)
			}
		}
	}
	rows[0].Host = "changed"
	if KnownOAuth()[0].Host == "changed" {
		t.Error("KnownOAuth returned the registry itself, not a copy")
	}
}

// A --hosts file may carry an oauth section (it is the registry's shape);
// it is read for nothing and refused for nothing.
func TestLoadIgnoresOAuth(t *testing.T) {
	path := t.TempDir() + "/hosts.json"
	writeFile(t, path, `{"hosts": [], "oauth": [{"host": "x", "rule": "needs-header"}]}`)
	got, err := Load(path, Known())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(Known()) {
		t.Errorf("%d hosts, want %d", len(got), len(Known()))
	}
	if len(KnownOAuth()) == 1 {
		t.Error("a --hosts file replaced the embedded oauth rows")
	}
}
