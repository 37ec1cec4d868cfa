package faults

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Stage is when a fault acts.
type Stage int

const (
	// AtStart faults act once, when the connection opens (they implement
	// Opener); a restarted server is spared them.
	AtStart Stage = iota
	// OnCall faults act on the frames of the tools/calls their selector
	// hits: the request on its way to the server, the reply on its way
	// back.
	OnCall
	// OnStream faults act on every write, in both directions, after the
	// call faults.
	OnStream
)

// Front is a front end of the engine, or a set of them.
type Front uint8

const (
	// InShim is the in-process front end: mcpprobe is the client
	// (mcpprobe faults, report --faults). It works on messages and models
	// what a client of each policy makes of broken lines.
	InShim Front = 1 << iota
	// InProxy is the standalone front end: a real host is the client
	// (mcpprobe proxy -- CMD). It works on bytes.
	InProxy
	// Anywhere is both.
	Anywhere = InShim | InProxy
)

func (f Front) String() string {
	switch f {
	case InShim:
		return "mcpprobe faults"
	case InProxy:
		return "mcpprobe proxy"
	}
	return "every front end"
}

// FlagType says what a fault's flag takes, so that a command line can
// declare it without this package knowing the CLI library.
type FlagType int

const (
	Which    FlagType = iota // a selector: a call number, tool:NAME or p:PROBABILITY
	Word                     // a word the fault checks (pollute's KIND)
	Count                    // a whole number
	Duration                 // a Go duration, "3s"
	Switch                   // on when given
)

// Flag is one command-line setting of a fault. A word in backquotes in
// Usage names the value, as Go's flag package shows it.
type Flag struct {
	Name    string
	Type    FlagType
	Default string
	Usage   string
}

// Kind is a fault kind as the registry knows it: what turns it on, where
// and when it acts, and how to build it.
type Kind struct {
	Name string // "crash"
	// Rank orders the faults: in the pipeline (a lower rank acts first on
	// a frame, and draws first for a p: selector), in listings and flags.
	Rank  int
	Stage Stage
	// Where lists the front ends that can act it; WhyOnly says why the
	// others cannot, for the error that refuses it there.
	Where   Front
	WhyOnly string
	// Process: the fault acts on the server's process or its stdout (it
	// kills the process group, or writes stray text as the process would).
	// mcpprobe starts no process for a URL, so such a fault is refused
	// there rather than reported as done.
	Process bool
	// Flags: the first turns the fault on when given a value other than
	// "", "false" or "0"; an OnCall fault has exactly one flag of type
	// Which, the calls it hits.
	Flags []Flag
	// New builds the fault from its flags' values (defaults applied).
	New func(get func(flag string) string) (Fault, error)
}

func (s Kind) which() string {
	for _, f := range s.Flags {
		if f.Type == Which {
			return f.Name
		}
	}
	return ""
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Kind{}
)

// Register adds a fault kind; each fault's file calls it from init. It
// panics on a kind, flag or rank already taken, or an OnCall fault
// without a selector flag: mistakes of this package, not of its users.
func Register(s Kind) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if s.Name == "" || len(s.Flags) == 0 || s.New == nil || s.Where == 0 {
		panic("faults: incomplete spec " + s.Name)
	}
	if (s.Stage == OnCall) != (s.which() != "") {
		panic("faults: " + s.Name + ": an OnCall fault, and only it, selects calls")
	}
	for _, o := range registry {
		if o.Name == s.Name || o.Rank == s.Rank {
			panic("faults: " + s.Name + " clashes with " + o.Name)
		}
		for _, f := range o.Flags {
			for _, g := range s.Flags {
				if f.Name == g.Name {
					panic("faults: flag --" + f.Name + " of " + s.Name + " is taken by " + o.Name)
				}
			}
		}
	}
	registry[s.Name] = s
}

// Kinds lists the registered fault kinds in rank order.
func Kinds() []Kind {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Kind, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out
}

// Lookup finds a fault kind by name.
func Lookup(name string) (Kind, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	s, ok := registry[name]
	return s, ok
}

// Values are flag values by flag name, for ParsePlan.
type Values map[string]string

// Get is the value of a flag, "" if unset.
func (v Values) Get(flag string) string { return v[flag] }

// ParsePlan builds a plan from flag values: get returns a flag's value,
// "" when it was not given (the flag's default then applies). Errors
// name the flag, for a usage message.
func ParsePlan(get func(flag string) string, seed uint64) (Plan, error) {
	p := Plan{Seed: seed}
	for _, s := range Kinds() {
		val := func(name string) string {
			if v := get(name); v != "" {
				return v
			}
			for _, f := range s.Flags {
				if f.Name == name {
					return f.Default
				}
			}
			return ""
		}
		switch strings.TrimSpace(val(s.Flags[0].Name)) {
		case "", "false", "0":
			continue
		}
		f, err := s.New(val)
		if err != nil {
			return p, err
		}
		r := Rule{Kind: s, Fault: f}
		if w := s.which(); w != "" {
			sel, err := ParseSelector(val(w))
			if err != nil {
				return p, fmt.Errorf("--%s %v", w, err)
			}
			r.At = &sel
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}
