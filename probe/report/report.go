// Package report runs every analysis the committed report shows, on one
// probe of the server: the wire, the delivery budget and lint, a diff
// against a reference, and, when asked, latency, fault scenarios and
// malformed calls (each by its own command's Run).
package report

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/call"
	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// Options are the report command's.
type Options struct {
	wire.Options
	Hosts []hosts.Host // for the delivery section, as budget takes them
	// Filter is the host config's include/exclude list (budget.Options').
	Filter budget.ToolFilter
	Ref    string // a reference file: adds the diff section
	Date   string // YYYY-MM-DD the report is dated
	// Root, when set, is the repository the report is committed in, and
	// WorkDir where the target's relative paths start: the report names
	// its server by paths relative to Root (launch.Target.InRepository).
	Root, WorkDir string

	// The optional sections, each run on the report's target (Spec is
	// filled from wire.Options); nil leaves the section out.
	Bench     *bench.Options
	Faults    *faults.ScenarioOptions
	Malformed *malformed.Options
	// Calls are the tools to call (report --call NAME=ARGS), in order,
	// each on a fresh server: the "Calls" section.
	Calls []call.Options
	// Auth, when set, adds the Authorization section: the audit of the
	// report's URL (its first probe a POST without a token; the rest only
	// when that is answered 401).
	Auth *authz.Options
}

// Result is everything the report shows.
type Result struct {
	Date      string
	Wire      *wire.Result
	Budget    *budget.Result
	Diff      *diff.Result // nil without Options.Ref
	Bench     *bench.Result
	Faults    *faults.ScenarioResult
	FaultsNot string // why the faults section has no scenarios, when asked but not run
	Malformed *malformed.Result
	Calls     []*call.Result
	Auth      *authz.Result
}

// Run reads the reference (a bad one stops the run before any server
// starts), probes the server once, runs every analysis on that capture,
// then the optional sections, each on fresh servers of the same target.
func Run(ctx context.Context, o Options) (*Result, error) {
	var ref *diff.Side
	if o.Ref != "" {
		s, err := diff.LoadSource(diff.Source{Path: o.Ref, Name: "--ref"})
		if err != nil {
			return nil, err
		}
		ref = &s
	}
	w, err := wire.Run(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	if o.Root != "" {
		w.Capture.Target = o.Spec.Target.InRepository(o.Root, o.WorkDir)
	}
	b, err := budget.AnalyseFiltered(ctx, w.Capture, o.Hosts, nil, o.Filter)
	if err != nil {
		return nil, err
	}
	r := &Result{Date: o.Date, Wire: w, Budget: b}
	if ref != nil {
		live := diff.FromCapture(w.Capture, o.Target.Display())
		r.Diff = &diff.Result{Comparison: diff.Compare(*ref, live), Ref: *ref, Live: live, Capture: w.Capture}
	}
	// The sections start servers of their own: none shares the probe's
	// trace, since a session's findings read its own frames (with
	// Launch.Record, each takes a numbered trace of its own).
	spec := o.Spec
	spec.Launch.Trace = nil
	if b := o.Bench; b != nil {
		bo := *b
		bo.Spec = spec
		if r.Bench, err = bench.Run(ctx, bo); err != nil {
			return nil, err
		}
	}
	if f := o.Faults; f != nil {
		fo := *f
		fo.Spec = spec
		r.Faults, err = faults.Scenarios(ctx, fo)
		if errors.Is(err, faults.ErrNoCall) {
			r.Faults, err = nil, nil
			r.FaultsNot = "the server annotates no tool read-only, and a report calls no other"
		}
		if err != nil {
			return nil, err
		}
	}
	if m := o.Malformed; m != nil {
		mo := *m
		mo.Spec = spec
		if r.Malformed, err = malformed.Run(ctx, mo); err != nil {
			return nil, err
		}
	}
	if o.Auth != nil {
		ao := *o.Auth
		if ao.Token == "" && spec.OAuth != nil {
			ao.Token = spec.OAuth.AccessToken() // the OAuth flags' token is the baseline
		}
		if r.Auth, err = authz.Run(ctx, ao); err != nil {
			return nil, err
		}
	}
	for _, c := range o.Calls {
		co := c
		co.Spec = spec
		if co.Hosts == nil {
			co.Hosts = o.Hosts
		}
		cr, err := call.Run(ctx, co)
		if err != nil {
			return nil, err
		}
		r.Calls = append(r.Calls, cr)
	}
	return r, nil
}

// Findings are every finding of every analysis the report ran: the wire's,
// the budget's and the lint's, then those of each optional section.
func (r *Result) Findings() []findings.Finding {
	out := r.Budget.Findings()
	if r.Bench != nil {
		out = append(out, r.Bench.Findings()...)
	}
	if r.Faults != nil {
		out = append(out, r.Faults.Findings()...)
	}
	if r.Malformed != nil {
		out = append(out, r.Malformed.Findings()...)
	}
	if r.Auth != nil {
		out = append(out, r.Auth.Findings()...)
	}
	// A call's own findings; its session's wire findings repeat the
	// probe's.
	for _, c := range r.Calls {
		for _, f := range c.Findings() {
			if d, ok := findings.Lookup(f.Code); ok && d.Origin == findings.OriginCall {
				out = append(out, f)
			}
		}
	}
	Canonical(out)
	return out
}

// Canonical orders findings most severe first, then by code, tool and
// message, numbers in a message compared as numbers: an order that only
// their content decides. Wire order would do for a server's tools, but
// events (notifications, server requests, unmatched replies) come in
// whatever order the server's goroutines or the event loop sent them,
// and a report must not change with that.
func Canonical(fs []findings.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := a.Severity.Rank(), b.Severity.Rank(); ra != rb {
			return ra > rb
		}
		if a.Code != b.Code {
			return a.Code.String() < b.Code.String()
		}
		if a.Tool != b.Tool {
			return naturalLess(a.Tool, b.Tool)
		}
		return naturalLess(a.Message, b.Message)
	})
}

// naturalLess compares strings with each run of digits taken as a number,
// so that "stdout line 9" comes before "stdout line 10".
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if da != db {
				return da < db // fewer leading zeros first
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digits is the length of the run of ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Counts is empty: report's gates are finding gates.
func (r *Result) Counts() map[string]int { return nil }
