package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// TestBudgetVerdictCountsRealHosts: the first line of budget names as
// "not whole somewhere" only a tool some real host cuts; a tool only the
// derived "all" column cuts is named as that, a tool with no description
// is never "not whole", and the legend says what "all" is.
func TestBudgetVerdictCountsRealHosts(t *testing.T) {
	// Two real hosts, and "all" as the strictest of them and of an older
	// version of one (never listed, counted in "all"): all cuts at 2,048,
	// no listed host does.
	host := func(id string, limit int) hosts.Host {
		h := hosts.Host{ID: id, Name: id, Instructions: hosts.Rule{Rule: "whole"}, InputSchema: hosts.SchemaRule{Rule: "whole"}, OutputSchema: "delivered",
			Description: hosts.Rule{Rule: "whole"}}
		if limit > 0 {
			h.Description = hosts.Rule{Rule: "cut", Limit: limit, Unit: "utf16"}
		}
		return h
	}
	a, o := host("a", 4096), host("b", 0)
	hs := []hosts.Host{a, o, hosts.Strictest([]hosts.Host{a, o, host("a@1", 2048)})}
	c := &probe.Capture{Target: "t", Tools: probe.List{Method: "tools/list", Key: "tools", Asked: true}}
	tool := func(name, desc string) {
		d := ""
		if desc != "" {
			d = fmt.Sprintf(`,"description":%q`, desc)
		}
		c.Tools.Items = append(c.Tools.Items, fmt.Appendf(nil, `{"name":%q%s,"inputSchema":{"type":"object"}}`, name, d))
	}
	tool("short", "Finds things.")
	tool("long", strings.Repeat("word ", 420))  // 2,100: past the strictest cut only
	tool("huge", strings.Repeat("word ", 2000)) // 10,000: past a real host's cut
	tool("bare", "")
	d := budget.Compute(c, hs)
	got := BudgetVerdict(terminal.Terminal, d, c)
	for _, want := range []string{"4 tools, 2 delivered whole on every known host", "not whole somewhere: huge;", "no description: bare", "cut only on the strictest combination (all): long"} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict %q\nlacks %q", got, want)
		}
	}
	if i := strings.Index(got, "not whole somewhere: "); i >= 0 {
		named := strings.SplitN(got[i:], ";", 2)[0]
		if strings.Contains(named, "long") || strings.Contains(named, "bare") {
			t.Errorf("verdict %q names as not whole a tool every host delivers whole, or one with no description", got)
		}
	}
	var b bytes.Buffer
	Delivery(&b, terminal.Terminal, d, c)
	if !strings.Contains(b.String(), `"all": not a host`) {
		t.Errorf("the legend does not say what \"all\" is:\n%s", b.String())
	}
}
