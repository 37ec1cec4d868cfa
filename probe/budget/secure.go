package budget

import (
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/secparams"
	"github.com/tidwall/gjson"
)

// SecureFindings say, for each tool with a secureInputSchema, what each
// host does with it (SEP-3221 §3.5: hosts SHOULD expose only inputSchema
// to the model): what its profile sources, else unknown. A host sourced
// as showing it makes the finding a warning: the model then sees the
// parameters the extension keeps from it.
func SecureFindings(c *probe.Capture, hs []hosts.Host) []probe.Finding {
	var out []probe.Finding
	for _, raw := range c.Tools.Items {
		if !secparams.Read(raw).Has {
			continue
		}
		name := gjson.GetBytes(raw, "name").String()
		sev := findings.Info
		var shown, hidden, unknown []string
		for _, h := range hs {
			if h.ID == "all" {
				continue
			}
			f := h.SecureInputSchema
			switch {
			case f == nil || f.Rule == "unknown":
				unknown = append(unknown, h.Name)
			case f.Rule == "not_delivered" || f.Rule == "dropped":
				hidden = append(hidden, fmt.Sprintf("%s (%s, %s)", h.Name, f.Source, f.Date))
			default:
				sev = findings.Warning
				shown = append(shown, fmt.Sprintf("%s (%s, %s)", h.Name, f.Source, f.Date))
			}
		}
		var parts []string
		if len(shown) > 0 {
			parts = append(parts, "shown to the model by "+strings.Join(shown, "; "))
		}
		if len(hidden) > 0 {
			parts = append(parts, "kept from the model by "+strings.Join(hidden, "; "))
		}
		if len(unknown) > 0 {
			parts = append(parts, fmt.Sprintf("unknown for %d hosts (no profile sources it): %s", len(unknown), strings.Join(unknown, ", ")))
		}
		if len(parts) == 0 {
			continue
		}
		out = append(out, findings.NewAt(sev, findings.SecureSchemaDelivery,
			"%s has a secureInputSchema, which hosts SHOULD keep from the model (%s §3.5); %s.", code(name), secparams.SEP, strings.Join(parts, "; ")).About(name))
	}
	return out
}
