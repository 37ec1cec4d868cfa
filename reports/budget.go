package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/tokens"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
)

// BudgetText is budget's text: the delivery table, the token cost, the
// cut texts when showCut is set, and the budget's and lint's findings.
func BudgetText(w io.Writer, r *budget.Result, showCut bool) {
	c := r.Capture
	fmt.Fprintf(w, "%s; %s\n", BudgetVerdict(terminal.Terminal, r.Delivery, c), findingCount(r.Findings()))
	fmt.Fprintf(w, "%s · %s tools · what each host delivers (description length in UTF-16 units)\n\n", terminal.Escape(ServerName(c)), Num(len(c.Tools.Items)))
	Delivery(w, terminal.Terminal, r.Delivery, c)
	fmt.Fprintln(w)
	if r.Tokens != nil {
		Tokens(w, terminal.Terminal, c, *r.Tokens)
		if terminal.Verbose(w) {
			TokenTable(w, terminal.Terminal, *r.Tokens)
			fmt.Fprintln(w)
			HostTokens(w, terminal.Terminal, r)
		} else {
			largest(w, *r.Tokens)
			hostTokensLine(w, r)
		}
	}
	if showCut {
		ShowCut(w, r.Delivery)
	}
	budgetSkills(w, terminal.Terminal, r.Skills)
	// Every finding budget's gates count: the wire's, the budget's and
	// the lint's, as the report lists them.
	fmt.Fprintln(w, "Findings:")
	Findings(w, terminal.Terminal, SortFindings(r.Findings()))
}

// BudgetView is budget --view: the markdown of what one host delivers.
func BudgetView(w io.Writer, r *budget.Result) {
	if r.View != nil {
		terminal.TidyTo(w, func(w io.Writer) { View(w, *r.View, r.Capture) })
	}
}

// BudgetVerdict is budget's answer in a phrase: how many tools, and
// which of them some host cuts or drops the property descriptions of.
// Only real hosts count: a tool that only the derived "all" column cuts
// (the strictest of every host at once, which no host is) is named as
// such, and a tool with no description has nothing to cut.
func BudgetVerdict(st terminal.Style, r budget.Delivery, c *probe.Capture) string {
	ts := wire.Tools(c)
	s := plural(len(ts), "tool")
	if len(r.Hosts) == 0 {
		return s
	}
	var cut, allOnly, none []string
	for i, t := range ts {
		switch {
		case !t.HasDescription && !schemaDropped(r, i):
			none = append(none, code(st, t.Name))
		case !deliveredWholeOn(r, i, false):
			cut = append(cut, code(st, t.Name))
		case !deliveredWholeOn(r, i, true):
			allOnly = append(allOnly, code(st, t.Name))
		}
	}
	whole := len(ts) - len(cut) - len(none)
	switch {
	case len(ts) == 0:
	case len(cut) == 0 && len(none) == 0:
		s += ", delivered whole on every known host"
	case whole == 0 && len(none) == 0:
		s += ", none delivered whole on every host"
	default:
		s = fmt.Sprintf("%s, %d delivered whole on every known host", s, whole)
		if len(cut) > 0 {
			s += "; not whole somewhere: " + strings.Join(cut, ", ")
		}
		if len(none) > 0 {
			s += "; no description: " + strings.Join(none, ", ")
		}
	}
	if len(allOnly) > 0 {
		s += "; cut only on the strictest combination (all): " + strings.Join(allOnly, ", ")
	}
	var instrCut []string
	for _, hr := range r.Hosts {
		if hr.Instructions.Mode == "cut" {
			instrCut = append(instrCut, hr.Host.ID)
		}
	}
	if len(instrCut) > 0 {
		s += "; instructions cut on " + strings.Join(instrCut, ", ")
	}
	return s
}

// deliveredWhole is whether every host, "all" included, delivers tool
// i's description whole and keeps its schema's property descriptions.
func deliveredWhole(r budget.Delivery, i int) bool {
	for _, hr := range r.Hosts {
		t := hr.Tools[i]
		if t.Description.Describe() != "whole" || t.Schema.Dropped {
			return false
		}
	}
	return true
}

// deliveredWholeOn is deliveredWhole over the real hosts, and over the
// derived "all" column too when withAll.
func deliveredWholeOn(r budget.Delivery, i int, withAll bool) bool {
	if withAll {
		return deliveredWhole(r, i)
	}
	for _, hr := range r.Hosts {
		t := hr.Tools[i]
		if hr.Host.ID != "all" && (t.Description.Describe() != "whole" || t.Schema.Dropped) {
			return false
		}
	}
	return true
}

// schemaDropped is whether some real host drops tool i's property
// descriptions.
func schemaDropped(r budget.Delivery, i int) bool {
	for _, hr := range r.Hosts {
		if hr.Host.ID != "all" && hr.Tools[i].Schema.Dropped {
			return true
		}
	}
	return false
}

// largest names the three tools that cost the most tokens (--verbose
// has the table of every tool).
func largest(w io.Writer, d tokens.Definitions) {
	if len(d.Tools) < 2 {
		return
	}
	ts := append([]tokens.Tool(nil), d.Tools...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Tokens > ts[j].Tokens })
	var parts []string
	for _, t := range ts[:min(3, len(ts))] {
		parts = append(parts, fmt.Sprintf("%s %s", terminal.Escape(t.Name), Num(t.Tokens)))
	}
	fmt.Fprintf(w, "largest: %s\n", strings.Join(parts, ", "))
}

// hostTokensLine is HostTokens' table on one line.
func hostTokensLine(w io.Writer, r *budget.Result) {
	if len(r.FilteredOut) > 0 {
		var names []string
		for _, n := range r.FilteredOut {
			names = append(names, terminal.Escape(n))
		}
		fmt.Fprintf(w, "Left out by the config's tool lists (not paid for): %s.\n", strings.Join(names, ", "))
	}
	if len(r.HostTokens) == 0 {
		fmt.Fprintln(w)
		return
	}
	names := map[string]string{}
	for _, hr := range r.Delivery.Hosts {
		names[hr.Host.ID] = hr.Host.Name
	}
	// Hosts that pay the same are named once, in their first host's
	// place: with twenty profiles most pay what the server sent.
	type cost struct {
		tokens   int
		deferred bool
	}
	var order []cost
	hostsOf := map[cost][]string{}
	deferred := false
	for _, h := range r.HostTokens {
		c := cost{h.Tokens, h.Deferred}
		if _, ok := hostsOf[c]; !ok {
			order = append(order, c)
		}
		hostsOf[c] = append(hostsOf[c], terminal.Escape(names[h.Host]))
		deferred = deferred || h.Deferred
	}
	var parts []string
	for _, c := range order {
		hs := hostsOf[c]
		who := strings.Join(hs, ", ")
		if len(hs) > 3 {
			who = fmt.Sprintf("%s and %d more hosts", hs[0], len(hs)-1)
		}
		parts = append(parts, fmt.Sprintf("%s ~%s%s", who, Num(c.tokens), ifLoaded(c.deferred)))
	}
	fmt.Fprintf(w, "each request costs: %s\n", strings.Join(parts, "; "))
	switch {
	case deferred:
		fmt.Fprintln(w, "(\"if loaded\": behind a tool search, once loaded; --verbose: each host, the instructions apart)")
	case len(parts) < len(r.HostTokens):
		fmt.Fprintln(w, "(--verbose: each host, the instructions apart)")
	}
	fmt.Fprintln(w)
}

// Delivery writes one table of every tool against every host: how much
// of each description reaches the model, and the instructions below.
func Delivery(w io.Writer, st terminal.Style, r budget.Delivery, c *probe.Capture) {
	if len(r.Hosts) == 0 {
		return
	}
	// A host with no known rule for descriptions nor instructions would
	// show "whole" everywhere, a guess: it gets no column, one line.
	var unknown []string
	shown := r.Hosts[:0:0]
	for _, hr := range r.Hosts {
		if hr.Host.Description.Rule == "unknown" && hr.Host.Instructions.Rule == "unknown" {
			unknown = append(unknown, hr.Host.ID)
			continue
		}
		shown = append(shown, hr)
	}
	defer func() {
		if len(unknown) > 0 {
			// On a terminal a count (the budget fits a screen); in a
			// report every name.
			if st == terminal.Markdown {
				fmt.Fprintf(w, "No column for %d hosts with no known description or instructions rule (their figures count the texts whole): %s.\n", len(unknown), strings.Join(unknown, ", "))
			} else {
				fmt.Fprintf(w, "No column for %d hosts with no known description or instructions rule (mcpprobe hosts lists them).\n", len(unknown))
			}
			if st == terminal.Markdown {
				fmt.Fprintln(w)
			}
		}
	}()
	r.Hosts = shown
	if len(r.Hosts) == 0 {
		return
	}
	header := []string{"tool", "description (UTF-16)"}
	for _, hr := range r.Hosts {
		header = append(header, hr.Host.ID)
	}
	var rows [][]string
	folded := 0
	deferredOn := map[string]bool{}
	for i, t := range wire.Tools(c) {
		if !terminal.Verbose(w) && deliveredWhole(r, i) {
			// Tools delivered whole everywhere fold into one line.
			folded++
			for _, hr := range r.Hosts {
				deferredOn[hr.Host.ID] = deferredOn[hr.Host.ID] || hr.Tools[i].Description.Deferred
			}
			continue
		}
		row := []string{code(st, t.Name), Num(t.DescUTF16)}
		if !t.HasDescription {
			row[1] = "none"
		}
		for _, hr := range r.Hosts {
			row = append(row, toolCell(hr.Tools[i], hr.Host))
		}
		rows = append(rows, row)
	}
	if folded > 0 {
		var on []string
		for _, hr := range r.Hosts {
			if deferredOn[hr.Host.ID] {
				on = append(on, hr.Host.ID)
			}
		}
		s := fmt.Sprintf("%s delivered whole on every host", plural(folded, "tool"))
		if len(on) > 0 {
			s += " (deferred on " + strings.Join(on, ", ") + ")"
		}
		fmt.Fprintln(w, s)
		if st == terminal.Markdown {
			fmt.Fprintln(w)
		}
	}
	in := "instructions (none)"
	if c.Instructions != nil {
		in = "instructions (" + Num(wire.UTF16Len(*c.Instructions)) + ")"
	}
	if len(rows) == 0 && !terminal.Verbose(w) {
		instructionsLine(w, st, in, r)
		return
	}
	row := []string{in, ""}
	for _, hr := range r.Hosts {
		row = append(row, instructionsCell(hr))
	}
	rows = append(rows, row)
	align := []terminal.Align{terminal.Left, terminal.Right}
	terminal.Table(w, st, header, rows, align...)
	deliveryLegend(w, st, rows, slices.Contains(header, "all"))
}

// instructionsLine is the instructions' row of the delivery table on
// one line, the hosts grouped by what they do with them.
func instructionsLine(w io.Writer, st terminal.Style, in string, r budget.Delivery) {
	by := map[string][]string{}
	var order []string
	for _, hr := range r.Hosts {
		d := instructionsCell(hr)
		if by[d] == nil {
			order = append(order, d)
		}
		by[d] = append(by[d], hr.Host.ID)
	}
	var parts []string
	for _, d := range order {
		parts = append(parts, d+" on "+strings.Join(by[d], ", "))
	}
	fmt.Fprintf(w, "%s: %s\n", in, strings.Join(parts, "; "))
	if st == terminal.Markdown {
		fmt.Fprintln(w)
	}
}

// deliveryTerms explain, once, each word of the delivery table.
var deliveryTerms = []struct{ term, means string }{
	{"whole", "delivered in full"},
	{"% (cut at", "the share delivered: the host cuts the text at that many units (UTF-16 units unless the host's profile says otherwise)"},
	{"deferred", "the tool reaches the model only after the model searches for tools"},
	{"describes dropped", "the input schema is past the size at which the host drops the descriptions of its properties: the model never reads them"},
	{"describes kept", "the host drops property descriptions from larger schemas; this one is under that size, so they reach the model"},
	{"not delivered", "the host does not pass the text to the model"},
	{"prepended to each tool", "the host adds the server instructions to the start of every tool description"},
}

// ifLoadedNote explains "if loaded" under a markdown table of what each
// host pays.
const ifLoadedNote = "\"if loaded\": the host defers the tools behind a tool search; the figure is what it pays once they are loaded (what it pays before a search is not sourced)."

// legendItem is a term of the delivery table and what it means.
func legendItem(i int) string {
	t := deliveryTerms[i]
	term := strings.TrimPrefix(t.term, "% ")
	if term != t.term {
		term = "N% (cut at N)"
	}
	return fmt.Sprintf("%q: %s", term, t.means)
}

// allLegend explains the derived "all" column, which no host is.
const allLegend = `"all": not a host but the strictest of their rules at once (each rule the harshest host's); a tool cut only there is whole on every host`

// deliveryLegend explains, under the table, each term its cells use, and
// the "all" column when the table has it.
func deliveryLegend(w io.Writer, st terminal.Style, rows [][]string, all bool) {
	var used []string
	if all {
		used = append(used, allLegend)
	}
	for i, t := range deliveryTerms {
		found := false
		for _, r := range rows {
			for _, c := range r[min(2, len(r)):] {
				found = found || strings.Contains(c, t.term)
			}
		}
		if found {
			used = append(used, legendItem(i))
		}
	}
	if len(used) == 0 {
		return
	}
	if st == terminal.Markdown {
		fmt.Fprintln(w)
		for _, u := range used {
			fmt.Fprintf(w, "- %s\n", u)
		}
		fmt.Fprintln(w)
		return
	}
	for _, u := range used {
		fmt.Fprintf(w, "  %s\n", u)
	}
}

// instructionsCell is what a host does with the instructions; "unknown"
// where no source says (the figures count them whole).
func instructionsCell(hr budget.HostResult) string {
	if hr.Host.Instructions.Rule == "unknown" && hr.Instructions.Mode != "missing" {
		return "unknown"
	}
	return hr.Instructions.Describe()
}

func toolCell(t budget.Tool, h hosts.Host) string {
	s := t.Description.Describe()
	if h.Description.Rule == "unknown" {
		s = "unknown"
	}
	if t.Description.Deferred {
		s += ", deferred"
	}
	switch {
	case t.Schema.Dropped:
		s += "; describes dropped"
	case t.Schema.Rule == "drop_property_descriptions" && !t.Schema.Unknown && t.Schema.Descriptions > 0:
		s += "; describes kept"
	}
	return s
}

// Tokens writes what the definitions cost on every request.
func Tokens(w io.Writer, st terminal.Style, c *probe.Capture, d tokens.Definitions) {
	t := wire.Totals(c.Tools)
	fmt.Fprintf(w, "tools/list: %s, %s bytes, ~%s tokens (%s estimate) as the server sent them.\n",
		plural(t.Pages, "page"), Num(t.Bytes), Num(d.Total), d.Encoding)
	if st == terminal.Markdown {
		fmt.Fprintln(w)
	}
}

// HostTokens writes what each host pays on every request, as it delivers
// the definitions, and the tools a config's lists leave out.
func HostTokens(w io.Writer, st terminal.Style, r *budget.Result) {
	if len(r.FilteredOut) > 0 {
		var names []string
		for _, n := range r.FilteredOut {
			names = append(names, code(st, n))
		}
		fmt.Fprintf(w, "Left out by the config's tool lists (not paid for): %s.\n\n", strings.Join(names, ", "))
	}
	if len(r.HostTokens) == 0 {
		return
	}
	names := map[string]string{}
	for _, hr := range r.Delivery.Hosts {
		names[hr.Host.ID] = hr.Host.Name
	}
	var rows [][]string
	for _, h := range r.HostTokens {
		rows = append(rows, []string{terminal.Escape(names[h.Host]), "~" + Num(h.Tokens) + ifLoaded(h.Deferred), instrTokens(h.Instructions)})
	}
	fmt.Fprintf(w, "What each host pays on every request (%s estimate of the definitions as it delivers them):\n", tokens.Encoding)
	if st == terminal.Markdown {
		fmt.Fprintln(w)
	}
	terminal.Table(w, st, []string{"host", "tokens", "of which instructions"}, rows, terminal.Left, terminal.Right, terminal.Right)
	deferred := false
	for _, h := range r.HostTokens {
		deferred = deferred || h.Deferred
	}
	switch {
	case !deferred:
		fmt.Fprintln(w)
	case st == terminal.Markdown:
		fmt.Fprintln(w)
		fmt.Fprintln(w, ifLoadedNote)
		fmt.Fprintln(w)
	default:
		fmt.Fprintln(w, "\"if loaded\": the host defers the tools behind a tool search; the figure is what it pays once they are loaded.")
		fmt.Fprintln(w)
	}
}

func ifLoaded(deferred bool) string {
	if deferred {
		return " if loaded"
	}
	return ""
}

func instrTokens(n int) string {
	if n == 0 {
		return "—"
	}
	return "~" + Num(n)
}

// TokenTable writes each tool's definition cost.
func TokenTable(w io.Writer, st terminal.Style, d tokens.Definitions) {
	var rows [][]string
	for _, t := range d.Tools {
		rows = append(rows, []string{code(st, t.Name), Num(t.Tokens)})
	}
	terminal.Table(w, st, []string{"tool", "tokens (" + d.Encoding + ")"}, rows, terminal.Left, terminal.Right)
}

// ShowCut prints, for each cut text, what is delivered and what is lost.
func ShowCut(w io.Writer, r budget.Delivery) {
	any := false
	for _, hr := range r.Hosts {
		if hr.Host.ID == "all" {
			continue
		}
		for _, t := range hr.Tools {
			if t.Description.Mode == "cut" {
				any = true
				cutText(w, fmt.Sprintf("%s on %s", t.Name, hr.Host.Name), t.Description)
			}
		}
		if hr.Instructions.Mode == "cut" {
			any = true
			cutText(w, "instructions on "+hr.Host.Name, hr.Instructions)
		}
	}
	if !any {
		fmt.Fprintln(w, "Nothing is cut on these hosts.")
	}
}

func cutText(w io.Writer, title string, d budget.Text) {
	c := d.Cut
	fmt.Fprintf(w, "── %s: %s of %s %s delivered (%s lost)\n", terminal.Escape(title), Num(d.Delivered), Num(d.Len), unitLabel(d.Unit), budget.Pct(d.LostPct))
	for _, l := range strings.Split(d.Head, "\n") {
		fmt.Fprintf(w, "   │ %s\n", terminal.Escape(l))
	}
	note := ""
	switch {
	case c.SplitsChar:
		note = ", inside a character"
	case c.SplitsWord:
		note = ", mid-word"
	}
	marker := ""
	if d.Marker != "" {
		marker = "; the host appends " + fmt.Sprintf("%q", d.Marker)
	}
	fmt.Fprintf(w, "✂─ cut at %s, line %d, column %d%s%s\n", Num(c.At), c.Line, c.Column, note, marker)
	for _, l := range strings.Split(d.Tail, "\n") {
		fmt.Fprintf(w, "   ✗ %s\n", terminal.Escape(l))
	}
	for _, l := range d.Omits {
		fmt.Fprintf(w, "   ⚠ hides %s %q: %q\n", l.Rule, terminal.Escape(l.Words), terminal.Escape(l.Sentence))
	}
	fmt.Fprintln(w)
}

func unitLabel(u string) string {
	switch u {
	case "byte":
		return "bytes"
	case "codepoint":
		return "chars"
	}
	return "UTF-16 units"
}

// View writes, as markdown, exactly the text one host delivers to the
// model, so it can be committed and reviewed.
func View(w io.Writer, hr budget.HostResult, c *probe.Capture) {
	h := hr.Host
	fmt.Fprintf(w, "# What %s receives from %s\n\n", terminal.MD(h.Name), terminal.MD(ServerName(c)))
	fmt.Fprintf(w, "Host profile measured %s (source: %s). Text is shown exactly as delivered, control characters escaped.\n\n", terminal.MD(h.MeasuredOn), terminal.MD(h.Source))
	fmt.Fprintln(w, "## Server instructions")
	fmt.Fprintln(w)
	in := hr.Instructions
	switch in.Mode {
	case "missing":
		fmt.Fprintln(w, "The server sends none.")
	case "not_delivered":
		fmt.Fprintln(w, "Not delivered to the model.")
	case "prepended":
		fmt.Fprintln(w, "Prepended to every tool description (shown there).")
	default:
		fence(w, delivered(in))
	}
	fmt.Fprintln(w)
	for i, raw := range c.Tools.Items {
		t := hr.Tools[i]
		fmt.Fprintf(w, "## %s\n\n", terminal.Code(t.Name))
		if t.Description.Deferred {
			fmt.Fprintln(w, "Deferred: the model sees this tool only after a tool search finds it.")
			fmt.Fprintln(w)
		}
		desc := delivered(t.Description)
		if in.Mode == "prepended" && c.Instructions != nil {
			desc = *c.Instructions + "\n\n" + desc
		}
		if t.Description.Mode == "missing" {
			fmt.Fprintln(w, "No description.")
		} else {
			fence(w, desc)
		}
		fmt.Fprintln(w)
		schema := wire.InputSchema(raw)
		switch {
		case t.Schema.Dropped:
			fmt.Fprintf(w, "Input schema, property descriptions dropped (%s %s serialized, over %s):\n\n", Num(t.Schema.Serialized), unitLabel(t.Schema.Unit), Num(t.Schema.Over))
			fenceLang(w, "json", string(t.Schema.DroppedSchema))
		case t.Schema.Rule == "unknown":
			fmt.Fprintln(w, "Input schema: not measured for this host; as the server sent it:")
			fmt.Fprintln(w)
			fenceLang(w, "json", string(schema))
		default:
			fmt.Fprintln(w, "Input schema:")
			fmt.Fprintln(w)
			fenceLang(w, "json", string(schema))
		}
		fmt.Fprintln(w)
		switch t.OutputSchema {
		case "delivered", "sometimes":
			fmt.Fprintf(w, "Output schema (%s):\n\n", strings.ReplaceAll(t.OutputSchema, "_", " "))
			fenceLang(w, "json", string(wire.OutputSchema(raw)))
			fmt.Fprintln(w)
		case "not_delivered":
			fmt.Fprintln(w, "Output schema: not delivered.")
			fmt.Fprintln(w)
		}
	}
}

// delivered is the text as the host hands it over, marker included.
func delivered(t budget.Text) string {
	if t.Mode == "cut" {
		return t.Head + t.Marker
	}
	return t.Head
}

func fence(w io.Writer, s string) { fenceLang(w, "text", s) }

// fenceLang writes s in a code fence longer than any backtick run in it,
// each line escaped.
func fenceLang(w io.Writer, lang, s string) {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	fmt.Fprintln(w, f+lang)
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintln(w, terminal.Escape(l))
	}
	fmt.Fprintln(w, f)
}
