// Package report runs every analysis the committed report shows, on one
// probe of the server: the wire, the delivery budget and lint, a diff
// against a reference, and the sections other commands add.
package report

import (
	"context"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/wire"
)

// Options are the report command's.
type Options struct {
	wire.Options
	Hosts []budget.Host // for the delivery section, as budget takes them
	Ref   string        // a reference file: adds the diff section
	Date  string        // YYYY-MM-DD the report is dated
	// Extras run after the report's own analyses, in order, each adding a
	// section.
	Extras []Extra
}

// Extra is an analysis of another command run for the report (bench,
// faults, malformed).
//
// Interim (issue 10, wave 2): those commands become Options → Run →
// Result at the same time as this one, so the CLI hands them in as
// closures over what it has today. Once they land, report runs bench.Run,
// faults.Run and malformed.Run itself, Result gets a typed field for each,
// and Extra and Section go.
type Extra struct {
	Key string // "bench", "faults" or "malformed"
	Run func(ctx context.Context) (Section, error)
}

// Section is what an Extra adds: its findings, and how it renders.
type Section struct {
	Key      string // its key in report --json
	Title    string // its heading in the markdown
	Findings []findings.Finding
	Markdown func(w io.Writer)
	JSON     []byte // its object in report --json
}

// Result is everything the report shows.
type Result struct {
	Date   string
	Wire   *wire.Result
	Budget *budget.Result
	Diff   *diff.Result // nil without Options.Ref
	Extras []Section
}

// Run reads the reference (a bad one stops the run before any server
// starts), probes the server once, and runs every analysis on that
// capture, then the extras.
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
	r := &Result{Date: o.Date, Wire: w, Budget: budget.Analyse(w.Capture, o.Hosts, nil)}
	if ref != nil {
		live := diff.FromCapture(w.Capture, o.Target.Display())
		r.Diff = &diff.Result{Comparison: diff.Compare(*ref, live), Ref: *ref, Live: live, Capture: w.Capture}
	}
	for _, e := range o.Extras {
		s, err := e.Run(ctx)
		if err != nil {
			return nil, err
		}
		if s.Key == "" {
			s.Key = e.Key
		}
		r.Extras = append(r.Extras, s)
	}
	return r, nil
}

// Findings are every finding of every analysis the report ran: the wire's,
// the budget's, the lint's, then each extra section's.
func (r *Result) Findings() []findings.Finding {
	out := r.Budget.Findings()
	for _, s := range r.Extras {
		out = append(out, s.Findings...)
	}
	return out
}

// Counts is empty: report's gates are finding gates.
func (r *Result) Counts() map[string]int { return nil }
