package diff

import (
	"fmt"
	"strings"
)

// Part is one thing a reference can record about a server, compared (or
// ignored with --ignore) as a whole.
type Part string

// The parts, in the order the header and the JSON list them. ServerInfo
// is what serverInfo holds besides its name and version (title, icons,
// websiteUrl…): a snapshot records all of it, so drift sees all of it.
const (
	PartTools         Part = "tools"
	PartPrompts       Part = "prompts"
	PartResources     Part = "resources"
	PartTemplates     Part = "templates"
	PartInstructions  Part = "instructions"
	PartServerName    Part = "server-name"
	PartServerVersion Part = "server-version"
	PartServerInfo    Part = "server-info"
	PartProtocol      Part = "protocol"
	PartCapabilities  Part = "capabilities"
	// PartSkills is a server's Skills extension listing (SEP-2640),
	// recorded only by a side whose server declares the extension: where
	// neither side records it, it is not mentioned at all.
	PartSkills Part = "skills"
)

// Parts lists every part, in order.
var Parts = []Part{PartTools, PartPrompts, PartResources, PartTemplates, PartInstructions,
	PartServerName, PartServerVersion, PartServerInfo, PartProtocol, PartCapabilities, PartSkills}

// listParts are the parts that are lists of items, compared item by item
// and byte for byte.
var listParts = []Part{PartTools, PartPrompts, PartResources, PartTemplates, PartSkills}

// IsList reports whether p is a list of items (tools, prompts, resources,
// templates) rather than a value of the session.
func (p Part) IsList() bool {
	for _, l := range listParts {
		if p == l {
			return true
		}
	}
	return false
}

// key is the member that names an item of the list, and the path prefix
// and noun of its changes.
func (p Part) key() (ident, path, noun string) {
	switch p {
	case PartPrompts:
		return "name", "prompts", "prompt"
	case PartResources:
		return "uri", "resources", "resource"
	case PartTemplates:
		return "uriTemplate", "resource_templates", "resource template"
	case PartSkills:
		return "uri", "skills", "skill"
	}
	return "name", "", "tool"
}

// ParseParts reads --ignore's comma-separated list. An unknown name is an
// error that lists the known ones.
func ParseParts(list []string) ([]Part, error) {
	var out []Part
	seen := map[Part]bool{}
	for _, item := range list {
		for _, s := range strings.Split(item, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			p := Part(s)
			known := false
			for _, k := range Parts {
				known = known || k == p
			}
			if !known {
				return nil, fmt.Errorf("%q is no part diff compares: want %s", s, JoinParts(Parts))
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// JoinParts is a list of parts for people: "tools, prompts".
func JoinParts(ps []Part) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// PartSet is the parts a side records.
type PartSet uint16

func (s PartSet) Has(p Part) bool { return s&bit(p) != 0 }

// With returns s with ps added.
func (s PartSet) With(ps ...Part) PartSet {
	for _, p := range ps {
		s |= bit(p)
	}
	return s
}

func bit(p Part) PartSet {
	for i, k := range Parts {
		if k == p {
			return 1 << i
		}
	}
	return 0
}

// AllParts is what a live server, wire --json and a snapshot record
// (skills only where the server declares the extension).
var AllParts = PartSet(0).With(Parts...)
