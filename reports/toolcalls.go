package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// ToolCalls writes which listed tools a run calls and which it does not,
// each group with its reason ("calls: a, b (readOnlyHint true)"): the
// consent rule's decisions, so a reader sees what was sent a tools/call
// and why, and what was spared.
func ToolCalls(w io.Writer, st terminal.Style, indent string, cs []args.Choice) {
	if len(cs) == 0 {
		return
	}
	for _, call := range []bool{true, false} {
		label := "calls"
		if !call {
			label = "does not call"
		}
		var reasons []string
		names := map[string][]string{}
		for _, c := range cs {
			if c.Call != call {
				continue
			}
			if _, ok := names[c.Why]; !ok {
				reasons = append(reasons, c.Why)
			}
			names[c.Why] = append(names[c.Why], code0(st, c.Tool))
		}
		if len(reasons) == 0 {
			continue
		}
		var parts []string
		for _, why := range reasons {
			parts = append(parts, strings.Join(names[why], ", ")+" ("+terminal.Plain(st, why)+")")
		}
		fmt.Fprintf(w, "%s%s: %s\n", indent, label, strings.Join(parts, "; "))
	}
}

// toolCallsJSON is each decision as {"tool", "called", "why"}.
func toolCallsJSON(cs []args.Choice) []byte {
	out := make([][]byte, 0, len(cs))
	for _, c := range cs {
		out = append(out, (&jsonout.Object{}).Set("tool", c.Tool).Set("called", c.Call).Set("why", c.Why).Bytes())
	}
	return jsonout.RawArray(out)
}
