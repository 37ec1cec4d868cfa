package hosts

import "fmt"

// Exceeded is one tool-count limit of a host that a server, or a whole
// host config, goes past.
type Exceeded struct {
	Limit  ToolLimit
	Count  int // the tools counted against it (the host's built-ins included for a request limit)
	Server int // for a server limit, the index of the server over it; else -1
}

// OverToolLimits checks tool counts against the host's tool-count limits:
// perServer is each server's tool count (one entry for one server). A
// request limit counts every server's tools and the host's own built-in
// ones where the profile knows how many; an mcp limit every server's; a
// server limit each server's alone.
func (h Host) OverToolLimits(perServer []int) []Exceeded {
	total := 0
	for _, n := range perServer {
		total += n
	}
	var out []Exceeded
	for _, l := range h.ToolLimits {
		switch l.Scope {
		case "request":
			if n := total + l.Builtins; n > l.Limit {
				out = append(out, Exceeded{Limit: l, Count: n, Server: -1})
			}
		case "mcp":
			if total > l.Limit {
				out = append(out, Exceeded{Limit: l, Count: total, Server: -1})
			}
		case "server":
			for i, n := range perServer {
				if n > l.Limit {
					out = append(out, Exceeded{Limit: l, Count: n, Server: i})
				}
			}
		}
	}
	return out
}

// What says what a limit is and what the host does past it, in words.
func (l ToolLimit) What() string {
	scope := map[string]string{
		"request": "tools per request (its own tools count too)",
		"server":  "tools per server",
		"mcp":     "MCP tools across its servers",
	}[l.Scope]
	s := fmt.Sprintf("%d %s", l.Limit, scope)
	if l.Builtins > 0 {
		s += fmt.Sprintf(", %d of its own", l.Builtins)
	}
	return s
}

// Past says what the host does past the limit.
func (l ToolLimit) Past() string {
	switch l.Over {
	case "refused":
		return "the request is refused"
	case "dropped":
		return "the tools past it are not offered to the model"
	case "grouped":
		return "tools are grouped behind activate_* virtual tools the model must call first"
	case "warned":
		return "the host warns"
	}
	return "what the host does then is not known"
}

// Cite is how a rule is known, for a finding: the kind of source and its
// date.
func Cite(sure, date string) string {
	what := map[string]string{SureCode: "read in its code", SureDocs: "its docs", SureReport: "reported", SureUnknown: "no source"}[sure]
	if what == "" {
		what = "source"
	}
	if date == "" {
		return what
	}
	return what + ", " + date
}
