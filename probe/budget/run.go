package budget

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/lint"
	"github.com/mcpprobe/mcpprobe/probe/tokens"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// Options are the budget command's: the server, and the hosts to judge
// it against.
type Options struct {
	wire.Options
	// Hosts are the profiles to compute delivery for, in order
	// (hosts.Resolve's Selected, from --host and --hosts).
	Hosts []hosts.Host
	// View, when set, is one host whose delivered text is kept whole in
	// Result.View, to show exactly what reaches the model.
	View *hosts.Host
	// Filter is the host config's list of the tools it shows (--config
	// FILE NAME with includeTools/excludeTools or enabled_tools/
	// disabled_tools): HostTokens pays only for those it keeps.
	Filter ToolFilter
	// PerHostTools keeps every tool under every host in the JSON section
	// (--per-host-tools); without it each host lists only the tools it
	// does not deliver as sent (Tool.AsSent).
	PerHostTools bool
}

// Result is the budget of one capture: what each host delivers, the
// token cost of the definitions, and the findings of both and of lint.
type Result struct {
	Capture  *probe.Capture
	Delivery Delivery
	View     *HostResult // Options.View's delivery, when asked
	// Tokens is nil when the counts could not be made; TokensErr says why.
	Tokens    *tokens.Definitions
	TokensErr error
	// HostTokens is what each host of the set (but "all") pays on every
	// request, as it delivers the definitions; nil when Tokens is.
	HostTokens []HostTokens
	// Filter is Options.Filter; FilteredOut the tools it leaves out.
	Filter      ToolFilter
	FilteredOut []string
	Budget      []findings.Finding // cuts, schema drops, instructions
	Lint        []findings.Finding
	// PerHostTools is Options.PerHostTools: the renderers list every tool
	// under every host, not only those a host changes.
	PerHostTools bool
	// Skills is what the hosts that consume skills deliver of them; nil
	// when the server does not declare the Skills extension.
	Skills *Skills
}

// Run probes the server (wire.Run) and works out its budget. A server
// that cannot be probed is wire.Run's error, with no result.
func Run(ctx context.Context, o Options) (*Result, error) {
	w, err := wire.Run(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	r, err := AnalyseFiltered(ctx, w.Capture, o.Hosts, o.View, o.Filter)
	if r != nil {
		r.PerHostTools = o.PerHostTools
	}
	return r, err
}

// Analyse is the budget of a capture already taken: the report's, which
// probes once for every section. Counting tokens is the one part whose
// cost a server controls, so it stops when ctx is done.
func Analyse(ctx context.Context, c *probe.Capture, hs []hosts.Host, view *hosts.Host) (*Result, error) {
	return AnalyseFiltered(ctx, c, hs, view, ToolFilter{})
}

// AnalyseFiltered is Analyse for a server whose host config shows only
// some of its tools: the capture stays whole (what the server sent), the
// per-host figures count what the filter keeps.
func AnalyseFiltered(ctx context.Context, c *probe.Capture, hs []hosts.Host, view *hosts.Host, f ToolFilter) (*Result, error) {
	r := &Result{Capture: c, Delivery: Compute(c, hs), Filter: f, Skills: SkillsOf(c, hosts.KnownSkills())}
	r.Budget = Findings(r.Delivery)
	if f.Active() {
		// A cut or a drop of a tool the host never shows costs the model
		// nothing; the lint's findings stay, being the server's own.
		kept := r.Budget[:0]
		for _, x := range r.Budget {
			if x.Tool == "" || f.Keeps(x.Tool) {
				kept = append(kept, x)
			}
		}
		r.Budget = kept
	}
	kept := 0
	for _, t := range wire.Tools(c) {
		if f.Keeps(t.Name) {
			kept++
		}
	}
	r.Budget = append(r.Budget, ToolCountFindings(hs, []int{kept}, nil)...)
	r.Budget = append(r.Budget, SecureFindings(c, hs)...)
	r.Lint = lint.Check(c)
	if view != nil {
		hr := Compute(c, []hosts.Host{*view}).Hosts[0]
		r.View = &hr
	}
	var names []string
	for _, t := range wire.Tools(c) {
		names = append(names, t.Name)
	}
	r.FilteredOut = f.Filtered(names)
	d, err := tokens.OfToolsContext(ctx, names, c.Tools.Items)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		r.TokensErr = err
		return r, nil
	}
	r.Tokens = &d
	ht, err := hostTokens(ctx, c.Tools.Items, c.Instructions, r.Delivery, d, f)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		r.TokensErr = err
		return r, nil
	}
	r.HostTokens = ht
	return r, nil
}

// Findings are every finding of the run: the capture's (the wire), the
// budget's and the lint's, in that order.
func (r *Result) Findings() []findings.Finding {
	out := append([]findings.Finding(nil), r.Capture.Findings...)
	out = append(out, r.Budget...)
	return append(out, r.Lint...)
}

// Counts is empty: every budget gate (cut, schema-drop, lint-*) is a
// finding gate.
func (r *Result) Counts() map[string]int { return nil }
