package survey

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/findings"
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

// SDKArtefactKeys are the SDK artefacts' names, as a census shows them:
// the keys of a record's sdk_artefacts, in their order.
var SDKArtefactKeys = func() []string {
	var keys []string
	for _, a := range (SDKArtefacts{}).counts() {
		keys = append(keys, a.key)
	}
	return keys
}()

// SDKArtefactMeaning is each artefact in words (markdown), by its key.
var SDKArtefactMeaning = map[string]string{
	keyOf[SDKArtefacts]("SchemaDraft07"):   "`$schema` draft-07 in the input schema (TypeScript SDK, `McpServer`)",
	keyOf[SDKArtefacts]("TaskSupport"):     "`execution.taskSupport` (TypeScript SDK, `McpServer`)",
	keyOf[SDKArtefacts]("SafeIntegerZod"):  "an integer bounded by ±9007199254740991 (zod; lint `sdk-bounds`)",
	keyOf[SDKArtefacts]("ClosedObjects"):   "`additionalProperties: false` (Go SDK inference, zod strict objects)",
	keyOf[SDKArtefacts]("ToolsWithOutput"): "an `outputSchema`",
}

type artefactCount struct {
	key string
	n   int
}

// counts are the artefacts by their keys, in their order.
func (a SDKArtefacts) counts() []artefactCount {
	v := reflect.ValueOf(a)
	out := make([]artefactCount, v.NumField())
	for i := range out {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		out[i] = artefactCount{name, int(v.Field(i).Int())}
	}
	return out
}

// Summarize reads results files, one record a line, holding the sizes
// the distributions need (one number per server, and per tool kept) and
// nothing of the records themselves.
func Summarize(files []string) (*Census, error) {
	c := &Census{Files: files, ByCause: map[string]int{}, Transports: map[string]int{}, Protocols: map[string]int{},
		FindingServers: map[string]int{}, Finding: map[string]int{}, SDK: map[string]int{}, SDKTools: map[string]int{}}
	hosts := map[string]*HostCensus{}
	for _, f := range files {
		err := eachLine(f, func(ln int, line []byte) error {
			l, err := ParseLine(line)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", f, ln, err)
			}
			c.add(l, hosts)
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

func (c *Census) add(l *Line, hosts map[string]*HostCensus) {
	s := l.Survey
	c.Records++
	failed := s.Status == StatusFailed
	if failed {
		c.Failed++
		cause := ""
		if s.Failure != nil {
			cause = s.Failure.Cause
		}
		c.ByCause[cause]++
	} else {
		c.OK++
	}
	for k, v := range s.FindingCounts {
		c.FindingServers[k]++
		c.Finding[k] += v
	}
	w := s.Wire
	if w == nil {
		return
	}
	c.Transports[w.Transport]++
	if p := l.ProtocolVersion; p != nil && *p != "" {
		c.Protocols[*p]++
	}
	if failed {
		return // sizes of a server not probed to its end would skew the figures
	}
	n := w.Tools.Count
	c.Tools += n
	c.ToolsPerServer = append(c.ToolsPerServer, n)
	c.DefinitionBytes = append(c.DefinitionBytes, w.Tools.DefinitionBytes)
	c.DescriptionUTF16 = append(c.DescriptionUTF16, w.Tools.DescriptionUTF16...)
	c.DescriptionsKept += w.Tools.Kept
	if w.NoiseLines > 0 {
		c.Noise++
		c.NoiseLines += w.NoiseLines
	}
	if w.StderrLines > 0 {
		c.Stderr++
	}
	if len(w.Lists) > 0 && w.Lists[0].Pages > 1 {
		c.Paginated++
	}
	for _, a := range w.SDK.counts() {
		if a.n > 0 {
			c.SDK[a.key]++
			c.SDKTools[a.key] += a.n
		}
	}
	if b := s.Budget; b != nil {
		if b.Tokens != nil {
			c.Tokens = append(c.Tokens, *b.Tokens)
		}
		for _, h := range b.Hosts {
			c.addHost(h, hosts)
		}
	}
}

func (c *Census) addHost(h HostSummary, hosts map[string]*HostCensus) {
	hc := hosts[h.ID]
	if hc == nil {
		hc = &HostCensus{ID: h.ID}
		hosts[h.ID] = hc
	}
	hc.Servers++
	hc.Tools += h.Tools
	hc.Cut += h.Cut
	if h.Cut > 0 {
		hc.ServersCut++
	}
	hc.SchemaDrops += h.SchemaDrops
	if h.Instructions == "not_delivered" {
		hc.InstructionsNotDelivered++
	}
	if h.Tokens != nil {
		hc.Tokens = append(hc.Tokens, *h.Tokens)
	}
	if h.IfLoaded {
		hc.IfLoaded++
	}
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
