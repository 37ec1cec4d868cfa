package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// Answer first: every command's text starts with a line that says what
// it found, and its tables then show only what differs from that. Rows
// that all say the same fold into one line naming what they cover;
// --verbose (Screen.Verbose) writes every row, and --json keeps all.

// findingCount is the findings in a few words: "2 warnings, 1 info", or
// "no findings".
func findingCount(fs []probe.Finding) string {
	n := map[string]int{}
	for _, f := range fs {
		n[string(f.Severity)]++
	}
	var parts []string
	for _, s := range []string{"error", "warning", "info"} {
		if n[s] > 0 {
			word := s
			if n[s] > 1 {
				word += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n[s], word))
		}
	}
	if len(parts) == 0 {
		return "no findings"
	}
	return strings.Join(parts, ", ")
}

// deliveryVerdict is what the hosts with a known rule do with a result,
// in a phrase.
func deliveryVerdict(ds []result.Delivery) string {
	byOutcome := map[string][]string{}
	var order []string
	known := 0
	for _, d := range ds {
		if d.Outcome == result.Unknown {
			continue
		}
		known++
		if byOutcome[d.Outcome] == nil {
			order = append(order, d.Outcome)
		}
		byOutcome[d.Outcome] = append(byOutcome[d.Outcome], d.HostName)
	}
	switch {
	case known == 0:
		return "no host's delivery rule is known"
	case len(order) == 1 && order[0] == result.Whole:
		return "whole on every known host"
	}
	var parts []string
	for _, o := range order {
		parts = append(parts, o+" on "+strings.Join(byOutcome[o], ", "))
	}
	return strings.Join(parts, "; ")
}

// policyVerdict is what the timeout policies make of a call, in a phrase.
func policyVerdict(vs []result.Verdict) string {
	byOutcome := map[string][]string{}
	var order []string
	for _, v := range vs {
		if byOutcome[v.Outcome] == nil {
			order = append(order, v.Outcome)
		}
		byOutcome[v.Outcome] = append(byOutcome[v.Outcome], v.Policy.Name)
	}
	if len(order) == 1 {
		return order[0] + " every timeout policy"
	}
	var parts []string
	for _, o := range order {
		parts = append(parts, o+" on "+strings.Join(byOutcome[o], ", "))
	}
	return strings.Join(parts, "; ")
}

// foldedLine writes one line for rows that all say the same: "label:
// what on a, b, c (why)".
func foldedLine(w io.Writer, st terminal.Style, label, what string, names []string, why string) {
	for i, n := range names {
		names[i] = terminal.Plain(st, n)
	}
	s := fmt.Sprintf("%s: %s on %s", label, what, strings.Join(names, ", "))
	if why != "" {
		s += " (" + terminal.Plain(st, why) + ")"
	}
	fmt.Fprintln(w, s)
}
