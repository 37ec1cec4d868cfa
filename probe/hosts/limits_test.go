package hosts

import (
	"fmt"
	"os"
	"strings"
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

// TestLoadRefusesBadNewFields: a --hosts file whose new fields break a
// rule is refused with the reason; one of the older shape loads.
func TestLoadRefusesBadNewFields(t *testing.T) {
	base := `"id":"x","name":"X","measured_on":"2026-12","source":"t","description":{"rule":"whole"},"instructions":{"rule":"whole"},"input_schema":{"rule":"whole"},"output_schema":"delivered"`
	for _, c := range []struct{ extra, want string }{
		{``, ""},
		{`,"tool_limits":[{"scope":"request","limit":0,"over":"refused"}]`, "positive"},
		{`,"tool_limits":[{"scope":"galaxy","limit":5,"over":"refused"}]`, "scope"},
		{`,"tool_limits":[{"scope":"request","limit":5,"over":"exploded"}]`, "over"},
		{`,"tool_limits":[{"scope":"request","limit":5,"builtins":5,"over":"refused"}]`, "builtins"},
		{`,"prompts":{"rule":"maybe"}`, "prompts"},
		{`,"result":{"rule":"spill","keep":"head_tail","max_chars":10,"head_share":1.5}`, "head_share"},
		{`,"result":{"rule":"spill","keep":"head_tail","max_chars":10,"head_share":0.2,"wrap":"no placeholder"}`, "wrap"},
		{`,"result":{"rule":"spill","keep":"sideways","max_chars":10}`, "keep"},
		{`,"result":{"rule":"spill","keep":"head_lines","max_bytes":10}`, "max_lines"},
		{`,"description":{"rule":"unknown","source":"none"}`, ""},
	} {
		path := t.TempDir() + "/h.json"
		if err := os.WriteFile(path, []byte(`{"hosts":[{`+base+c.extra+`}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, Known())
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.extra, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one naming %s", c.extra, err, c.want)
		}
	}
}
