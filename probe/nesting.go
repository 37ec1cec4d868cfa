package probe

import (
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// A server decides how deep its definitions nest. Past MaxDepth levels a
// definition is a finding (hosts' parsers give up well before: Python's
// json at its recursion limit, near 1,000), and an analysis that walks
// definitions level by level with gjson (each Get and ForEach reads the
// value again, at every level above it) walks only what Walkable allows,
// so that its time stays within a bound whatever the server sends.
const (
	MaxDepth = 1000
	// MaxWalk bounds what walking one definition level by level costs:
	// each byte counted once for every container holding it
	// (transport.Shape). 256 MiB is a fraction of a second.
	MaxWalk = 256 << 20
)

// Walkable reports whether raw nests no deeper than MaxDepth and costs no
// more than MaxWalk to walk level by level. An analysis leaves out what is
// not (the capture has a deep-nesting finding for it).
func Walkable(raw []byte) bool {
	d, w := transport.Shape(raw)
	return d <= MaxDepth && w <= MaxWalk
}

// nestingFindings reports each item that is not Walkable.
func (p *prober) nestingFindings() {
	for _, spec := range listSpecs {
		l := spec.pick(p.c)
		for _, raw := range l.Items {
			d, w := transport.Shape(raw)
			if d <= MaxDepth && w <= MaxWalk {
				continue
			}
			name := gjson.GetBytes(raw, spec.ident).String()
			why := "nests %d levels deep"
			if d <= MaxDepth {
				why = "nests %d levels deep over so many bytes that walking it level by level would read more than 256 MiB"
			}
			f := findings.New(findings.DeepNesting, "%s %q "+why+"; hosts' JSON parsers refuse or choke on deep definitions (Python's stops near 1,000 levels); mcpprobe's budget and lint leave its schema out",
				spec.noun, excerpt([]byte(name), 80), d)
			if spec.noun == "tool" {
				f = f.About(name)
			}
			p.c.Findings = findings.Add(p.c.Findings, f)
		}
	}
}
