package reports

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/tidwall/gjson"
)

// ServerName returns "name version" from the capture's serverInfo.
func ServerName(c *probe.Capture) string {
	si := gjson.ParseBytes(c.ServerInfo)
	name := strings.TrimSpace(si.Get("name").String() + " " + si.Get("version").String())
	if name == "" {
		return "unnamed server"
	}
	return name
}

// SortFindings orders findings by severity, then code, keeping the order
// within each, so that a report is stable.
func SortFindings(fs []probe.Finding) []probe.Finding { return findings.Sorted(fs) }

// protocolLine is the negotiated version and what became of
// server/discover, which quotes the server's error message.
func protocolLine(st terminal.Style, c *probe.Capture) string {
	v := c.ProtocolVersion
	if v == "" {
		v = "none negotiated"
	}
	s := "protocol " + terminal.Plain(st, v)
	if c.Discover != "" {
		s += " (server/discover: " + terminal.Plain(st, c.Discover) + ")"
	}
	return s
}

// WireText is wire's text: what the server offers, every finding about
// the wire, and when each phase finished.
func WireText(w io.Writer, r *wire.Result) {
	c := r.Capture
	fmt.Fprintf(w, "%s: %s, %s, %s; %s\n\n", terminal.Escape(ServerName(c)), plural(len(c.Tools.Items), "tool"), plural(len(c.Prompts.Items), "prompt"),
		plural(len(c.Resources.Items), "resource"), findingCount(c.Findings))
	Wire(w, terminal.Terminal, r.Capture)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Findings:")
	Findings(w, terminal.Terminal, r.Capture.Findings)
	Timings(w, r.Capture)
	CardsText(w, r.Cards)
}

// Findings writes the findings table, a kind repeated past
// findings.FoldAt in one row that counts it and shows a few examples.
func Findings(w io.Writer, st terminal.Style, fs []probe.Finding) {
	if len(fs) == 0 {
		fmt.Fprintln(w, "No findings.")
		return
	}
	fs = findings.Fold(fs)
	var infos []string
	if st == terminal.Terminal && !terminal.Verbose(w) {
		// Infos fold into one line of their codes; --verbose has each.
		n := map[string]int{}
		var kept []probe.Finding
		for _, f := range fs {
			if f.Severity != "info" {
				kept = append(kept, f)
				continue
			}
			if n[f.Code.String()] == 0 {
				infos = append(infos, f.Code.String())
			}
			n[f.Code.String()]++
		}
		for i, c := range infos {
			if n[c] > 1 {
				infos[i] = fmt.Sprintf("%s ×%d", c, n[c])
			}
		}
		fs = kept
	}
	defer func() {
		if len(infos) > 0 {
			fmt.Fprintf(w, "%s: %s (--verbose says what)\n", terminal.Severity(w, "info"), strings.Join(infos, ", "))
		}
	}()
	if len(fs) == 0 {
		return
	}
	rows := make([][]string, len(fs))
	for i, f := range fs {
		named := f.Tool != "" && !strings.Contains(f.Message, "`"+f.Tool+"`")
		var msg string
		switch {
		case st == terminal.Markdown && named:
			// The tool's name in a span of its own: its backticks cannot
			// pair with the message's.
			msg = terminal.Code(f.Tool) + ": " + terminal.MDMessage(f.Message)
		case st == terminal.Markdown:
			msg = terminal.MDMessage(f.Message)
		case named:
			msg = terminal.Cell("`" + f.Tool + "`: " + f.Message)
		default:
			msg = terminal.Cell(f.Message)
		}
		rows[i] = []string{string(f.Severity), f.Code.String(), msg + folded(st, f)}
	}
	terminal.Table(w, st, []string{"severity", "code", "what"}, rows)
}

// Wire writes what the server offers: identity, capabilities,
// instructions and a table per list.
func Wire(w io.Writer, st terminal.Style, c *probe.Capture) {
	caps := Capabilities(c.Capabilities)
	if caps == "" {
		caps = "none"
	}
	if st == terminal.Terminal {
		fmt.Fprintf(w, "server        %s\n", terminal.Escape(ServerName(c)))
		fmt.Fprintf(w, "transport     %s\n", c.Transport)
		fmt.Fprintf(w, "protocol      %s\n", strings.TrimPrefix(protocolLine(st, c), "protocol "))
		fmt.Fprintf(w, "capabilities  %s\n", terminal.Escape(caps))
	} else {
		fmt.Fprintf(w, "Capabilities: %s.\n\n", terminal.MD(caps))
	}
	instructions(w, st, c.Instructions)
	tools(w, st, c)
	// A list the server's capabilities do not offer gets no section of
	// its own: they are named together on one line (--verbose: each).
	var unoffered []string
	skip := func(title string, l probe.List) bool {
		if terminal.Verbose(w) || l.Asked || !strings.Contains(l.Skipped, "does not advertise") {
			return false
		}
		unoffered = append(unoffered, strings.ToLower(title))
		return true
	}
	if !skip("Prompts", c.Prompts) {
		prompts(w, st, c)
	}
	if !skip("Resources", c.Resources) {
		itemTable(w, st, "Resources", c.Resources, []string{"uri", "name", "mimeType"})
	}
	if !skip("Resource templates", c.Templates) {
		itemTable(w, st, "Resource templates", c.Templates, []string{"uriTemplate", "name", "mimeType"})
	}
	skills(w, st, c)
	if len(unoffered) > 0 {
		if st == terminal.Terminal {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Not listed (the server does not advertise the capability): %s.\n", strings.Join(unoffered, ", "))
		if st == terminal.Markdown {
			fmt.Fprintln(w)
		}
	}
}

// Capabilities renders a capabilities object as "tools(listChanged) logging".
func Capabilities(raw []byte) string {
	var parts []string
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		var subs []string
		v.ForEach(func(sk, sv gjson.Result) bool {
			if sv.Type != gjson.False {
				subs = append(subs, sk.String())
			}
			return true
		})
		sort.Strings(subs)
		p := k.String()
		if len(subs) > 0 {
			p += "(" + strings.Join(subs, ",") + ")"
		}
		parts = append(parts, p)
		return true
	})
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func instructions(w io.Writer, st terminal.Style, in *string) {
	switch {
	case in == nil:
		line(w, st, "instructions", "none")
	default:
		n := wire.UTF16Len(*in)
		line(w, st, "instructions", fmt.Sprintf("%s UTF-16 units: %s", Num(n), code(st, terminal.Clip(*in, 200))))
	}
}

func line(w io.Writer, st terminal.Style, label, text string) {
	if st == terminal.Terminal {
		fmt.Fprintf(w, "%-13s %s\n", label, text)
		return
	}
	fmt.Fprintf(w, "%s: %s.\n\n", strings.ToUpper(label[:1])+label[1:], text)
}

func heading(w io.Writer, st terminal.Style, title string, l probe.List) bool {
	t := wire.Totals(l)
	if st == terminal.Terminal {
		fmt.Fprintln(w)
	}
	summary := ""
	switch {
	case !l.Asked:
		summary = "not listed: " + l.Skipped
	default:
		summary = fmt.Sprintf("%s in %s, %s bytes", plural(t.Items, "item"), plural(t.Pages, "page"), Num(t.Bytes))
		if l.Error != "" {
			summary += "; stopped: " + terminal.Plain(st, terminal.Clip(l.Error, 120))
		}
	}
	if st == terminal.Terminal {
		fmt.Fprintf(w, "%s: %s\n", title, summary)
	} else {
		fmt.Fprintf(w, "### %s\n\n%s.\n\n", title, strings.ToUpper(summary[:1])+summary[1:])
	}
	return l.Asked && t.Items > 0
}

func tools(w io.Writer, st terminal.Style, c *probe.Capture) {
	if !heading(w, st, "Tools", c.Tools) {
		return
	}
	var rows [][]string
	for _, t := range wire.Tools(c) {
		out := "no"
		if t.OutputSchemaBytes >= 0 {
			out = "yes (" + Num(t.OutputSchemaBytes) + ")"
		}
		desc := Num(t.DescUTF16)
		if !t.HasDescription {
			desc = "none"
		}
		ann := strings.Join(t.Annotations, ", ")
		if ann == "" {
			ann = "—"
		}
		title := t.Title
		if title == "" {
			title = "—"
		}
		rows = append(rows, []string{code(st, t.Name), terminal.StyledCell(st, title), desc, Num(t.InputSchemaBytes), out, terminal.StyledCell(st, ann)})
	}
	terminal.Table(w, st, []string{"tool", "title", "description (UTF-16)", "input schema (bytes)", "output schema (bytes)", "annotations"}, rows,
		terminal.Left, terminal.Left, terminal.Right, terminal.Right, terminal.Left, terminal.Left)
}

func prompts(w io.Writer, st terminal.Style, c *probe.Capture) {
	if !heading(w, st, "Prompts", c.Prompts) {
		return
	}
	var rows [][]string
	for _, raw := range c.Prompts.Items {
		v := gjson.ParseBytes(raw)
		var args []string
		for _, a := range v.Get("arguments").Array() {
			n := a.Get("name").String()
			if a.Get("required").Bool() {
				n += "*"
			}
			args = append(args, n)
		}
		rows = append(rows, []string{code(st, v.Get("name").String()), Num(wire.UTF16Len(v.Get("description").String())), terminal.StyledCell(st, strings.Join(args, ", "))})
	}
	terminal.Table(w, st, []string{"prompt", "description (UTF-16)", "arguments (* required)"}, rows, terminal.Left, terminal.Right, terminal.Left)
}

func itemTable(w io.Writer, st terminal.Style, title string, l probe.List, keys []string) {
	if !heading(w, st, title, l) {
		return
	}
	var rows [][]string
	for _, raw := range l.Items {
		v := gjson.ParseBytes(raw)
		row := make([]string, len(keys))
		for i, k := range keys {
			row[i] = terminal.StyledCell(st, terminal.Clip(v.Get(k).String(), 80))
		}
		row[0] = code(st, terminal.Clip(v.Get(keys[0]).String(), 80))
		rows = append(rows, row)
	}
	terminal.Table(w, st, keys, rows)
}

// Timings writes when each phase completed, for the terminal.
func Timings(w io.Writer, c *probe.Capture) {
	t := c.Timings
	parts := []string{"first byte " + Dur(t.FirstByte)}
	if by, ok := readyBy[t.ReadyBy]; ok {
		parts = append(parts, "ready "+Dur(t.Ready)+" ("+by+")")
	}
	if c.Handshake != nil {
		parts = append(parts, c.Handshake.Method+" "+Dur(t.Handshake))
	}
	if t.LastPage > 0 {
		parts = append(parts, "last page "+Dur(t.LastPage))
	}
	if t.ExitKnown {
		parts = append(parts, "exit "+Dur(t.ExitAfter)+" after stdin closed")
	}
	fmt.Fprintf(w, "timings       %s (since spawn)\n", strings.Join(parts, " · "))
}

// readyBy says in words what started server/discover's clock
// (probe.Timings.ReadyBy).
var readyBy = map[string]string{
	"stdout":  "first byte on stdout",
	"http":    "first HTTP response",
	"message": "first message",
	"sent":    "server/discover sent",
}

// Dur prints a duration in milliseconds with sensible precision.
func Dur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	case ms >= 1:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'f', 3, 64) + " ms"
}

// Num prints an integer with thousands separators.
func Num(n int) string { return probe.Comma(int64(n)) }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Num(n) + " " + noun + "s"
}

// code is a code span in markdown, and the plain escaped text on a terminal.
func code(st terminal.Style, s string) string {
	if st == terminal.Terminal {
		return terminal.Escape(s)
	}
	return terminal.Code(s)
}

// folded is what a folded finding adds to its message: how many it
// stands for, and the messages of the next few.
func folded(st terminal.Style, f probe.Finding) string {
	if f.Count < 2 {
		return ""
	}
	ex := f.Examples()
	for i, m := range ex {
		ex[i] = terminal.Message(st, m)
	}
	s := " (×" + Num(f.Count) + " in all"
	if len(ex) > 0 {
		s += "; the next: " + strings.Join(ex, "; ")
	}
	if more := f.Count - 1 - len(ex); more > 0 {
		s += "; " + Num(more) + " more"
	}
	return s + ")"
}
