package reports

// One adapter per command, each named New<Command>: the facts of its
// envelope and the renderers of its result, so that the CLI hands emit a
// Result and never assembles one.

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/call"
	"github.com/mcpprobe/mcpprobe/probe/check"
	"github.com/mcpprobe/mcpprobe/probe/config"
	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/probe/load"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/snapshot"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// NewLoad is load's Result.
func NewLoad(r *load.Result) Result {
	return &adapted{command: "load", target: r.Target, protocol: r.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return LoadJSON(r) },
		text:    func(w io.Writer) { Load(w, terminal.Terminal, r) }}
}

// NewFaults is faults' Result; target is the target as the run named it
// (the result does not keep it).
func NewFaults(target string, r *faults.Result) Result {
	return &adapted{command: "faults", target: target, protocol: r.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return FaultsSection(r) },
		text:    func(w io.Writer) { Faults(w, terminal.Terminal, r) }}
}

// NewBench is bench's Result.
func NewBench(r *bench.Result) Result {
	return &adapted{command: "bench", target: r.A.Target, protocol: r.A.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return BenchJSON(r) },
		text:    func(w io.Writer) { Bench(w, terminal.Terminal, r) }}
}

// NewMalformed is malformed's Result.
func NewMalformed(r *malformed.Result) Result {
	return &adapted{command: "malformed", target: r.Target, protocol: r.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return MalformedJSON(r) },
		text:    func(w io.Writer) { Malformed(w, terminal.Terminal, r) }}
}

// NewCheck is check's Result: the verdict, and the audit after it when
// --auth ran one (a nil a when it did not), its findings with the
// checks'; markdown for --markdown.
func NewCheck(r *check.Result, a *authz.Result, markdown bool) Result {
	fs := r.Findings()
	if a != nil {
		fs = append(fs, a.Findings()...)
	}
	return &adapted{command: "check", target: r.Target, protocol: checkProtocol(r),
		findings: fs, markdown: markdown,
		section: func() []byte { return CheckAuthJSON(ConformanceJSON(r), a) },
		text: func(w io.Writer) {
			st := terminal.Terminal
			if markdown {
				st = terminal.Markdown
			}
			Conformance(w, st, r)
			if a != nil {
				checkAuthText(w, st, a)
			}
		}}
}

// checkProtocol is the envelope's protocol: each graded era's version.
func checkProtocol(r *check.Result) string {
	var vs []string
	for _, e := range r.Eras {
		if e.Protocol != "" {
			vs = append(vs, e.Protocol)
		}
	}
	return strings.Join(vs, ", ")
}

// checkAuthText is check --auth's audit after the verdict: the report's
// section in markdown, auth's table on a terminal.
func checkAuthText(w io.Writer, st terminal.Style, a *authz.Result) {
	if st == terminal.Markdown {
		fmt.Fprint(w, "\n## Authorization\n\n")
		AuthzSection(w, a)
		return
	}
	fmt.Fprintln(w)
	Authz(w, st, a)
}

// NewAuth is auth's Result. Each row that is not a pass or a plain
// observation is a finding: the severity gates count them.
func NewAuth(r *authz.Result) Result {
	return &adapted{command: "auth", target: r.Target, protocol: r.Protocol,
		findings: r.Findings(),
		section:  func() []byte { return AuthzJSON(r) },
		text:     func(w io.Writer) { Authz(w, terminal.Terminal, r) }}
}

// NewAll is a --config FILE --all run of command (report's is markdown,
// dated date and stamped with mcpprobe's version).
func NewAll(command string, r *config.Result, version, date string) Result {
	out := &adapted{command: command, target: "--config " + r.Path + " --all", findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return ConfigSection(r) },
		text:    func(w io.Writer) { ConfigText(w, r) }}
	if command == "report" {
		out.markdown = true
		out.text = func(w io.Writer) { ConfigMarkdown(w, r, version, date) }
	}
	return out
}

// NewDiff is diff's Result; its protocol is the live side's, when one
// was probed.
func NewDiff(r *diff.Result) Result {
	o := &adapted{command: "diff", target: r.Live.Label, findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return DiffSection(r) },
		text:    func(w io.Writer) { DiffText(w, r) }}
	if r.Capture != nil {
		o.protocol = r.Capture.ProtocolVersion
	}
	return o
}

// NewSnapshot is snapshot's Result.
func NewSnapshot(r *snapshot.Result) Result {
	c := r.Capture
	return &adapted{command: "snapshot", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return SnapshotSection(r) },
		text:    func(w io.Writer) { SnapshotText(w, r) }}
}

// NewCall is the Result of call, read or prompt (command); a view names
// the one host whose delivery --view prints, as markdown.
func NewCall(command string, r *call.Result, view string) Result {
	out := &adapted{command: command, target: r.Target, protocol: r.Protocol,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return CallJSON(r) },
		text:    func(w io.Writer) { Call(w, terminal.Terminal, r) }}
	if view != "" {
		out.text, out.markdown = func(w io.Writer) { CallView(w, r, view) }, true
	}
	return out
}

// NewBudget is budget's Result: view for --view (one host's delivery, as
// markdown), else showCut for --show-cut.
func NewBudget(r *budget.Result, view, showCut bool) Result {
	c := r.Capture
	out := &adapted{command: "budget", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return BudgetSection(r) },
		text:    func(w io.Writer) { BudgetText(w, r, showCut) }}
	if view {
		out.text, out.markdown = func(w io.Writer) { BudgetView(w, r) }, true
	}
	return out
}

// NewReport is report's Result: markdown, stamped with mcpprobe's version.
func NewReport(r *report.Result, version string) Result {
	c := r.Wire.Capture
	return &adapted{command: "report", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(), markdown: true,
		section: func() []byte { return ReportSection(r) },
		text:    func(w io.Writer) { ReportMarkdown(w, r, version) }}
}

// NewWire is wire's Result.
func NewWire(r *wire.Result) Result {
	c := r.Capture
	return &adapted{command: "wire", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte {
			if r.Cards != nil {
				return jsonout.WithMember(WireSection(c), "cards", CardsJSON(r.Cards))
			}
			return WireSection(c)
		},
		text: func(w io.Writer) { WireText(w, r) }}
}
