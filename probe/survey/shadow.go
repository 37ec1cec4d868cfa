package survey

import (
	"sort"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// maxShadowServers bounds the servers of one host config kept for the
// shadowing check (a config of more is checked on its first ones, in
// name order of the servers probed).
const maxShadowServers = 200

// maxShadowFindings bounds the pairs said of one config.
const maxShadowFindings = 100

// shadowing gathers, per host config, the tools of its servers as they
// end, to check them together once every server is done.
type shadowing struct {
	mu      sync.Mutex
	configs map[string][]budget.ServerTools
}

// add keeps one server's tools (those its entry's filter keeps).
func (s *shadowing) add(e Entry, c *probe.Capture) {
	if s == nil || e.Config == "" || c == nil {
		return
	}
	st := budget.ServerTools{Name: e.Server}
	for i, raw := range c.Tools.Items {
		if i == MaxToolsKept {
			break
		}
		t := gjson.ParseBytes(raw)
		name := t.Get("name").String()
		if !e.Filter.Keeps(name) {
			continue
		}
		st.Tools = append(st.Tools, name)
		st.Descriptions = append(st.Descriptions, t.Get("description").String())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.configs[e.Config]) < maxShadowServers {
		s.configs[e.Config] = append(s.configs[e.Config], st)
	}
}

// ConfigFinding is a finding of a host config read by the survey as a
// whole: tools of two of its servers that shadow each other.
type ConfigFinding struct {
	Config string
	findings.Finding
}

// findings checks each config's servers, in config and server name order
// (servers end in any order; the findings do not follow it).
func (s *shadowing) findings() []ConfigFinding {
	if s == nil {
		return nil
	}
	var names []string
	for n := range s.configs {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []ConfigFinding
	for _, n := range names {
		servers := s.configs[n]
		sort.SliceStable(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
		all := budget.Shadows(servers)
		for i, sh := range all {
			if i == maxShadowFindings {
				out = append(out, ConfigFinding{Config: n, Finding: findings.New(findings.ToolShadowing,
					"%d more pairs of tools of different servers shadow each other, past the %d listed", len(all)-i, i)})
				break
			}
			out = append(out, ConfigFinding{Config: n, Finding: sh.Finding()})
		}
	}
	return out
}
