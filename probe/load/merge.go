package load

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tidwall/gjson"
)

// Part is one shard's --json output, as read back for Merge.
type Part struct {
	Name string // the file, for messages
	*Result
}

// MaxPartBytes bounds one part read: the samples of a capped step.
const MaxPartBytes = 1 << 30

// ReadPart reads a shard's --json output (the envelope, with its load
// section).
func ReadPart(name string, b []byte) (Part, error) {
	if !gjson.ValidBytes(b) {
		return Part{}, fmt.Errorf("%s: not one JSON object (load --json writes one)", name)
	}
	env := gjson.ParseBytes(b)
	if env.Get("command").String() != "load" || !env.Get("load").IsObject() {
		return Part{}, fmt.Errorf("%s: not the output of load --json (command %q)", name, env.Get("command").String())
	}
	r := &Result{}
	if err := json.Unmarshal([]byte(env.Get("load").Raw), r); err != nil {
		return Part{}, fmt.Errorf("%s: its load section does not read: %v", name, err)
	}
	r.Target, r.Protocol = env.Get("target").String(), env.Get("protocol_version").String()
	return Part{Name: name, Result: r}, nil
}

// Merge combines shards of one run into the run: each series' samples are
// the union of the shards' (concatenated in shard order) and its figures
// are computed again from them, so they are exactly the percentiles of
// the union, never an average of percentiles. It refuses parts of
// different runs (target, shard count, rates, duration or requests,
// bound, calls), a shard given twice, and a missing shard. Steps that not
// every shard ran (a shard's ramp stopped early) are left out, and their
// rates listed as not run; the knee is found again on the merged steps.
func Merge(parts []Part) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("give the shards' files")
	}
	p0 := parts[0]
	n := p0.ShardsOf
	byIndex := make([]*Part, n)
	for i := range parts {
		p := &parts[i]
		if err := sameRun(p0, *p); err != nil {
			return nil, err
		}
		if len(p.Shards) != 1 {
			return nil, fmt.Errorf("%s holds %d shards: merge the shards' own files, each once", p.Name, len(p.Shards))
		}
		s := p.Shards[0]
		if s.I < 0 || s.I >= n {
			return nil, fmt.Errorf("%s: shard %d/%d out of range", p.Name, s.I, s.N)
		}
		if q := byIndex[s.I]; q != nil {
			return nil, fmt.Errorf("shard %d/%d given twice: %s and %s", s.I, n, q.Name, p.Name)
		}
		byIndex[s.I] = p
	}
	var missing []int
	for i, p := range byIndex {
		if p == nil {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shards missing: %v of %d (give every shard's file)", missing, n)
	}
	m := *p0.Result
	m.Shards = nil
	m.Sessions = 0
	m.Interrupted = false
	m.ReplicaCheck = nil
	m.Resources = nil
	m.Generator = nil
	for _, p := range byIndex {
		m.Shards = append(m.Shards, p.Shards[0])
		m.Sessions += p.Sessions
		m.Interrupted = m.Interrupted || p.Interrupted
		m.Resources = addResources(m.Resources, p.Resources)
		m.Generator = addGenerator(m.Generator, p.Generator)
	}
	m.Phases = []*Series{}
	for j, ph := range p0.Phases {
		var ss []*Series
		for _, p := range byIndex {
			if j < len(p.Phases) {
				ss = append(ss, p.Phases[j])
			}
		}
		m.Phases = append(m.Phases, mergeSeries(ph.Name, ss))
	}
	steps := len(p0.Steps)
	for _, p := range byIndex {
		steps = min(steps, len(p.Steps))
	}
	m.Steps = []Step{}
	for j := 0; j < steps; j++ {
		st := Step{Rate: p0.Steps[j].Rate, Methods: []*Series{}}
		var all []*Series
		for _, p := range byIndex {
			all = append(all, p.Steps[j].All)
		}
		st.All = mergeSeries("all", all)
		for k, ms := range p0.Steps[j].Methods {
			var ss []*Series
			for _, p := range byIndex {
				if k < len(p.Steps[j].Methods) {
					ss = append(ss, p.Steps[j].Methods[k])
				}
			}
			st.Methods = append(st.Methods, mergeSeries(ms.Name, ss))
		}
		m.Steps = append(m.Steps, st)
	}
	b := Bound{MaxP99: time.Duration(m.Bound.MaxP99Ns), MaxErrors: m.Bound.MaxErrors}
	for j := range m.Steps {
		m.Steps[j].Broken = b.Broken(m.Steps[j].All)
	}
	// The rates after the last merged step, in the order the ramp gave.
	m.NotRun = []float64{}
	for _, p := range byIndex {
		for _, st := range p.Steps[steps:] {
			if !slices.Contains(m.NotRun, st.Rate) {
				m.NotRun = append(m.NotRun, st.Rate)
			}
		}
		for _, r := range p.NotRun {
			if !slices.Contains(m.NotRun, r) {
				m.NotRun = append(m.NotRun, r)
			}
		}
	}
	slices.Sort(m.NotRun)
	m.Knee = FindKnee(m.Steps, b)
	return &m, nil
}

// sameRun refuses a part of another run than p0's.
func sameRun(p0, p Part) error {
	diff := func(what string, a, b any) error {
		return fmt.Errorf("%s and %s are not shards of one run: %s %v and %v", p0.Name, p.Name, what, a, b)
	}
	switch {
	case p.Target != p0.Target:
		return diff("target", p0.Target, p.Target)
	case p.ShardsOf != p0.ShardsOf:
		return diff("shard count", p0.ShardsOf, p.ShardsOf)
	case p.DurationNs != p0.DurationNs:
		return diff("duration", time.Duration(p0.DurationNs), time.Duration(p.DurationNs))
	case p.Requests != p0.Requests:
		return diff("requests per step", p0.Requests, p.Requests)
	case p.Bound != p0.Bound:
		return diff("bound", p0.Bound, p.Bound)
	case !slices.EqualFunc(p.Calls, p0.Calls, func(a, b CallPlan) bool { return a.Tool == b.Tool && string(a.Args) == string(b.Args) }):
		return diff("calls", toolNames(p0.Calls), toolNames(p.Calls))
	}
	for j := 0; j < min(len(p.Steps), len(p0.Steps)); j++ {
		if p.Steps[j].Rate != p0.Steps[j].Rate {
			return diff(fmt.Sprintf("step %d's rate", j+1), p0.Steps[j].Rate, p.Steps[j].Rate)
		}
	}
	return nil
}

func toolNames(cs []CallPlan) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Tool)
	}
	return out
}

func addResources(a, b *Resources) *Resources {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		return &c
	}
	a.Processes += b.Processes
	a.CPUNs += b.CPUNs
	a.RSSPeakSumBytes += b.RSSPeakSumBytes
	a.RSSPeakBytes = max(a.RSSPeakBytes, b.RSSPeakBytes)
	return a
}

func addGenerator(a, b *Generator) *Generator {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		return &c
	}
	a.CPUNs += b.CPUNs
	a.Requests += b.Requests
	return a
}
