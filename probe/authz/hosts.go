package authz

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// discovered is what the audit found that a host's rule reads.
type discovered struct {
	header, wellKnown, exactResource bool
}

// meets says whether what was found meets rule, and if not what breaks.
func (d discovered) meets(rule string) (bool, string) {
	switch rule {
	case "needs-header":
		return d.header, "the 401's challenge names no resource_metadata that serves (A2)"
	case "needs-well-known":
		return d.wellKnown, "no well-known URI serves the metadata (A3)"
	case "needs-exact-resource":
		return d.exactResource, "the metadata's resource is not identical to the URL (A5)"
	}
	return true, ""
}

// rowsHosts is A25: one row per host, pass when what the audit found
// meets what the host is reported to need, observed ("this host will fail
// here") when not. A host's quirk is never a fail: the spec binds the
// server, not the host.
func (a *auditor) rowsHosts(d discovered) {
	p := byID("A25")
	for _, h := range hosts.KnownOAuth() {
		c := p.clause
		c.Section, c.URL = "reported: "+h.Source, ""
		row := Row{ID: "A25 " + h.Host, Check: "discovery as this host does it", Clause: c,
			Sent: "the discovery above", Got: h.Host + " " + h.Versions + ": " + h.Says}
		if a.prm == nil && !d.header && !d.wellKnown {
			row.Outcome, row.Why = NotRun, "no protected-resource metadata serves at all (A2, A3): every host fails"
		} else if ok, breaks := d.meets(h.Rule); ok {
			row.Outcome, row.Why = Pass, "what it needs serves"
		} else {
			row.Outcome, row.Why = Observed, fmt.Sprintf("this host will fail here: %s; it %s (%s)", breaks, h.Says, h.Source)
		}
		a.add(row)
	}
}
