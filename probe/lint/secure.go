package lint

import (
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/secparams"
)

// secure lints a tool's secure parameters (SEP-3221): a definition a
// client must drop (overlap), one that is no object schema, and the
// required ones that keep the tool from hosts that do not negotiate the
// extension. A tool with no secureInputSchema says nothing.
func (l *linter) secure(name string, raw []byte) {
	d := secparams.Read(raw)
	if !d.Has {
		return
	}
	if d.Shape != "" {
		l.add(findings.SecureSchemaShape, name, "%s; %s §3.2 says it MUST be a JSON Schema object with top-level \"type\": \"object\".", d.Shape, secparams.SEP)
	}
	if len(d.Overlap) > 0 {
		l.add(findings.SecureOverlap, name, "%s in both inputSchema and secureInputSchema; %s §3.3: secure property names MUST NOT appear in inputSchema, and §3.4: clients MUST exclude such a tool.", quoteList(d.Overlap), secparams.SEP)
	}
	if d.RequiresSecure() {
		l.add(findings.SecureRequired, name, "requires secure parameters %s: a host that does not negotiate %s is not listed this tool, and one that does supplies them in secureArguments, not the model.", quoteList(d.Required), secparams.Extension)
	}
}

// quoteList quotes server names, at most ten of them.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return capList(q, 10)
}
