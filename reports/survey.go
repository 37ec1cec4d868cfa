package reports

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"

	"github.com/mcpprobe/mcpprobe/probe/survey"
	"github.com/mcpprobe/mcpprobe/transport"
)

// SurveyLine is one survey record as its JSON line: the envelope (command
// "survey") with the record under "survey", every secret of the entry
// hidden, and a newline. Everything that varies from run to run is under
// survey.timings (and wire.timings inside it), so a test can blank it.
func SurveyLine(version string, r *survey.Record) []byte {
	env := jsonout.Envelope{Version: version, Command: survey.Command, Target: r.Target, ProtocolVersion: r.Protocol, Findings: r.Findings}
	line := env.JSON(SurveySection(r))
	line, redacted := transport.NewRedactor(r.Secrets).Bytes(line)
	if redacted && len(line) > 1 {
		// As --json says it: the record is no longer what the server sent.
		line = append(line[:len(line)-2:len(line)-2], ",\"redacted\":true}\n"...)
	}
	return line
}

// SurveySection is a record's section: survey.Section, with the --with
// sections rendered as --json renders them (fields in docs/reference.md).
func SurveySection(r *survey.Record) []byte {
	s := r.Section()
	if r.Bench != nil {
		s.Bench = bytes.TrimSpace(BenchJSON(r.Bench))
	}
	if r.Faults != nil || r.FaultsNot != "" {
		s.Faults = FaultScenariosJSON(r.Faults, r.FaultsNot)
	}
	if r.Malformed != nil {
		s.Malformed = bytes.TrimSpace(MalformedJSON(r.Malformed))
	}
	return (&jsonout.Object{}).Fields(s).Bytes()
}

// SurveySummary writes the census of a survey as markdown: the kind of
// tables a study of an ecosystem publishes.
func SurveySummary(w io.Writer, c *survey.Census) {
	fmt.Fprintf(w, "# MCP server survey\n\n")
	var files []string
	for _, f := range c.Files {
		files = append(files, filepath.Base(f))
	}
	fmt.Fprintf(w, "%s records read from %s: %s probed, %s failed.\n\n", Num(c.Records), terminal.MD(strings.Join(files, ", ")), Num(c.OK), Num(c.Failed))

	fmt.Fprintf(w, "## Servers\n\n")
	rows := [][]string{{"probed", Num(c.OK), pct(c.OK, c.Records), "wire and budget ran to their end"}}
	for _, cause := range survey.Causes {
		if n := c.ByCause[cause]; n > 0 {
			rows = append(rows, []string{"failed: " + terminal.Code(cause), Num(n), pct(n, c.Records), survey.CauseMeaning[cause]})
		}
	}
	for _, cause := range sortedKeys(c.ByCause) {
		if !contains(survey.Causes, cause) {
			rows = append(rows, []string{"failed: " + terminal.Code(cause), Num(c.ByCause[cause]), pct(c.ByCause[cause], c.Records), "a cause this mcpprobe does not know"})
		}
	}
	terminal.Table(w, terminal.Markdown, []string{"outcome", "servers", "share", "meaning"}, rows, terminal.Left, terminal.Right, terminal.Right, terminal.Left)
	fmt.Fprintln(w)
	if len(c.Transports) > 0 {
		rows = nil
		for _, k := range sortedKeys(c.Transports) {
			rows = append(rows, []string{"transport " + terminal.Code(k), Num(c.Transports[k])})
		}
		for _, k := range sortedKeys(c.Protocols) {
			rows = append(rows, []string{"protocol " + terminal.Code(k), Num(c.Protocols[k])})
		}
		terminal.Table(w, terminal.Markdown, []string{"reached over", "servers"}, rows, terminal.Left, terminal.Right)
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "## Tools\n\n")
	fmt.Fprintf(w, "%s tools on %s servers probed; %s of them paginate `tools/list`.\n\n", Num(c.Tools), Num(c.OK), Num(c.Paginated))
	rows = [][]string{
		distRow("tools per server", survey.Distribution(c.ToolsPerServer)),
		distRow("tool definitions per server (bytes)", survey.Distribution(c.DefinitionBytes)),
		distRow("definition tokens per server (o200k estimate)", survey.Distribution(c.Tokens)),
		distRow("description length (UTF-16 units)", survey.Distribution(c.DescriptionUTF16)),
	}
	terminal.Table(w, terminal.Markdown, []string{"distribution", "n", "min", "p50", "p90", "p99", "max"}, rows,
		terminal.Left, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right)
	fmt.Fprintln(w)
	if c.DescriptionsKept < c.Tools {
		fmt.Fprintf(w, "Description lengths are those of the first %s tools of each server (%s of %s tools).\n\n", Num(survey.MaxToolsKept), Num(c.DescriptionsKept), Num(c.Tools))
	}

	fmt.Fprintf(w, "## What each host delivers\n\n")
	if len(c.Hosts) == 0 {
		fmt.Fprintf(w, "No server was probed to its end.\n\n")
	} else {
		rows = nil
		for _, h := range c.Hosts {
			rows = append(rows, []string{terminal.Code(h.ID), Num(h.Tools), Num(h.Cut), pct(h.Cut, h.Tools), Num(h.ServersCut), pct(h.ServersCut, h.Servers), Num(h.SchemaDrops), Num(h.InstructionsNotDelivered), pct(h.InstructionsNotDelivered, h.Servers)})
		}
		terminal.Table(w, terminal.Markdown, []string{"host", "tools", "tools cut", "share of tools", "servers with a cut", "share of servers", "schema drops", "instructions not delivered", "share of servers"}, rows,
			terminal.Left, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right)
		fmt.Fprintln(w)
		paid := false
		for _, h := range c.Hosts {
			paid = paid || len(h.Tokens) > 0
		}
		if paid {
			fmt.Fprintf(w, "## What each host pays\n\n")
			fmt.Fprintf(w, "Tokens every request pays for one server's definitions on each host, as that host delivers them (after its cuts and drops, with the instructions where it delivers or prepends them): an o200k_base estimate. \"If loaded\" counts the servers whose tools the host defers behind a tool search; for those the figure is what it pays once they are loaded.\n\n")
			rows = nil
			for _, h := range c.Hosts {
				p := survey.Distribution(h.Tokens)
				row := distRow(terminal.Code(h.ID), p)
				rows = append(rows, append(row, Num(h.IfLoaded)))
			}
			terminal.Table(w, terminal.Markdown, []string{"host", "n", "min", "p50", "p90", "p99", "max", "if loaded"}, rows,
				terminal.Left, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right, terminal.Right)
			fmt.Fprintln(w)
		}
	}

	fmt.Fprintf(w, "## On the wire\n\n")
	terminal.Table(w, terminal.Markdown, []string{"seen", "servers", "share of servers probed"}, [][]string{
		{"stdout noise (lines that are not JSON-RPC: " + Num(c.NoiseLines) + ")", Num(c.Noise), pct(c.Noise, c.OK)},
		{"anything on stderr", Num(c.Stderr), pct(c.Stderr, c.OK)},
	}, terminal.Left, terminal.Right, terminal.Right)
	fmt.Fprintln(w)

	fmt.Fprintf(w, "## Findings\n\n")
	if len(c.Finding) == 0 {
		fmt.Fprintf(w, "No findings.\n\n")
	} else {
		rows = nil
		for _, origin := range []findings.Origin{findings.OriginBudget, findings.OriginLint, findings.OriginWire, findings.OriginBench, findings.OriginFaults, findings.OriginMalformed} {
			for _, k := range sortedKeys(c.Finding) {
				if survey.Origin(k) == origin {
					rows = append(rows, []string{string(origin), terminal.Code(k), Num(c.FindingServers[k]), pct(c.FindingServers[k], c.Records), Num(c.Finding[k])})
				}
			}
		}
		terminal.Table(w, terminal.Markdown, []string{"origin", "code", "servers", "share of servers surveyed", "findings"}, rows,
			terminal.Left, terminal.Left, terminal.Right, terminal.Right, terminal.Right)
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "## SDK artefacts\n\n")
	rows = nil
	for _, k := range survey.SDKArtefactKeys {
		rows = append(rows, []string{survey.SDKArtefactMeaning[k], Num(c.SDK[k]), pct(c.SDK[k], c.OK), Num(c.SDKTools[k])})
	}
	terminal.Table(w, terminal.Markdown, []string{"artefact", "servers", "share of servers probed", "tools"}, rows,
		terminal.Left, terminal.Right, terminal.Right, terminal.Right)
}

func distRow(name string, p survey.Percentiles) []string {
	if p.N == 0 {
		return []string{name, "0", "—", "—", "—", "—", "—"}
	}
	return []string{name, Num(p.N), Num(p.Min), Num(p.P50), Num(p.P90), Num(p.P99), Num(p.Max)}
}

func pct(n, of int) string {
	if of == 0 {
		return "—"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
