package reports

// One adapter per command, each named New<Command>: the facts of its
// envelope and the renderers of its result, so that the CLI hands emit a
// Result and never assembles one.

import (
	"io"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/load"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
)

// NewLoad is load's Result.
func NewLoad(r *load.Result) Result {
	return &adapted{command: "load", target: r.Target, protocol: r.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return LoadJSON(r) },
		text:    func(w io.Writer) { Load(w, Terminal, r) }}
}

// NewFaults is faults' Result; target is the target as the run named it
// (the result does not keep it).
func NewFaults(target string, r *faults.Result) Result {
	return &adapted{command: "faults", target: target, protocol: r.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return FaultsSection(r) },
		text:    func(w io.Writer) { Faults(w, Terminal, r) }}
}

// NewBench is bench's Result.
func NewBench(r *bench.Result) Result {
	return &adapted{command: "bench", target: r.A.Target, protocol: r.A.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return BenchJSON(r) },
		text:    func(w io.Writer) { Bench(w, Terminal, r) }}
}

// NewMalformed is malformed's Result.
func NewMalformed(r *malformed.Result) Result {
	return &adapted{command: "malformed", target: r.Target, protocol: r.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return MalformedJSON(r) },
		text:    func(w io.Writer) { Malformed(w, Terminal, r) }}
}
