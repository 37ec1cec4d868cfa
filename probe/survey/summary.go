package survey

import (
	"fmt"
	"sort"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// Census is what survey summary reads of a results file: servers probed
// and failed, tools and their sizes, what each host cuts, what the wire
// and lint found, and the SDK artefacts seen.
type Census struct {
	Files                   []string
	Records, OK, Failed     int
	ByCause                 map[string]int
	Transports, Protocols   map[string]int
	Tools                   int
	ToolsPerServer          []int // of every server probed
	DescriptionUTF16        []int // of every tool a record kept
	DescriptionsKept        int
	DefinitionBytes         []int // per server
	Tokens                  []int // per server, where counted
	Hosts                   []HostCensus
	Noise, NoiseLines       int // servers with stdout noise, and its lines
	Stderr                  int // servers that wrote on stderr
	Paginated               int // servers whose tools/list took more than one page
	FindingServers, Finding map[string]int
	SDK                     map[string]int // servers with each artefact
	SDKTools                map[string]int // tools with each artefact
}

// HostCensus is one host across the survey.
type HostCensus struct {
	ID                       string
	Servers, Tools, Cut      int
	ServersCut, SchemaDrops  int
	InstructionsNotDelivered int
	// Tokens is what the host pays on every request for each server, as
	// it delivers the definitions (records that carry it); IfLoaded counts
	// the servers whose tools it defers behind a tool search.
	Tokens   []int
	IfLoaded int
}

// SDK artefact names, as a census shows them (the record's
// wire.sdk_artefacts keys).
var SDKArtefactKeys = []string{"schema_draft07", "task_support", "safe_integer_bounds", "closed_objects", "output_schema"}

// Summarize reads results files, one record a line, holding the sizes
// the distributions need (one number per server, and per tool kept) and
// nothing of the records themselves.
func Summarize(files []string) (*Census, error) {
	c := &Census{Files: files, ByCause: map[string]int{}, Transports: map[string]int{}, Protocols: map[string]int{},
		FindingServers: map[string]int{}, Finding: map[string]int{}, SDK: map[string]int{}, SDKTools: map[string]int{}}
	hosts := map[string]*HostCensus{}
	for _, f := range files {
		err := eachLine(f, func(ln int, line []byte) error {
			_, s, err := recordKey(line)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", f, ln, err)
			}
			c.add(s, gjson.GetBytes(line, "protocol_version").String(), hosts)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, h := range hosts {
		c.Hosts = append(c.Hosts, *h)
	}
	sort.Slice(c.Hosts, func(i, j int) bool { return c.Hosts[i].ID < c.Hosts[j].ID })
	return c, nil
}

func (c *Census) add(s gjson.Result, protocol string, hosts map[string]*HostCensus) {
	c.Records++
	if s.Get("status").String() == "failed" {
		c.Failed++
		c.ByCause[s.Get("failure.cause").String()]++
	} else {
		c.OK++
	}
	s.Get("finding_counts").ForEach(func(k, v gjson.Result) bool {
		c.FindingServers[k.String()]++
		c.Finding[k.String()] += int(v.Int())
		return true
	})
	w := s.Get("wire")
	if !w.IsObject() {
		return
	}
	c.Transports[w.Get("transport").String()]++
	if protocol != "" {
		c.Protocols[protocol]++
	}
	if s.Get("status").String() == "failed" {
		return // sizes of a server not probed to its end would skew the figures
	}
	n := int(w.Get("tools.count").Int())
	c.Tools += n
	c.ToolsPerServer = append(c.ToolsPerServer, n)
	c.DefinitionBytes = append(c.DefinitionBytes, int(w.Get("tools.definition_bytes").Int()))
	w.Get("tools.description_utf16").ForEach(func(_, v gjson.Result) bool {
		c.DescriptionUTF16 = append(c.DescriptionUTF16, int(v.Int()))
		return true
	})
	c.DescriptionsKept += int(w.Get("tools.kept").Int())
	if l := w.Get("stdout_noise_lines").Int(); l > 0 {
		c.Noise++
		c.NoiseLines += int(l)
	}
	if w.Get("stderr_lines").Int() > 0 {
		c.Stderr++
	}
	if w.Get("lists.0.pages").Int() > 1 {
		c.Paginated++
	}
	for _, k := range SDKArtefactKeys {
		if v := w.Get("sdk_artefacts." + k).Int(); v > 0 {
			c.SDK[k]++
			c.SDKTools[k] += int(v)
		}
	}
	if t := s.Get("budget.tokens"); t.Exists() && t.Type == gjson.Number {
		c.Tokens = append(c.Tokens, int(t.Int()))
	}
	s.Get("budget.hosts").ForEach(func(_, h gjson.Result) bool {
		id := h.Get("host").String()
		hc := hosts[id]
		if hc == nil {
			hc = &HostCensus{ID: id}
			hosts[id] = hc
		}
		hc.Servers++
		hc.Tools += int(h.Get("tools").Int())
		cut := int(h.Get("cut").Int())
		hc.Cut += cut
		if cut > 0 {
			hc.ServersCut++
		}
		hc.SchemaDrops += int(h.Get("schema_drops").Int())
		if h.Get("instructions").String() == "not_delivered" {
			hc.InstructionsNotDelivered++
		}
		if t := h.Get("tokens"); t.Type == gjson.Number {
			hc.Tokens = append(hc.Tokens, int(t.Int()))
		}
		if h.Get("if_loaded").Bool() {
			hc.IfLoaded++
		}
		return true
	})
}

// Percentiles of a distribution, by nearest rank.
type Percentiles struct {
	N                       int
	Min, P50, P90, P99, Max int
}

// Distribution is the percentiles of v.
func Distribution(v []int) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	s := sortedInts(v)
	at := func(p float64) int {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return Percentiles{N: len(s), Min: s[0], P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: s[len(s)-1]}
}

// Origin is the origin of a finding code by its name, "" if unknown.
func Origin(code string) findings.Origin {
	c, ok := findings.ParseCode(code)
	if !ok {
		return ""
	}
	d, _ := findings.Lookup(c)
	return d.Origin
}
