package reports

import (
	"bytes"
	"fmt"
	"io"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// ReportMarkdown writes the whole markdown report. Sections appear in a
// fixed order and everything in them is in wire order or sorted, so the
// same server gives the same report. The findings of every analysis are
// shown together at the top.
func ReportMarkdown(w io.Writer, r *report.Result, version string) {
	terminal.TidyTo(w, func(w io.Writer) { reportMarkdown(w, r, version, reportParts{findings: r.Findings()}) })
}

// reportParts say what of a report is written in its own section: all of
// it for a report of one server; in a report of every server of a host
// config, what is the same for several servers is written once, above.
type reportParts struct {
	findings []probe.Finding // the findings its section lists
	// inConfig: one server's section of report --config FILE --all. Its
	// findings subsection is left out when it lists none, and a line says
	// when it shares some; the host profiles' date is the config's.
	inConfig bool
	shares   bool // it has findings listed once, as several servers'
}

func reportMarkdown(w io.Writer, r *report.Result, version string, parts reportParts) {
	c := r.Wire.Capture
	fmt.Fprintf(w, "# %s — mcpprobe report\n\n", terminal.MD(ServerName(c)))
	// The answer first, under the title markdown wants there; no counts
	// of findings, so that one finding more changes one line only.
	fmt.Fprintf(w, "%s.\n\n", BudgetVerdict(terminal.Markdown, r.Budget.Delivery, c))
	fmt.Fprintf(w, "Probed %s over %s · %s · mcpprobe %s · %s\n\n",
		terminal.Code(c.Target), c.Transport, protocolLine(terminal.Markdown, c), version, r.Date)
	section := func(title string) { fmt.Fprintf(w, "\n## %s\n\n", title) }
	if !parts.inConfig || len(parts.findings) > 0 {
		fmt.Fprintln(w, "## Findings")
		fmt.Fprintln(w)
		Findings(w, terminal.Markdown, SortFindings(parts.findings))
		fmt.Fprintln(w)
	}
	if parts.shares {
		fmt.Fprintln(w, sharesLine)
	}
	section("Wire")
	Wire(w, terminal.Markdown, c)

	section("Delivery by host")
	b := r.Budget
	Delivery(w, terminal.Markdown, b.Delivery, c)
	fmt.Fprintln(w)
	if b.Tokens != nil {
		Tokens(w, terminal.Markdown, c, *b.Tokens)
		HostTokens(w, terminal.Markdown, b)
	}
	budgetSkills(w, terminal.Markdown, b.Skills)
	if !parts.inConfig {
		fmt.Fprintf(w, "Host profiles measured %s.\n", hostsMeasured(b.Delivery))
	}

	if d := r.Diff; d != nil {
		section("Diff against " + terminal.Code(d.Ref.Label))
		Diff(w, terminal.Markdown, d.Comparison, d.Ref.Label, "the server")
	}
	if r.Bench != nil {
		section("Latency")
		fmt.Fprint(w, "These figures are timings: unlike the rest of the report they change from run to run and machine to machine, and so do the findings about them. A report with this section (`--bench`) is not stable under `report --check`: commit one without it.\n\n")
		Bench(w, terminal.Markdown, r.Bench)
	}
	if r.Faults != nil || r.FaultsNot != "" {
		section("Faults")
		if r.Faults != nil {
			FaultScenarios(w, terminal.Markdown, r.Faults)
		} else {
			fmt.Fprintln(w, "Not run: "+terminal.MDMessage(r.FaultsNot)+". Run `mcpprobe faults --call NAME` to choose one.")
		}
	}
	if r.Malformed != nil {
		section("Malformed calls")
		Malformed(w, terminal.Markdown, r.Malformed)
	}
	if r.Auth != nil {
		section("Authorization")
		AuthzSection(w, r.Auth)
	}
	if len(r.Calls) > 0 {
		section("Calls")
		Calls(w, r.Calls)
	}
}

// ReportSection is report's --json section: the date, then each section
// the markdown shows, as its own command's section (wire, budget, diff),
// and the extras under their keys (bench, faults, malformed).
func ReportSection(r *report.Result) []byte {
	o := &jsonout.Object{}
	o.Set("date", r.Date)
	o.Raw("wire", WireSection(r.Wire.Capture))
	o.Raw("budget", BudgetSection(r.Budget))
	if r.Diff != nil {
		o.Raw("diff", DiffSection(r.Diff))
	}
	ranSections(o, r.Bench, r.Faults, r.FaultsNot, r.Malformed)
	if r.Auth != nil {
		o.Raw("auth", AuthzJSON(r.Auth))
	}
	if len(r.Calls) > 0 {
		calls := make([][]byte, len(r.Calls))
		for i, c := range r.Calls {
			calls[i] = CallJSON(c)
		}
		o.Raw("calls", jsonout.RawArray(calls))
	}
	return o.Bytes()
}

// hostsMeasured is the range of dates the host profiles were measured on.
func hostsMeasured(ds ...budget.Delivery) string {
	lo, hi := "", ""
	for _, d := range ds {
		for _, hr := range d.Hosts {
			m := hr.Host.MeasuredOn
			if m == "" {
				continue
			}
			if lo == "" || m < lo {
				lo = m
			}
			if m > hi {
				hi = m
			}
		}
	}
	if lo == hi {
		return lo
	}
	return lo + " to " + hi
}

// ranSections adds the sections that a report and a survey record both
// carry when their runs were asked for: bench, faults (or why none ran)
// and malformed.
func ranSections(o *jsonout.Object, b *bench.Result, f *faults.ScenarioResult, faultsNot string, m *malformed.Result) {
	if b != nil {
		o.Raw("bench", bytes.TrimSpace(BenchJSON(b)))
	}
	if f != nil || faultsNot != "" {
		o.Raw("faults", FaultScenariosJSON(f, faultsNot))
	}
	if m != nil {
		o.Raw("malformed", bytes.TrimSpace(MalformedJSON(m)))
	}
}
