package hosts

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hosts.json")
	writeFile(t, file, `{"hosts":[{"id":"mine","name":"Mine","description":{"rule":"cut","limit":10,"unit":"utf16"},"instructions":{"rule":"whole"},"initialize_deadline_ms":1234},
	{"id":"codex","name":"Codex (mine)","description":{"rule":"whole"},"instructions":{"rule":"whole"}}]}`)
	n := len(Known())
	tests := []struct {
		name     string
		flags    Flags
		known    int
		selected []string // ids
		each     []string // ids; nil: every known one
		view     string   // the view's name
		err      string
	}{
		{name: "no flags", known: n, selected: append(idList(Known()), "all")},
		{name: "a file adds and replaces", flags: Flags{File: file}, known: n + 1},
		{name: "a pick", flags: Flags{File: file, Specs: []string{"mine,codex"}}, known: n + 1, selected: []string{"mine", "codex"}, each: []string{"mine", "codex"}},
		{name: "a pick of all", flags: Flags{Specs: []string{"all"}}, known: n, selected: []string{"all"}, each: []string{"all"}},
		{name: "a view of the file", flags: Flags{File: file, View: "codex"}, known: n + 1, view: "Codex (mine)"},
		{name: "a view with a cut", flags: Flags{View: "claude-code=3000"}, known: n, view: "Claude Code (cut 3000)"},
		{name: "an unknown pick", flags: Flags{Specs: []string{"mine"}}, err: `--host: unknown host "mine"`},
		{name: "an unknown view", flags: Flags{View: "mine"}, err: `--view: unknown host "mine"`},
		{name: "a missing file", flags: Flags{File: file + ".nope"}, err: "--hosts: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Resolve(tc.flags)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err %v, want it to start with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Known) != tc.known {
				t.Errorf("%d known, want %d", len(c.Known), tc.known)
			}
			if tc.selected != nil && strings.Join(idList(c.Selected), ",") != strings.Join(tc.selected, ",") {
				t.Errorf("selected %v, want %v", idList(c.Selected), tc.selected)
			}
			each := tc.each
			if each == nil {
				each = idList(c.Known)
			}
			if got := idList(c.Each()); strings.Join(got, ",") != strings.Join(each, ",") {
				t.Errorf("each %v, want %v", got, each)
			}
			switch {
			case tc.view == "" && c.View != nil:
				t.Errorf("a view of %s without --view", c.View.ID)
			case tc.view != "" && (c.View == nil || c.View.Name != tc.view):
				t.Errorf("view %+v, want %s", c.View, tc.view)
			}
		})
	}
}

// The embedded file is parsed once; what Known hands out is a copy, so
// one command's change cannot reach the next.
func TestKnownIsACopy(t *testing.T) {
	a := Known()
	a[0].Name, a[0].Description.Limit = "changed", 1
	a = append(a[:1], a[2:]...)
	b := Known()
	if b[0].Name == "changed" || b[0].Description.Limit == 1 || len(b) != len(a)+1 {
		t.Errorf("Known after a change to its result: %q, limit %d, %d rows", b[0].Name, b[0].Description.Limit, len(b))
	}
	p := KnownPolicies()
	p[0].Timeout = "1ns"
	if KnownPolicies()[0].Timeout == "1ns" {
		t.Error("KnownPolicies hands out the parsed rows themselves")
	}
}

func idList(hs []Host) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}
