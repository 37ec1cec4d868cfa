package hosts

import (
	"slices"
	"testing"
)

// Every skills row is sourced and dated, its rule one of SkillsRules, and
// a row without evidence says unknown, never a guess.
func TestKnownSkills(t *testing.T) {
	rows := KnownSkills()
	if len(rows) == 0 {
		t.Fatal("no skills rows")
	}
	for _, r := range rows {
		switch {
		case r.ID == "" || r.Name == "" || r.Source == "" || r.Date == "" || r.Delivers == "":
			t.Errorf("%+v: an empty field", r)
		case !slices.Contains(SkillsRules, r.Rule):
			t.Errorf("%s: rule %q", r.ID, r.Rule)
		case (r.Rule == "unknown") != (r.Sure == "unknown"):
			t.Errorf("%s: rule %q but sure %q", r.ID, r.Rule, r.Sure)
		}
	}
}
