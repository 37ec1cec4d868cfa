package budget

import (
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// ServerTools is what the sum of a whole host config reads of one server:
// its tool names and what its definitions cost.
type ServerTools struct {
	Name  string   // the server's name in the config
	Tools []string // the tools the config shows (after Filtered)
	// Descriptions are the Tools' descriptions, in the same order (for
	// the shadowing check's same-job rule); nil is none known.
	Descriptions []string
	Tokens       int // the tools array's tokens as sent (Result.Tokens.Total)
	Bytes        int // the tools/list pages' bytes
	// Hosts is what each host pays for the server (Result.HostTokens), by
	// host id; a host missing here is paid Tokens.
	Hosts map[string]HostTokens
	// Filtered are the tools the config's include/exclude lists leave out.
	Filtered []string
}

// Totals is what only the sum of a host config's servers shows.
type Totals struct {
	Servers int // probed and counted
	Tools   int
	Bytes   int
	Tokens  int // the tools arrays as sent, added up
	// Collisions are tool names listed by more than one server.
	Collisions []Collision
	// Shadows are pairs of tools of two servers a model can mistake for
	// each other (confusable names, one edit apart, the same job).
	Shadows []Shadow
	// ShadowsMore counts the pairs past the first 100, not listed.
	ShadowsMore int
	Hosts       []HostTotal
	// PerServer is each server's tool count and name, in the file's
	// order, for the hosts' tool-count limits.
	PerServer []int
	Names     []string
	// Limits are the hosts' tool-count limits the file goes past.
	Limits []findings.Finding
}

// Collision is one name several tools share.
type Collision struct {
	Name  string
	Tools []ServerTool // in server order
}

// ServerTool is one tool of one server.
type ServerTool struct{ Server, Tool string }

// HostTotal is one host's view of the whole config.
type HostTotal struct {
	Host hosts.Host
	// Tokens is what the host pays on every request for every server's
	// definitions as it delivers them (HostTokens, added up).
	Tokens int
	// Instructions is the part of Tokens the servers' instructions cost
	// (HostTokens.Instructions, added up).
	Instructions int
	// IfLoaded: the host defers the tools behind a tool search, so Tokens
	// is what it pays once they are loaded; what it pays before a search
	// is not sourced.
	IfLoaded bool
	// ToolSearch is "defers" (over the host's threshold, or a host that
	// always defers), "loads" (every definition is sent) or "unknown" (no
	// sourced rule).
	ToolSearch string
	Threshold  int // tokens, for a share-of-context rule; else 0
	// Collisions are full names (after the host's prefix and replacement)
	// two tools share, where their bare names differ or come from
	// servers whose names the host makes equal.
	Collisions []Collision
	Over       []LongName
}

// LongName is a full name that breaks the host's rule.
type LongName struct {
	Server, Tool, Full string
	Len                int
	Refused            bool // it holds characters the host refuses
}

// Sum adds up the servers of a host config for each host. Servers are
// taken in the order given; every list in the result follows it.
func Sum(servers []ServerTools, hs []hosts.Host) Totals {
	t := Totals{Servers: len(servers)}
	byName := map[string][]ServerTool{}
	var order []string
	for _, s := range servers {
		t.PerServer = append(t.PerServer, len(s.Tools))
		t.Names = append(t.Names, s.Name)
		t.Tools += len(s.Tools)
		t.Bytes += s.Bytes
		t.Tokens += s.Tokens
		for _, tool := range s.Tools {
			if _, ok := byName[tool]; !ok {
				order = append(order, tool)
			}
			byName[tool] = append(byName[tool], ServerTool{s.Name, tool})
		}
	}
	t.Collisions = collisions(order, byName, true)
	t.Shadows, t.ShadowsMore = capShadows(shadows(servers))
	for _, h := range hs {
		ht := HostTotal{Host: h, ToolSearch: "unknown"}
		for _, s := range servers {
			if p, ok := s.Hosts[h.ID]; ok {
				ht.Tokens += p.Tokens
				ht.Instructions += p.Instructions
			} else {
				ht.Tokens += s.Tokens
			}
		}
		if s := h.ToolSearch; s != nil {
			switch s.Rule {
			case "always":
				ht.ToolSearch = "defers"
			case "never":
				ht.ToolSearch = "loads"
			case "share_of_context":
				ht.Threshold = s.Threshold()
				ht.ToolSearch = "loads"
				if ht.Tokens > ht.Threshold {
					ht.ToolSearch = "defers"
				}
			}
		}
		ht.IfLoaded = ht.ToolSearch == "defers" || h.Description.Deferred
		if r := h.ToolNames; r != nil {
			full := map[string][]ServerTool{}
			var forder []string
			for _, s := range servers {
				for _, tool := range s.Tools {
					f, refused, over := r.FullName(s.Name, tool)
					if refused || over {
						ht.Over = append(ht.Over, LongName{Server: s.Name, Tool: tool, Full: f, Len: len([]rune(f)), Refused: refused})
					}
					if _, ok := full[f]; !ok {
						forder = append(forder, f)
					}
					full[f] = append(full[f], ServerTool{s.Name, tool})
				}
			}
			// A full name two tools share only because their bare name
			// is shared is the collision above, said once; a host's own
			// collisions come from its prefix and replacement.
			for _, c := range collisions(forder, full, false) {
				same := true
				for _, st := range c.Tools[1:] {
					same = same && st.Tool == c.Tools[0].Tool && r.Prefix == "{tool}"
				}
				if !same {
					ht.Collisions = append(ht.Collisions, c)
				}
			}
		}
		t.Hosts = append(t.Hosts, ht)
	}
	return t
}

// collisions are the names in order held by more than one tool; with
// acrossServers, only by tools of different servers (a server listing a
// name twice is the wire's duplicate-tool).
func collisions(order []string, by map[string][]ServerTool, acrossServers bool) []Collision {
	var out []Collision
	for _, n := range order {
		tools := by[n]
		if len(tools) < 2 {
			continue
		}
		if acrossServers {
			servers := map[string]bool{}
			for _, st := range tools {
				servers[st.Server] = true
			}
			if len(servers) < 2 {
				continue
			}
		}
		out = append(out, Collision{Name: n, Tools: tools})
	}
	return out
}

// Findings are what the sum finds: names that collide, full names over
// a host's limit, and hosts that defer the tools at this size. The "all"
// row is left out: it repeats the real hosts.
func (t Totals) Findings() []findings.Finding {
	var out []findings.Finding
	for _, c := range t.Collisions {
		out = append(out, findings.New(findings.ToolNameCollision, "%s is a tool of %s: a host that does not prefix tool names offers the model two tools of one name",
			code(c.Name), serversOf(c)).About(c.Name))
	}
	for _, s := range t.Shadows {
		out = append(out, s.Finding())
	}
	if t.ShadowsMore > 0 {
		out = append(out, findings.New(findings.ToolShadowing, "%d more pairs of tools of different servers shadow each other, past the %d listed", t.ShadowsMore, maxShadows))
	}
	var hs []hosts.Host
	for _, ht := range t.Hosts {
		hs = append(hs, ht.Host)
	}
	out = append(out, ToolCountFindings(hs, t.PerServer, t.Names)...)
	for _, ht := range t.Hosts {
		h := ht.Host
		if h.ID == "all" {
			continue
		}
		for _, c := range ht.Collisions {
			out = append(out, findings.New(findings.ToolNameCollision, "on %s, %s is the full name of %s (%s)",
				h.Name, code(c.Name), toolsOf(c), h.ToolNames.Prefix).About(c.Tools[0].Tool))
		}
		for _, l := range ht.Over {
			r := h.ToolNames
			sev := findings.Error
			what := map[string]string{"left_out": "the tool is left out", "rejected": "the request is refused",
				"shortened": "the model sees a shortened name"}[r.OverLimit]
			if r.OverLimit == "shortened" && !l.Refused {
				sev = findings.Warning
			}
			if l.Refused {
				out = append(out, findings.NewAt(sev, findings.ToolNameOverLimit, "%s of server %s: its full name on %s, %s, has characters outside [%s]: the request is refused",
					code(l.Tool), code(l.Server), h.Name, code(l.Full), r.Allowed).About(l.Tool))
				continue
			}
			out = append(out, findings.NewAt(sev, findings.ToolNameOverLimit, "%s of server %s: its full name on %s, %s, is %d characters, over %d: %s",
				code(l.Tool), code(l.Server), h.Name, code(l.Full), l.Len, r.MaxLen, what).About(l.Tool))
		}
		if ht.ToolSearch == "defers" {
			if ht.Threshold > 0 {
				out = append(out, findings.New(findings.ToolSearchDeferral, "%s defers the tools behind a tool search: ~%s tokens of definitions as it delivers them (o200k_base estimate), over %s%% of a %s-token context (%s)",
					h.Name, num(ht.Tokens), trimFloat(h.ToolSearch.Percent), num(h.ToolSearch.ContextTokens), num(ht.Threshold)))
			} else {
				out = append(out, findings.New(findings.ToolSearchDeferral, "%s defers every tool behind a tool search, whatever the size", h.Name))
			}
		}
	}
	return out
}

func serversOf(c Collision) string {
	var s []string
	for _, st := range c.Tools {
		s = append(s, code(st.Server))
	}
	return andList(s)
}

func toolsOf(c Collision) string {
	var s []string
	for _, st := range c.Tools {
		s = append(s, fmt.Sprintf("%s of %s", code(st.Tool), code(st.Server)))
	}
	return andList(s)
}

func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}
