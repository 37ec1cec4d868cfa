package budget

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// ToolCountFindings are the hosts' tool-count limits that servers with
// these tool counts go past, one finding per host and limit, naming the
// limit, what the host does past it and how the limit is known (the
// whole source: mcpprobe hosts ID). names are the servers' names in a
// host config, nil for one server; for a config only the limits on the
// sum are checked (request, mcp): each server's own budget already
// checked it against the per-server ones. The "all" row is left out.
func ToolCountFindings(hs []hosts.Host, perServer []int, names []string) []findings.Finding {
	var out []findings.Finding
	for _, h := range hs {
		if h.ID == "all" {
			continue
		}
		for _, e := range h.OverToolLimits(perServer) {
			if names != nil && e.Server >= 0 {
				continue
			}
			sev := findings.Info
			switch e.Limit.Over {
			case "refused", "dropped":
				sev = findings.Error
			case "grouped":
				sev = findings.Warning
			}
			who := "the server's"
			if names != nil {
				who = "the file's"
			}
			counted := fmt.Sprintf("%d tools", e.Count)
			if e.Limit.Scope == "request" && e.Limit.Builtins > 0 {
				counted = fmt.Sprintf("%d tools with its %d own", e.Count, e.Limit.Builtins)
			}
			out = append(out, findings.NewAt(sev, findings.ToolCountOverLimit, "%s %s: over %s's limit of %s: %s (%s; mcpprobe hosts %s)",
				who, counted, h.Name, e.Limit.What(), e.Limit.Past(), hosts.Cite(e.Limit.Sure, e.Limit.Date), h.ID))
		}
	}
	return out
}
