package main

// Help that fits the terminal: every line within its width (COLUMNS,
// else the terminal's size, else 80), flag descriptions wrapped under
// themselves, and a long flag name on a line of its own rather than
// pushing every description to the right. A command's help lists the
// flags it declares, and a command takes no other.

import (
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v3"
)

// The library's help hook, set once: printHelp holds no state, and reads
// the width from the process's COLUMNS, since the library calls it with
// the command and no run value.
func init() { cli.HelpPrinter = printHelp }

const (
	helpIndent  = 3  // of every line under a heading
	helpNameMax = 24 // the widest flag or command name the descriptions are aligned after
	helpMinimum = 40 // narrower than this, the help is laid out for 40 columns
)

// printHelp is urfave/cli's HelpPrinter: it renders the command itself
// and ignores the template, which cannot wrap a tab-aligned column.
func printHelp(w io.Writer, templ string, data any) {
	cmd, ok := data.(*cli.Command)
	if !ok {
		cli.DefaultPrintHelp(w, templ, data)
		return
	}
	width := termWidth(w, os.Getenv) // the library calls its HelpPrinter with no run: the process's own
	if width <= 0 {
		width = 80
	}
	width = max(width, helpMinimum)
	_, _ = io.WriteString(w, helpText(cmd, width))
}

// helpText is cmd's help laid out for width columns.
func helpText(cmd *cli.Command, width int) string {
	var b strings.Builder
	heading := func(h string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(h + ":\n")
	}
	heading("NAME")
	name := cmd.FullName()
	if cmd.Usage != "" {
		name += " - " + cmd.Usage
	}
	b.WriteString(wrapText(name, width, helpIndent, helpIndent+2))
	heading("USAGE")
	for _, l := range usageOf(cmd, cmd.Root() == cmd) {
		b.WriteString(wrapUsage(l, width))
	}
	if cmd.Root() == cmd && cmd.Version != "" && !cmd.HideVersion {
		heading("VERSION")
		b.WriteString(wrapText(cmd.Version, width, helpIndent, helpIndent))
	}
	if cmd.Description != "" {
		heading("DESCRIPTION")
		for _, l := range strings.Split(strings.TrimSpace(cmd.Description), "\n") {
			b.WriteString(wrapText(l, width, helpIndent, helpIndent))
		}
	}
	if rows := commandRows(cmd); len(rows) > 0 {
		heading("COMMANDS")
		b.WriteString(helpRows(rows, width))
	}
	for _, sec := range flagSections(cmd) {
		heading(sec.title)
		b.WriteString(helpRows(flagRows(sec.flags), width))
	}
	return b.String()
}

// commandRows are the visible subcommands, each with its usage.
func commandRows(cmd *cli.Command) [][2]string {
	var rows [][2]string
	for _, c := range cmd.Commands {
		if !c.Hidden {
			rows = append(rows, [2]string{strings.Join(c.Names(), ", "), c.Usage})
		}
	}
	return rows
}

// flagSection is a heading of a help and the flags under it.
type flagSection struct {
	title string
	flags []cli.Flag
}

// flagSections are the flags cmd takes, and only those: its own under
// OPTIONS, then each group it composes (flags.go) under its category, in
// the order the command declares them.
func flagSections(cmd *cli.Command) []flagSection {
	var own []cli.Flag
	var secs []flagSection
	for _, f := range cmd.VisibleFlags() {
		cat := ""
		if c, ok := f.(cli.CategorizableFlag); ok {
			cat = c.GetCategory()
		}
		if cat == "" {
			own = append(own, f)
			continue
		}
		i := slices.IndexFunc(secs, func(s flagSection) bool { return s.title == cat })
		if i < 0 {
			secs = append(secs, flagSection{title: cat})
			i = len(secs) - 1
		}
		secs[i].flags = append(secs[i].flags, f)
	}
	if cmd.Root() == cmd && cmd.Name == "mcpprobe" && len(secs) > 0 {
		// mcpprobe's own flags are servers' (mcpprobe --config FILE) and
		// refused before a command: no heading may read as "global".
		var of []cli.Flag
		for _, s := range secs {
			of = append(of, s.flags...)
		}
		secs = []flagSection{{title: "OPTIONS OF mcpprobe --config FILE", flags: of}}
	}
	if len(own) > 0 {
		secs = append([]flagSection{{title: "OPTIONS", flags: own}}, secs...)
	}
	return secs
}

// usageOf is the command's usage lines, as the library's template makes
// them.
func usageOf(cmd *cli.Command, root bool) []string {
	if cmd.UsageText != "" {
		return strings.Split(strings.TrimSpace(cmd.UsageText), "\n")
	}
	u := cmd.FullName()
	switch {
	case root:
		u += " [global options] [command [command options]]"
	case len(cmd.VisibleCommands()) > 0:
		u += " [command [command options]]"
	case len(cmd.VisibleFlags()) > 0:
		u += " [options]"
	}
	if cmd.ArgsUsage != "" {
		u += " " + cmd.ArgsUsage
	}
	return strings.Split(u, "\n")
}

// flagRows is a name and a description per flag: the names with the
// value's placeholder once (--out, -o FILE), the description on one line.
func flagRows(fs []cli.Flag) [][2]string {
	var rows [][2]string
	for _, f := range fs {
		names, desc, _ := strings.Cut(cli.FlagStringer(f), "\t")
		repeated := false
		if i := strings.Index(names, " [ "); i >= 0 {
			names, repeated = names[:i], true
		}
		var ns []string
		placeholder := ""
		for i, seg := range strings.Split(names, ", ") {
			n, ph, _ := strings.Cut(seg, " ")
			if i == 0 {
				placeholder = ph
			}
			ns = append(ns, n)
		}
		col := strings.Join(ns, ", ")
		if placeholder != "" {
			col += " " + placeholder
		}
		desc = strings.Join(strings.Fields(desc), " ")
		if repeated && !strings.Contains(desc, "repeatable") {
			desc += " (repeatable)"
		}
		rows = append(rows, [2]string{col, desc})
	}
	return rows
}

// helpRows lays out names and descriptions in two columns: the
// descriptions start after the widest name up to helpNameMax, wrap under
// themselves, and follow a wider name on the next line.
func helpRows(rows [][2]string, width int) string {
	nameW := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r[0]); n <= helpNameMax && n > nameW {
			nameW = n
		}
	}
	col := helpIndent + nameW + 2
	if col > width/2 {
		col = width / 2
	}
	var b strings.Builder
	pad := strings.Repeat(" ", helpIndent)
	for _, r := range rows {
		n := utf8.RuneCountInString(r[0])
		if helpIndent+n+2 > col {
			b.WriteString(wrapText(r[0], width, helpIndent, helpIndent+4))
			if r[1] != "" {
				b.WriteString(wrapText(r[1], width, col, col))
			}
			continue
		}
		if r[1] == "" {
			b.WriteString(pad + r[0] + "\n")
			continue
		}
		lines := wrapWords(r[1], width-col)
		b.WriteString(pad + r[0] + strings.Repeat(" ", col-helpIndent-n) + lines[0] + "\n")
		for _, l := range lines[1:] {
			b.WriteString(strings.Repeat(" ", col) + l + "\n")
		}
	}
	return b.String()
}

// wrapText wraps s to width, its first line indented by first, the rest
// by rest.
func wrapText(s string, width, first, rest int) string {
	var b strings.Builder
	lines := wrapWords(s, width-first)
	if len(lines) == 0 {
		return "\n"
	}
	b.WriteString(strings.Repeat(" ", first) + lines[0] + "\n")
	if len(lines) > 1 {
		for _, l := range wrapWords(strings.Join(lines[1:], " "), width-rest) {
			b.WriteString(strings.Repeat(" ", rest) + l + "\n")
		}
	}
	return b.String()
}

// wrapUsage wraps a usage line, breaking between its alternatives
// ("./server TOOL | TOOL -- CMD ARGS…") where it can, so that each form
// reads whole; an alternative too long for a line breaks between words.
func wrapUsage(s string, width int) string {
	const cont = helpIndent + 2
	lines := packUsage(strings.TrimSpace(s), width-helpIndent, width-cont)
	var b strings.Builder
	for i, l := range lines {
		ind := cont
		if i == 0 {
			ind = helpIndent
		}
		for j, part := range wrapWords(l, width-ind) {
			if j > 0 {
				ind = cont
			}
			b.WriteString(strings.Repeat(" ", ind) + part + "\n")
		}
	}
	return b.String()
}

// usagePacker packs a usage line into lines (packUsage).
type usagePacker struct {
	lines       []string
	cur         string
	first, rest int
}

// packUsage packs the alternatives of a usage line into lines, the
// first first wide and the rest rest wide: whole alternatives where they
// fit, else word by word.
func packUsage(s string, first, rest int) []string {
	p := &usagePacker{first: first, rest: rest}
	for i, a := range strings.Split(s, " | ") {
		if i > 0 {
			a = "| " + a
		}
		p.add(a)
	}
	p.flush()
	return p.lines
}

func (p *usagePacker) avail() int {
	if len(p.lines) == 0 {
		return p.first
	}
	return p.rest
}

func (p *usagePacker) flush() {
	if p.cur != "" {
		p.lines = append(p.lines, p.cur)
		p.cur = ""
	}
}

// add adds one alternative: to the line under way if it fits, else on a
// line of its own, else broken between words.
func (p *usagePacker) add(a string) {
	switch n := utf8.RuneCountInString(a); {
	case p.cur == "" && n <= p.avail():
		p.cur = a
	case p.cur != "" && utf8.RuneCountInString(p.cur)+1+n <= p.avail():
		p.cur += " " + a
	case n <= p.rest:
		p.flush()
		p.cur = a
	default:
		for _, w := range usageWords(a) {
			switch {
			case p.cur == "":
				p.cur = w
			case utf8.RuneCountInString(p.cur)+1+utf8.RuneCountInString(w) <= p.avail():
				p.cur += " " + w
			default:
				p.flush()
				p.cur = w
			}
		}
	}
}

// usageWords splits a usage line into words, an optional part in
// brackets ("[--fail-on error|warning]") kept as one.
func usageWords(s string) []string {
	var words []string
	depth, start := 0, -1
	for i, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		}
		if r == ' ' && depth == 0 {
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// wrapWords breaks s into lines of at most width runes, between words; a
// word longer than a line is cut.
func wrapWords(s string, width int) []string {
	width = max(width, 10)
	var lines []string
	cur, curN := "", 0
	for _, w := range strings.Fields(s) {
		for utf8.RuneCountInString(w) > width {
			if cur != "" {
				lines = append(lines, cur)
				cur, curN = "", 0
			}
			r := []rune(w)
			lines = append(lines, string(r[:width]))
			w = string(r[width:])
		}
		n := utf8.RuneCountInString(w)
		switch {
		case cur == "":
			cur, curN = w, n
		case curN+1+n <= width:
			cur, curN = cur+" "+w, curN+1+n
		default:
			lines = append(lines, cur)
			cur, curN = w, n
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
