package main

// docs/commands/: a page per command, generated from the urfave/cli
// command tree (name, usage, flags with their defaults and help,
// subcommands), and checked against what --help prints. Regenerate with
//   go test ./cmd/mcpprobe -run TestCommandDocs -update

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	gold "github.com/mcpprobe/mcpprobe/fixtures/golden"
)

const commandDocsDir = "../../docs/commands"

const docsRegenerate = "go test ./cmd/mcpprobe -run TestCommandDocs -update"

// helpRun is one command as a run of `mcpprobe PATH… --help` leaves it: the
// library has set the tree up (help flags, parents), and what it printed.
type helpRun struct {
	path []string
	cmd  *cli.Command
	help string
}

// runHelp runs --help of the command at path in process and returns the
// command, from the same tree, and its help.
func runHelp(t *testing.T, path []string) helpRun {
	t.Helper()
	var out bytes.Buffer
	app := newRunState(strings.NewReader(""), &out, &out, os.LookupEnv, os.Environ).newApp()
	args := append(append([]string{"mcpprobe"}, path...), "--help")
	if err := app.Run(context.Background(), args); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	cmd := app
	for _, name := range path {
		cmd = cmd.Command(name)
		if cmd == nil {
			t.Fatalf("no command %q in %v", name, path)
		}
	}
	return helpRun{path: path, cmd: cmd, help: out.String()}
}

// docPaths is every visible command, subcommands after their parent, as
// the words that run it, taken from a tree the library has set up (so the
// completion command it adds is there).
func docPaths(root *cli.Command) [][]string {
	var paths [][]string
	var walk func(c *cli.Command, path []string)
	walk = func(c *cli.Command, path []string) {
		for _, s := range listed(c) {
			p := append(slices.Clone(path), s.Name)
			paths = append(paths, p)
			walk(s, p)
		}
	}
	walk(root, nil)
	return paths
}

// docFlagRow is a flag as a doc row: its names (with the value's placeholder),
// its default, and its help.
type docFlagRow struct {
	names   []string // "--out", "-o"
	value   string   // the placeholder: FILE, duration, …; "" for a switch
	deflt   string
	usage   string
	repeats bool
}

var defaultRE = regexp.MustCompile(`\s*\(default: (.*)\)$`)

// rowOf reads a flag the way the library's help does (cli.FlagStringer),
// so the placeholder and default are the ones --help shows.
func rowOf(f cli.Flag) docFlagRow {
	names, desc, _ := strings.Cut(cli.FlagStringer(f), "\t")
	var r docFlagRow
	if i := strings.Index(names, " [ "); i >= 0 {
		names, r.repeats = names[:i], true
	}
	for i, seg := range strings.Split(names, ", ") {
		n, ph, _ := strings.Cut(seg, " ")
		if i == 0 {
			r.value = ph
		}
		r.names = append(r.names, n)
	}
	desc = strings.Join(strings.Fields(desc), " ")
	if m := defaultRE.FindStringSubmatch(desc); m != nil {
		r.deflt = m[1]
		desc = desc[:len(desc)-len(m[0])]
	}
	if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
		r.deflt = "required"
	}
	r.usage = desc
	return r
}

// mdText escapes text for a markdown table cell or paragraph: no pipe
// ends the cell, and no angle bracket or asterisk becomes markup.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`).Replace(s)
}

// flagTable is a markdown table of flags, one row each.
func flagTable(b *strings.Builder, fs []cli.Flag) {
	b.WriteString("| flag | default | what it does |\n| --- | --- | --- |\n")
	for _, f := range fs {
		r := rowOf(f)
		var ns []string
		for _, n := range r.names {
			ns = append(ns, "`"+n+"`")
		}
		name := strings.Join(ns, ", ")
		if r.value != "" {
			name += " " + mdText(r.value)
		}
		deflt := "none"
		switch {
		case r.deflt != "":
			deflt = "`" + strings.ReplaceAll(r.deflt, "|", `\|`) + "`"
		case r.value == "":
			deflt = "off"
		}
		usage := mdText(r.usage)
		if r.repeats && !strings.Contains(r.usage, "repeatable") {
			usage += " (repeatable)"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", name, deflt, usage)
	}
}

// cmdUsage is the command's usage lines: its UsageText, else what the
// library's help template makes of its name, commands, flags and ArgsUsage.
func cmdUsage(c *cli.Command) []string {
	if c.UsageText != "" {
		return strings.Split(strings.TrimSpace(c.UsageText), "\n")
	}
	u := c.FullName()
	switch {
	case c.Root() == c:
		u += " [global options] [command [command options]]"
	case len(c.VisibleCommands()) > 0:
		u += " [command [command options]]"
	case len(c.VisibleFlags()) > 0:
		u += " [options]"
	}
	if c.ArgsUsage != "" {
		u += " " + c.ArgsUsage
	}
	return strings.Split(u, "\n")
}

// fileOf is the page of a command: one per top-level command, its
// subcommands on the same page.
func fileOf(path []string) string {
	if len(path) == 0 {
		return "mcpprobe.md"
	}
	return path[0] + ".md"
}

// helpFlags reads the flag names of a --help, by section: "OPTIONS" and
// "GLOBAL OPTIONS…". A flag row starts with "-" a few spaces in; a
// wrapped description is indented past the names.
func helpFlags(help string) map[string][]string {
	out := map[string][]string{}
	section := ""
	for _, l := range strings.Split(help, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") && strings.HasSuffix(l, ":") {
			section = strings.TrimSuffix(l, ":")
			continue
		}
		rest := strings.TrimLeft(l, " ")
		if indent := len(l) - len(rest); indent == 0 || indent > 4 || !strings.HasPrefix(rest, "-") || !listsFlags(section) {
			continue
		}
		names, _, _ := strings.Cut(rest, "  ")
		for _, seg := range strings.Split(names, ", ") {
			n, _, _ := strings.Cut(seg, " ")
			out[section] = append(out[section], n)
		}
	}
	return out
}

// listsFlags says whether a help section lists flags: OPTIONS, GLOBAL
// OPTIONS, and the categories a command's flags are grouped in (TARGET,
// BOUNDS, OUTPUT, GATES, …); not NAME, USAGE, COMMANDS or DESCRIPTION.
func listsFlags(s string) bool {
	switch s {
	case "", "NAME", "USAGE", "COMMANDS", "DESCRIPTION", "VERSION", "AUTHOR", "COPYRIGHT":
		return false
	}
	return true
}

// inheritedShown is the flags of ancestors a command's --help lists: which
// global flags a command takes is the help's to say (the tree only knows
// which are inherited), so the page repeats what the help lists.
func inheritedShown(h helpRun) []string {
	var names []string
	if len(h.path) == 0 {
		return nil
	}
	for section, ns := range helpFlags(h.help) {
		if strings.HasPrefix(section, "GLOBAL OPTIONS") {
			for _, n := range ns {
				if strings.HasPrefix(n, "--") {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// commandSection writes one command: a heading, its usage, its own flags,
// the global flags it takes, and then its subcommands, a level down.
func commandSection(b *strings.Builder, h helpRun, runs map[string]helpRun, level int) {
	c := h.cmd
	fmt.Fprintf(b, "%s `%s`\n\n", strings.Repeat("#", level), c.FullName())
	if c.Usage != "" {
		b.WriteString(mdText(sentence(c.Usage)) + "\n\n")
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "Also run as: `%s`.\n\n", strings.Join(c.Aliases, "`, `"))
	}
	if c.Category != "" {
		fmt.Fprintf(b, "Category: %s.\n\n", mdText(c.Category))
	}
	b.WriteString("```text\n")
	for _, l := range cmdUsage(c) {
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	b.WriteString("```\n\n")
	// a description is laid out for the terminal, as --help prints it
	if d := strings.TrimSpace(c.Description); d != "" {
		b.WriteString("```text\n" + strings.ReplaceAll(d, "```", "'''") + "\n```\n\n")
	}
	sub := strings.Repeat("#", level+1)
	// a subcommand's headings name it, since a page's headings are unique
	of := ""
	if level > 1 {
		of = " of `" + c.FullName() + "`"
	}
	if fs := c.VisibleFlags(); len(fs) > 0 {
		fmt.Fprintf(b, "%s %s\n\n", sub, "Options"+of)
		flagTable(b, fs)
		b.WriteString("\n")
	}
	if g := inheritedShown(h); len(g) > 0 {
		link := "mcpprobe.md#global-options"
		fmt.Fprintf(b, "%s Global options%s\n\n", sub, of)
		fmt.Fprintf(b, "It takes these of [mcpprobe's global options](%s): `%s`.\n\n", link, strings.Join(g, "`, `"))
	}
	if cs := listed(c); len(cs) > 0 {
		fmt.Fprintf(b, "%s Subcommands%s\n\n", sub, of)
		for _, s := range cs {
			fmt.Fprintf(b, "- `%s`: %s\n", s.FullName(), mdText(s.Usage))
		}
		b.WriteString("\n")
		for _, s := range cs {
			commandSection(b, runs[strings.Join(append(slices.Clone(h.path), s.Name), " ")], runs, level+1)
		}
	}
}

// sentence starts a usage line with a capital and ends it with a stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// rootPage is docs/commands/mcpprobe.md: the commands, grouped by their
// category when they have one, and the global flags in full.
func rootPage(h helpRun) string {
	var b strings.Builder
	c := h.cmd
	b.WriteString("# `mcpprobe`\n\n")
	b.WriteString("<!-- generated from the command tree by `" + docsRegenerate + "`: edit the commands -->\n\n")
	b.WriteString(mdText(sentence(c.Usage)) + "\n\n")
	b.WriteString("```text\n")
	for _, l := range cmdUsage(c) {
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	b.WriteString("```\n\n")
	b.WriteString("## Commands\n\n")
	byCat := map[string][]*cli.Command{}
	var cats []string
	for _, s := range listed(c) {
		if _, ok := byCat[s.Category]; !ok {
			cats = append(cats, s.Category)
		}
		byCat[s.Category] = append(byCat[s.Category], s)
	}
	for _, cat := range cats {
		if cat != "" {
			fmt.Fprintf(&b, "### %s\n\n", mdText(cat))
		}
		for _, s := range byCat[cat] {
			fmt.Fprintf(&b, "- [`%s`](%s): %s\n", s.FullName(), fileOf([]string{s.Name}), mdText(s.Usage))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Global options\n\n")
	b.WriteString("Each command's page says which of these it takes; `mcpprobe COMMAND --help` lists them too.\n\n")
	flagTable(&b, c.VisibleFlags())
	return b.String()
}

// commandPage is docs/commands/<command>.md.
func commandPage(h helpRun, runs map[string]helpRun) string {
	var b strings.Builder
	commandSection(&b, h, runs, 1)
	s := b.String()
	// the generated note goes under the title, as on every generated page
	title, rest, _ := strings.Cut(s, "\n\n")
	return title + "\n\n<!-- generated from the command tree by `" + docsRegenerate + "`: edit the command -->\n\n" +
		strings.TrimRight(rest, "\n") + "\n"
}

// commandDocs renders every page, by file name, from the helps of every
// command.
func commandDocs(t *testing.T) (map[string]string, map[string]helpRun) {
	t.Helper()
	root := runHelp(t, nil)
	runs := map[string]helpRun{"": root}
	paths := docPaths(root.cmd)
	if len(paths) < 15 {
		t.Fatalf("only %d commands found: %v", len(paths), paths)
	}
	for _, p := range paths {
		runs[strings.Join(p, " ")] = runHelp(t, p)
	}
	pages := map[string]string{"mcpprobe.md": strings.TrimRight(rootPage(root), "\n") + "\n"}
	for _, p := range paths {
		if len(p) == 1 {
			pages[fileOf(p)] = commandPage(runs[p[0]], runs)
		}
	}
	return pages, runs
}

// TestCommandDocs keeps docs/commands/ what the command tree says: a page
// per command, no page of a command that is gone. With -update it
// rewrites the pages.
func TestCommandDocs(t *testing.T) {
	pages, _ := commandDocs(t)
	existing, err := filepath.Glob(filepath.Join(commandDocsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if gold.Update() {
		if err := os.MkdirAll(commandDocsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range existing {
			if _, ok := pages[filepath.Base(f)]; !ok {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
		}
		for name, page := range pages {
			if err := os.WriteFile(filepath.Join(commandDocsDir, name), []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, f := range existing {
		if _, ok := pages[filepath.Base(f)]; !ok {
			t.Errorf("docs/commands/%s documents no command: run %s", filepath.Base(f), docsRegenerate)
		}
	}
	for name, page := range pages {
		got, err := os.ReadFile(filepath.Join(commandDocsDir, name))
		if err != nil {
			t.Errorf("docs/commands/%s: %v: run %s", name, err, docsRegenerate)
			continue
		}
		if !bytes.Equal(got, []byte(page)) {
			t.Errorf("docs/commands/%s is stale: run %s, then review the diff\n%s", name, docsRegenerate, gold.FirstDiff(got, []byte(page)))
		}
	}
}

// docFlags reads the flags a committed page lists for one command: the
// rows of its flag table and its list of global options, under the
// command's heading and before the next command's.
func docFlags(page, fullName string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, "#") && strings.Contains(l, " `mcpprobe") {
			in = strings.HasSuffix(l, " `"+fullName+"`")
			continue
		}
		if !in {
			continue
		}
		switch {
		case strings.HasPrefix(l, "| `-"):
			cell, _, _ := strings.Cut(strings.TrimPrefix(l, "| "), " | ")
			for _, m := range regexp.MustCompile("`(-[^`]+)`").FindAllStringSubmatch(cell, -1) {
				out = append(out, m[1])
			}
		case strings.HasPrefix(l, "It takes these of [mcpprobe's global options]"):
			for _, m := range regexp.MustCompile("`(-[^`]+)`").FindAllStringSubmatch(l, -1) {
				out = append(out, m[1])
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestCommandDocsMatchHelp reads the committed pages as a user would and
// checks them against --help: every flag a command's help lists is on its
// page, and every flag its page lists is in its help.
func TestCommandDocsMatchHelp(t *testing.T) {
	_, runs := commandDocs(t)
	for key, h := range runs {
		name := "mcpprobe.md"
		if len(h.path) > 0 {
			name = fileOf(h.path)
		}
		page, err := os.ReadFile(filepath.Join(commandDocsDir, name))
		if err != nil {
			t.Errorf("%q: %v", key, err)
			continue
		}
		var inHelp []string
		for _, ns := range helpFlags(h.help) {
			inHelp = append(inHelp, ns...)
		}
		// the page lists a global flag by its long name only
		var want []string
		for _, n := range inHelp {
			if !strings.HasPrefix(n, "--") && len(h.path) > 0 && !slices.Contains(own(h.cmd), n) {
				continue
			}
			want = append(want, n)
		}
		sort.Strings(want)
		got := docFlags(string(page), h.cmd.FullName())
		if len(want) == 0 {
			t.Errorf("%q: no flags read from its --help:\n%s", key, h.help)
		}
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Errorf("docs/commands/%s, %s: --help lists %s, the page does not", name, h.cmd.FullName(), n)
			}
		}
		for _, n := range got {
			if !slices.Contains(want, n) {
				t.Errorf("docs/commands/%s, %s: the page lists %s, --help does not", name, h.cmd.FullName(), n)
			}
		}
	}
}

// own is every name of the command's own visible flags.
func own(c *cli.Command) []string {
	var out []string
	for _, f := range c.VisibleFlags() {
		for _, n := range f.Names() {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

func TestHelpFlagsReadsSections(t *testing.T) {
	help := "NAME:\n   x - y\n\nOPTIONS:\n   --save DIR  write\n               -not a flag\n   --long-name duration\n                   wraps\n\nGLOBAL OPTIONS (the ones x takes):\n   --out, -o FILE  write\n"
	got := helpFlags(help)
	if !slices.Equal(got["OPTIONS"], []string{"--save", "--long-name"}) {
		t.Errorf("OPTIONS = %v", got["OPTIONS"])
	}
	if !slices.Equal(got["GLOBAL OPTIONS (the ones x takes)"], []string{"--out", "-o"}) {
		t.Errorf("GLOBAL = %v", got)
	}
}

// listed is the subcommands a command's --help lists: every one not
// hidden (the library's VisibleCommands also leaves out one named help).
func listed(c *cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, s := range c.Commands {
		if !s.Hidden {
			out = append(out, s)
		}
	}
	return out
}
