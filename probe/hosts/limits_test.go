package hosts

import (
	"fmt"
	"testing"
)

func TestOverToolLimits(t *testing.T) {
	h := Host{ToolLimits: []ToolLimit{
		{Scope: "request", Limit: 128, Builtins: 10, Over: "grouped"},
		{Scope: "mcp", Limit: 40, Over: "dropped"},
		{Scope: "server", Limit: 100, Over: "unknown"},
	}}
	for _, c := range []struct {
		servers []int
		want    string
	}{
		{nil, "[]"},
		{[]int{40}, "[]"},
		{[]int{41}, "[{mcp 41 -1}]"},
		{[]int{118}, "[{mcp 118 -1} {server 118 0}]"},
		{[]int{119}, "[{request 129 -1} {mcp 119 -1} {server 119 0}]"},
		{[]int{60, 101}, "[{request 171 -1} {mcp 161 -1} {server 101 1}]"},
	} {
		var got []string
		for _, e := range h.OverToolLimits(c.servers) {
			got = append(got, fmt.Sprintf("{%s %d %d}", e.Limit.Scope, e.Count, e.Server))
		}
		if s := fmt.Sprint(got); s != c.want && !(c.want == "[]" && len(got) == 0) {
			t.Errorf("%v: %s, want %s", c.servers, s, c.want)
		}
	}
}

// TestKnownToolLimits: the limits the acceptance names are in the
// registry, each with a source, a date and how sure it is.
func TestKnownToolLimits(t *testing.T) {
	want := map[string]int{"vscode": 128, "cursor": 40, "windsurf": 50, "gemini-cli": 512, "antigravity": 100, "trae": 40, "zed": 128}
	for _, h := range Known() {
		for _, l := range h.ToolLimits {
			if l.Source == "" || l.Date == "" || l.Sure == "" {
				t.Errorf("%s: a %d-tool limit without source, date or sure", h.ID, l.Limit)
			}
			if want[h.ID] == l.Limit {
				delete(want, h.ID)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("limits missing from the registry: %v", want)
	}
	if n := len(Known()); n < 15 {
		t.Errorf("%d host profiles, want at least 15", n)
	}
}
