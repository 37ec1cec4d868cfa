package reports

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/config"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// ConfigText is budget's and wire's text for --config FILE --all: each
// server's own text (budget) under its name, then the whole config's
// table and sums. Wire shows the table and totals only.
func ConfigText(w io.Writer, r *config.Result) {
	if !terminal.Verbose(w) {
		configAnswerFirst(w, r)
		return
	}
	fmt.Fprintf(w, "%s · %s format · %s (%d probed, %d failed, %d disabled) · in name order\n\n",
		terminal.Escape(r.Path), r.Format, plural(len(r.Servers), "server"), r.Probed(), r.Failed(), disabled(r))
	if r.Hosts {
		for _, s := range r.Servers {
			fmt.Fprintf(w, "=== server %s ===\n\n", terminal.Escape(s.Name))
			switch {
			case s.Disabled:
				fmt.Fprintln(w, "Disabled in the config (enabled = false): not run, not counted.")
			case s.Err != nil:
				failureText(w, terminal.Terminal, s.Err)
			default:
				if b, ok := s.Result.(*budget.Result); ok {
					BudgetText(w, b, false)
				}
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "=== whole config ===")
		fmt.Fprintln(w)
	}
	configServers(w, terminal.Terminal, r)
	fmt.Fprintln(w)
	if r.Hosts {
		configHosts(w, terminal.Terminal, r)
	} else {
		// wire shows no section per server: a failure's explanation is
		// here, under the table.
		for _, s := range r.Servers {
			if s.Err != nil {
				fmt.Fprintf(w, "Server %s: ", terminal.Escape(s.Name))
				failureText(w, terminal.Terminal, s.Err)
				fmt.Fprintln(w)
			}
		}
	}
	fmt.Fprintln(w, "Findings:")
	Findings(w, terminal.Terminal, SortFindings(r.Findings()))
}

// configAnswerFirst is ConfigText without --verbose: the answer, the
// whole config's tables, one line per server (budget: its answer and
// the tools not delivered whole), then every finding once, with the
// servers it applies to.
func configAnswerFirst(w io.Writer, r *config.Result) {
	fmt.Fprintf(w, "%s, %d probed, %d failed, %d disabled; %s\n",
		plural(len(r.Servers), "server"), r.Probed(), r.Failed(), disabled(r), findingCount(r.Findings()))
	fmt.Fprintf(w, "%s · %s format · in name order\n\n", terminal.Escape(r.Path), r.Format)
	configServers(w, terminal.Terminal, r)
	fmt.Fprintln(w)
	if r.Hosts {
		configHosts(w, terminal.Terminal, r)
	}
	for _, s := range r.Servers {
		switch {
		case s.Disabled:
			fmt.Fprintf(w, "server %s: disabled in the config (enabled = false): not run, not counted\n", terminal.Escape(s.Name))
		case s.Err != nil:
			fmt.Fprintf(w, "server %s: ", terminal.Escape(s.Name))
			failureText(w, terminal.Terminal, s.Err)
		default:
			if b, ok := s.Result.(*budget.Result); ok {
				fmt.Fprintf(w, "server %s: %s; %s\n", terminal.Escape(s.Name), BudgetVerdict(terminal.Terminal, b.Delivery, b.Capture), findingCount(b.Findings()))
				if len(b.FilteredOut) > 0 {
					var names []string
					for _, n := range b.FilteredOut {
						names = append(names, terminal.Escape(n))
					}
					fmt.Fprintf(w, "  Left out by the config's tool lists (not paid for): %s.\n", strings.Join(names, ", "))
				}
			}
		}
	}
	fmt.Fprintln(w, "\nFindings (each once, with the servers it applies to; --verbose: each server's own text):")
	groupedFindings(w, r)
}

// groupedFindings is the findings of every server and of the whole
// config, a finding several servers share in one row naming them.
func groupedFindings(w io.Writer, r *config.Result) {
	groups := findingGroups(r)
	if len(groups) == 0 {
		fmt.Fprintln(w, "No findings.")
		return
	}
	var fs []probe.Finding
	for _, g := range groups {
		fs = append(fs, g.named())
	}
	Findings(w, terminal.Terminal, SortFindings(fs))
}

// findingGroup is one finding and the servers that have it, in row
// order; none for a finding of the whole config.
type findingGroup struct {
	f       probe.Finding
	servers []string
}

// findingKey is what makes two servers' findings one: the same severity,
// code and message, the tool named in the message.
func findingKey(f probe.Finding) (string, probe.Finding) {
	if f.Tool != "" && !strings.Contains(f.Message, "`"+f.Tool+"`") {
		f.Message = "`" + f.Tool + "`: " + f.Message
		f.Tool = ""
	}
	return string(f.Severity) + "\x00" + f.Code.String() + "\x00" + f.Message, f
}

// findingGroups are the servers' findings, each once with the servers
// that have it, then the whole config's.
func findingGroups(r *config.Result) []*findingGroup {
	var groups []*findingGroup
	by := map[string]*findingGroup{}
	add := func(server string, f probe.Finding) {
		key, f := findingKey(f)
		g := by[key]
		if g == nil {
			g = &findingGroup{f: f}
			by[key] = g
			groups = append(groups, g)
		}
		if server != "" {
			g.servers = append(g.servers, server)
		}
	}
	for _, s := range r.Servers {
		if s.Result != nil {
			for _, f := range s.Result.Findings() {
				add(s.Name, f)
			}
		}
	}
	for _, f := range r.Whole() {
		add("", f)
	}
	return groups
}

// named is the finding with the servers that have it before its message.
func (g *findingGroup) named() probe.Finding {
	f := g.f
	if len(g.servers) == 0 {
		return f
	}
	var names []string
	for _, n := range g.servers {
		names = append(names, "`"+n+"`")
	}
	lead := "server "
	if len(g.servers) > 1 {
		lead = "servers "
	}
	f.Message = lead + strings.Join(names, ", ") + ": " + f.Message
	return f
}

// ConfigMarkdown is report --config FILE --all: the whole config's
// section, then each server's report a level down, its headings named
// after the server so that none repeats. What several servers' sections
// would each repeat is written once, in the whole config's: the findings
// they share (naming them), what the delivery tables' terms mean, and
// when the host profiles were measured. A subsection with nothing to
// list is left out.
func ConfigMarkdown(w io.Writer, r *config.Result, version, date string) {
	terminal.TidyTo(w, func(w io.Writer) {
		var shared, whole []probe.Finding
		own := map[string][]probe.Finding{}
		shares := map[string]bool{}
		for _, g := range findingGroups(r) {
			switch len(g.servers) {
			case 0:
				whole = append(whole, g.f)
			case 1:
				own[g.servers[0]] = append(own[g.servers[0]], g.f)
			default:
				shared = append(shared, g.named())
				for _, n := range g.servers {
					shares[n] = true
				}
			}
		}
		// The servers' sections first, to know what they would repeat.
		terms := map[string]bool{}
		var deliveries []budget.Delivery
		sections := make([][]byte, len(r.Servers))
		for i, s := range r.Servers {
			rr, ok := s.Result.(*report.Result)
			if !ok {
				continue
			}
			var b, d bytes.Buffer
			reportMarkdown(&terminal.Screen{W: &b, Verbose: terminal.Verbose(w)}, rr, version, reportParts{findings: own[s.Name], inConfig: true, shares: shares[s.Name]})
			demote(&d, saidOnce(b.Bytes(), terms), s.Name)
			sections[i] = d.Bytes()
			deliveries = append(deliveries, rr.Budget.Delivery)
		}

		fmt.Fprintf(w, "# %s — mcpprobe report of every server\n\n", terminal.MD(r.Path))
		fmt.Fprintf(w, "%s format · %s (%d probed, %d failed, %d disabled), in name order · mcpprobe %s · %s\n\n",
			r.Format, plural(len(r.Servers), "server"), r.Probed(), r.Failed(), disabled(r), version, date)
		fmt.Fprintln(w, "## Whole config")
		fmt.Fprintln(w)
		configServers(w, terminal.Markdown, r)
		fmt.Fprintln(w)
		configHosts(w, terminal.Markdown, r)
		if len(whole) > 0 {
			fmt.Fprintln(w, "### Findings of the whole config")
			fmt.Fprintln(w)
			Findings(w, terminal.Markdown, SortFindings(whole))
			fmt.Fprintln(w)
		}
		if len(shared) > 0 {
			fmt.Fprintln(w, "### Findings several servers share")
			fmt.Fprintln(w)
			Findings(w, terminal.Markdown, SortFindings(shared))
			fmt.Fprintln(w)
		}
		if len(shared)+len(whole)+len(own) == 0 {
			fmt.Fprintln(w, "No findings on any server, nor of the whole config.")
			fmt.Fprintln(w)
		}
		if len(terms) > 0 {
			fmt.Fprintln(w, "The servers' delivery tables below use these terms:")
			fmt.Fprintln(w)
			for i := range deliveryTerms {
				if l := "- " + legendItem(i); terms[l] {
					fmt.Fprintln(w, l)
				}
			}
			fmt.Fprintln(w)
		}
		if len(deliveries) > 0 {
			fmt.Fprintf(w, "Host profiles measured %s.\n", hostsMeasured(deliveries...))
		}
		for i, s := range r.Servers {
			fmt.Fprintln(w)
			switch {
			case s.Disabled:
				fmt.Fprintf(w, "## %s — disabled\n\nDisabled in the config (enabled = false): not run, not counted.\n", terminal.MD(s.Name))
			case s.Err != nil:
				fmt.Fprintf(w, "## %s — could not be probed\n\n", terminal.MD(s.Name))
				failureText(w, terminal.Markdown, s.Err)
			default:
				_, _ = w.Write(sections[i])
			}
		}
	})
}

// sharesLine stands in a server's section for the findings it shares
// with others, listed once in the whole config's.
const sharesLine = "Findings it shares with other servers are listed once, under the whole config's \"Findings several servers share\"."

// saidOnce drops from a server's section what the whole config's says
// once for all: the delivery table's terms (noted in terms, to be
// written there) and the note on "if loaded", which "By host" has.
func saidOnce(md []byte, terms map[string]bool) []byte {
	items := map[string]bool{}
	for i := range deliveryTerms {
		items["- "+legendItem(i)] = true
	}
	var out bytes.Buffer
	for _, l := range strings.SplitAfter(string(md), "\n") {
		t := strings.TrimRight(l, "\n")
		switch {
		case items[t]:
			terms[t] = true
		case t == ifLoadedNote:
		default:
			out.WriteString(l)
		}
	}
	return out.Bytes()
}

// demote writes a report's markdown a heading level down, every heading
// after the first suffixed with the server's name: markdownlint refuses
// two headings of one text in a document.
func demote(w io.Writer, md []byte, server string) {
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 0, 64<<10), len(md)+1)
	fence, first := "", true
	for sc.Scan() {
		l := sc.Text()
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "" && strings.HasPrefix(t, fence):
			fence = ""
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
		case fence == "" && strings.HasPrefix(l, "#"):
			if first {
				// "# NAME — mcpprobe report": two servers may have
				// one NAME; the config's name for each is unique.
				l = "## " + terminal.MD(server) + ": " + strings.TrimLeft(l, "# ")
			} else {
				l = "#" + l + " (" + terminal.MD(server) + ")"
			}
			first = false
		}
		fmt.Fprintln(w, l)
	}
}

func disabled(r *config.Result) int {
	n := 0
	for _, s := range r.Servers {
		if s.Disabled {
			n++
		}
	}
	return n
}

// failureText is a server's exit-3 explanation: what happened, what was
// received, what to try.
func failureText(w io.Writer, st terminal.Style, err error) {
	f := config.Explain(err)
	received, try := f.Received, f.Try
	if received == "" {
		received = "nothing more than the line above says"
	}
	if try == "" {
		try = "probe it alone (mcpprobe wire --config FILE NAME --trace FILE) and look at the last frames"
	}
	if st == terminal.Markdown {
		fmt.Fprintf(w, "- What happened: %s\n- Received: %s\n- Try: %s\n", terminal.MDMessage(oneLine(f.What)), terminal.MDMessage(oneLine(received)), terminal.MDMessage(oneLine(try)))
		return
	}
	lines := strings.Split(received, "\n")
	for i, l := range lines {
		lines[i] = terminal.Escape(strings.TrimLeft(l, " "))
	}
	fmt.Fprintf(w, "Could not be probed: %s\nReceived: %s\nTry: %s\n", terminal.Escape(f.What), strings.Join(lines, "\n  "), terminal.Escape(try))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// configServers is the table of every server: its status, tools, bytes
// and (budget, report) tokens, and the totals.
func configServers(w io.Writer, st terminal.Style, r *config.Result) {
	header := []string{"server", "status", "tools", "tools/list bytes"}
	if r.Hosts {
		header = append(header, "tokens as sent")
	}
	tools := map[string]budget.ServerTools{}
	for _, t := range r.Tools() {
		tools[t.Name] = t
	}
	var rows [][]string
	for _, s := range r.Servers {
		row := []string{code(st, s.Name)}
		switch {
		case s.Disabled:
			row = append(row, "disabled", "—", "—")
		case s.Err != nil:
			row = append(row, "failed: "+terminal.Message(st, firstLine(config.Explain(s.Err).What)), "—", "—")
		default:
			t := tools[s.Name]
			status, n := "probed", Num(len(t.Tools))
			if len(t.Filtered) > 0 {
				// The config's lists: the host shows the kept ones.
				status = fmt.Sprintf("probed, %d left out by the config", len(t.Filtered))
				n = fmt.Sprintf("%s of %s", Num(len(t.Tools)), Num(len(t.Tools)+len(t.Filtered)))
			}
			row = append(row, status, n, Num(t.Bytes))
		}
		if r.Hosts {
			if t, ok := tools[s.Name]; ok && s.Result != nil {
				row = append(row, "~"+Num(t.Tokens))
			} else {
				row = append(row, "—")
			}
		}
		rows = append(rows, row)
	}
	tt := r.Totals
	total := []string{"total", fmt.Sprintf("%d of %d probed", r.Probed(), len(r.Servers)), Num(tt.Tools), Num(tt.Bytes)}
	if r.Hosts {
		total = append(total, "~"+Num(tt.Tokens))
	}
	rows = append(rows, total)
	terminal.Table(w, st, header, rows, terminal.Left, terminal.Left, terminal.Right, terminal.Right, terminal.Right)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// configHosts is what each host makes of the sum: the tokens every
// request pays, whether it defers the tools, and the names it cannot
// take; then the collisions and long names one by one.
func configHosts(w io.Writer, st terminal.Style, r *config.Result) {
	tt := r.Totals
	if st == terminal.Markdown {
		fmt.Fprintln(w, "### By host")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Tokens are an o200k_base estimate of what each host pays on every request: every server's definitions as the host delivers them (after its cuts and drops, output schemas only where it delivers them, instructions where it delivers or prepends them, without the tools the config's lists leave out), added up. \"if loaded\": the host defers the tools behind a tool search, and this is what it pays once they are loaded; what it pays before a search is not sourced.")
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "By host (tokens: o200k_base estimate of every server's definitions as the host delivers them;")
		fmt.Fprintln(w, "\"if loaded\": the host defers them behind a tool search, and pays this once they are loaded):")
	}
	var rows [][]string
	for _, h := range tt.Hosts {
		if h.Host.ID == "all" {
			continue
		}
		search := h.ToolSearch
		switch {
		case h.Threshold > 0 && search == "defers":
			search = fmt.Sprintf("defers (over %s)", Num(h.Threshold))
		case h.Threshold > 0:
			search = fmt.Sprintf("loads all (under %s)", Num(h.Threshold))
		case search == "defers":
			search = "always defers"
		case search == "loads":
			search = "loads all"
		}
		names, over := "unknown", "—"
		if nr := h.Host.ToolNames; nr != nil {
			names = code(st, nr.Prefix) + fmt.Sprintf(", %d max", nr.MaxLen)
			over = Num(len(h.Over))
		}
		rows = append(rows, []string{terminal.Escape(h.Host.Name), "~" + Num(h.Tokens) + ifLoaded(h.IfLoaded), search, names, over, Num(len(h.Collisions))})
	}
	terminal.Table(w, st, []string{"host", "tokens every request", "tool search", "full tool name", "names it cannot take", "full-name collisions"}, rows,
		terminal.Left, terminal.Right, terminal.Left, terminal.Left, terminal.Right, terminal.Right)
	var filtered [][]string
	for _, t := range r.Tools() {
		if len(t.Filtered) > 0 {
			var names []string
			for _, n := range t.Filtered {
				names = append(names, code(st, n))
			}
			filtered = append(filtered, []string{code(st, t.Name), strings.Join(names, ", ")})
		}
	}
	if len(filtered) > 0 {
		fmt.Fprintln(w)
		if st == terminal.Markdown {
			fmt.Fprintln(w, "### Tools the config leaves out")
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Its include/exclude lists (Gemini CLI includeTools/excludeTools, Codex enabled_tools/disabled_tools): not paid for, not checked for names.")
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, "Tools the config's include/exclude lists leave out (not paid for, not checked for names):")
		}
		terminal.Table(w, st, []string{"server", "tools left out"}, filtered)
	}
	fmt.Fprintln(w)
	if len(tt.Collisions) > 0 {
		if st == terminal.Markdown {
			fmt.Fprintln(w, "### Tool names in more than one server")
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, "Tool names in more than one server:")
		}
		var rows [][]string
		for _, c := range tt.Collisions {
			var servers []string
			for _, t := range c.Tools {
				servers = append(servers, code(st, t.Server))
			}
			rows = append(rows, []string{code(st, c.Name), strings.Join(servers, ", ")})
		}
		terminal.Table(w, st, []string{"tool", "servers"}, rows)
		fmt.Fprintln(w)
	}
	var long [][]string
	for _, h := range tt.Hosts {
		if h.Host.ID == "all" {
			continue
		}
		for _, c := range h.Collisions {
			var tools []string
			for _, t := range c.Tools {
				tools = append(tools, code(st, t.Server)+"/"+code(st, t.Tool))
			}
			long = append(long, []string{terminal.Escape(h.Host.Name), code(st, c.Name), "shared by " + strings.Join(tools, ", ")})
		}
		for _, l := range h.Over {
			nr := h.Host.ToolNames
			what := fmt.Sprintf("%d chars, over %d: %s", l.Len, nr.MaxLen, strings.ReplaceAll(nr.OverLimit, "_", " "))
			if l.Refused {
				what = "characters outside " + code(st, "["+nr.Allowed+"]") + ": refused"
			}
			long = append(long, []string{terminal.Escape(h.Host.Name), code(st, l.Full), what})
		}
	}
	if len(long) > 0 {
		if st == terminal.Markdown {
			fmt.Fprintln(w, "### Full tool names a host cannot take")
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, "Full tool names a host cannot take:")
		}
		terminal.Table(w, st, []string{"host", "full name", "why"}, long)
		fmt.Fprintln(w)
	}
	var srcs []string
	for _, h := range tt.Hosts {
		if h.Host.ID == "all" {
			continue
		}
		if s := h.Host.ToolNames; s != nil {
			srcs = append(srcs, fmt.Sprintf("%s names: %s (%s)", h.Host.Name, s.Source, s.Date))
		}
		if s := h.Host.ToolSearch; s != nil {
			srcs = append(srcs, fmt.Sprintf("%s tool search: %s (%s)", h.Host.Name, s.Source, s.Date))
		}
	}
	if len(srcs) > 0 {
		if st == terminal.Markdown {
			fmt.Fprintln(w, "Host rules and their sources:")
			fmt.Fprintln(w)
			for _, s := range srcs {
				fmt.Fprintln(w, "- "+terminal.MDMessage(s))
			}
		} else {
			fmt.Fprintln(w, "Host rules and their sources:")
			for _, s := range srcs {
				fmt.Fprintln(w, "  "+terminal.Escape(s))
			}
		}
		fmt.Fprintln(w)
	}
}

// ConfigSection is the --json section of --config FILE --all: every
// server's own section (or its failure) and the totals.
func ConfigSection(r *config.Result) []byte {
	o := &jsonout.Object{}
	o.Set("config", r.Path).Set("format", string(r.Format)).Set("all", true).Set("jobs", r.Jobs).Set("order", "name")
	tools := map[string]budget.ServerTools{}
	for _, t := range r.Tools() {
		tools[t.Name] = t
	}
	var servers [][]byte
	for _, s := range r.Servers {
		so := &jsonout.Object{}
		so.Set("name", s.Name)
		switch {
		case s.Disabled:
			so.Set("status", "disabled").Set("filtered_out", []string{}).Raw("result", nil).Raw("error", nil)
		case s.Err != nil:
			f := config.Explain(s.Err)
			so.Set("status", "failed").Set("filtered_out", []string{}).Raw("result", nil)
			so.Raw("error", (&jsonout.Object{}).Set("what", f.What).Set("received", jsonout.NullIfEmpty(f.Received)).Set("try", jsonout.NullIfEmpty(f.Try)).Bytes())
		default:
			so.Set("status", "probed")
			so.Set("filtered_out", nonNil(tools[s.Name].Filtered))
			switch v := s.Result.(type) {
			case *budget.Result:
				so.Raw("result", BudgetSection(v))
			case *report.Result:
				so.Raw("result", ReportSection(v))
			case *wire.Result:
				so.Raw("result", WireSection(v.Capture))
			}
			so.Raw("error", nil)
		}
		servers = append(servers, so.Bytes())
	}
	o.Raw("servers", jsonout.RawArray(servers))
	tt := r.Totals
	to := &jsonout.Object{}
	to.Set("servers", len(r.Servers)).Set("probed", r.Probed()).Set("failed", r.Failed()).Set("disabled", disabled(r))
	to.Set("tools", tt.Tools).Set("bytes", tt.Bytes)
	if r.Hosts {
		to.Set("tokens", tt.Tokens)
		var cols [][]byte
		for _, c := range tt.Collisions {
			cols = append(cols, collisionJSON(c))
		}
		to.Raw("collisions", jsonout.RawArray(cols))
		var hosts [][]byte
		for _, h := range tt.Hosts {
			if h.Host.ID == "all" {
				continue
			}
			ho := &jsonout.Object{}
			ho.Set("host", h.Host.ID).Set("name", h.Host.Name).Set("tokens", h.Tokens).Set("instructions_tokens", h.Instructions).Set("if_loaded", h.IfLoaded).Set("tool_search", h.ToolSearch)
			ho.Set("threshold_tokens", jsonout.NsOrNull(int64(h.Threshold), h.Threshold > 0))
			if s := h.Host.ToolSearch; s != nil {
				ho.Set("tool_search_rule", s)
			} else {
				ho.Raw("tool_search_rule", nil)
			}
			if nr := h.Host.ToolNames; nr != nil {
				ho.Set("tool_names_rule", nr)
			} else {
				ho.Raw("tool_names_rule", nil)
			}
			var over [][]byte
			for _, l := range h.Over {
				over = append(over, (&jsonout.Object{}).Set("server", l.Server).Set("tool", l.Tool).Set("full_name", l.Full).
					Set("len", l.Len).Set("refused", l.Refused).Bytes())
			}
			ho.Raw("names_over_limit", jsonout.RawArray(over))
			var hc [][]byte
			for _, c := range h.Collisions {
				hc = append(hc, collisionJSON(c))
			}
			ho.Raw("full_name_collisions", jsonout.RawArray(hc))
			hosts = append(hosts, ho.Bytes())
		}
		to.Raw("hosts", jsonout.RawArray(hosts))
	} else {
		to.Raw("tokens", nil)
	}
	o.Raw("totals", to.Bytes())
	return o.Bytes()
}

func collisionJSON(c budget.Collision) []byte {
	var tools [][]byte
	for _, t := range c.Tools {
		tools = append(tools, (&jsonout.Object{}).Set("server", t.Server).Set("tool", t.Tool).Bytes())
	}
	return (&jsonout.Object{}).Set("name", c.Name).Raw("tools", jsonout.RawArray(tools)).Bytes()
}
