package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpprobe/mcpprobe/internal/editdist"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/urfave/cli/v3"
)

// Usage errors read as git's and gh's do: one line naming the flag or the
// value and the fix, then a pointer to the command's --help (run adds
// it), never the whole help on top.

// onUsageError is every command's OnUsageError: what urfave/cli reports
// about the command line, in the user's terms.
func (rs *runState) onUsageError(_ context.Context, cmd *cli.Command, err error, _ bool) error {
	return usageErr("%s", parseMessage(rs.args, cmd, rs.fullTree(cmd), err.Error()))
}

// urfave/cli's parse errors, read to be said in the user's terms.
// Compiled where a usage error is reported, once a run at most, not at
// every start; TestUsageErrors fails if a library upgrade changes their
// wording.
const (
	reUnknown  = `^flag provided but not defined: -+(.*)$`
	reNoValue  = `^flag needs an argument: -*(.*)$`
	reBadValue = `(?s)^invalid value "(.*)" for flag -+([^:]+): `
)

// parseMessage rewrites one of urfave/cli's parse errors; tree is the
// whole command tree, which cmd may not be part of (appFor).
func parseMessage(args []string, cmd, tree *cli.Command, msg string) string {
	if m := regexp.MustCompile(reUnknown).FindStringSubmatch(msg); m != nil {
		return unknownFlag(args, cmd, tree, m[1])
	}
	if m := regexp.MustCompile(reNoValue).FindStringSubmatch(msg); m != nil {
		f := lookupFlag(cmd, m[1])
		return fmt.Sprintf("%s needs a value, such as %s %s", dash(m[1]), dash(m[1]), example(f))
	}
	if m := regexp.MustCompile(reBadValue).FindStringSubmatch(msg); m != nil {
		// A Validator's message names the flag and says what it wants
		// (flags.go); a value of the wrong kind gets its kind.
		if inner := msg[len(m[0]):]; strings.HasPrefix(inner, "--") {
			return inner
		}
		f := lookupFlag(cmd, m[2])
		return fmt.Sprintf("%s %q: want %s", dash(m[2]), m[1], kindOf(f))
	}
	return msg
}

// unknownFlag names the flag, the flag it may be a typo of, and, when it
// follows the target's command, says where the server's own flags go.
func unknownFlag(args []string, cmd, tree *cli.Command, name string) string {
	typed := dash(name)
	for _, a := range args {
		if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && n == name {
			typed, _, _ = strings.Cut(a, "=")
			break
		}
	}
	msg := "unknown flag " + typed
	// A flag of mcpprobe's that this command does not declare: which
	// commands do, from the command tree. A shared one (--json) is meant
	// for mcpprobe wherever it stands; another command's own (--ref) may
	// be the server's, given without the "--".
	takers := commandsTaking(tree, name)
	if len(takers) > 0 && sharedName(tree, name) {
		return notTaken(cmd, args, typed, name, takers)
	}
	if fixed, ok := dashFix(args, cmd, name); ok {
		return msg + "; a flag of the server's goes after --: " + fixed
	}
	if len(takers) > 0 {
		return notTaken(cmd, args, typed, name, takers)
	}
	if near := nearestFlag(cmd, name); near != "" {
		return msg + "; did you mean " + dash(near) + "?"
	}
	return msg + " for " + commandLabel(cmd)
}

// notTaken says that the command does not take a flag other commands do,
// and which, or why not.
func notTaken(cmd *cli.Command, args []string, typed, name string, takers []string) string {
	if cmd.Root() != cmd {
		if why := notTakenBecause(cmd.Name, name); why != "" {
			return fmt.Sprintf("%s does not apply to %s: %s", typed, commandLabel(cmd), why)
		}
		return fmt.Sprintf("%s does not apply to %s; it applies to %s", typed, commandLabel(cmd), strings.Join(takers, ", "))
	}
	if sub := subcommandOf(cmd, args); slices.Contains(takers, sub) {
		return fmt.Sprintf("%s goes after the command, whose flag it is: mcpprobe %s %s …", typed, sub, typed)
	}
	// A word that is no command (a typo, a target typed first) is what
	// went wrong, whatever flag follows it: `mcpprobe wyre --json ./s`.
	if word := firstWord(cmd, args); word != "" && cmd.Command(word) == nil {
		return unknownCommand(cmd, word).Error()
	}
	return fmt.Sprintf("%s does not apply to servers, which mcpprobe --config FILE runs; it applies to %s", typed, strings.Join(takers, ", "))
}

// commandsTaking are the commands of the tree under root that declare a
// flag of that name, as the user types them ("survey merge").
func commandsTaking(root *cli.Command, name string) []string {
	var out []string
	for _, c := range visibleCommands(root) {
		if lookupFlag(c.cmd, name) != nil {
			out = append(out, c.path)
		}
	}
	return out
}

// pathCommand is a command with the words that run it ("survey merge").
type pathCommand struct {
	path string
	cmd  *cli.Command
}

// visibleCommands is every command and subcommand under root that is not
// hidden, each parent before its subcommands, in the tree's order.
func visibleCommands(root *cli.Command) []pathCommand {
	var out []pathCommand
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		for _, s := range c.Commands {
			if s.Hidden {
				continue
			}
			p := strings.TrimSpace(path + " " + s.Name)
			out = append(out, pathCommand{p, s})
			walk(s, p)
		}
	}
	walk(root, "")
	return out
}

// sharedName is whether a flag of that name comes from a shared group
// (flags.go files those under a category) in some command of the tree.
func sharedName(root *cli.Command, name string) bool {
	for _, c := range root.Commands {
		if f, ok := lookupFlag(c, name).(cli.CategorizableFlag); ok && f.GetCategory() != "" {
			return true
		}
	}
	return false
}

// notTakenBecause is why a command has no flag of that name where the
// commands that have it would not say.
func notTakenBecause(command, flag string) string {
	switch command + " " + flag {
	case "proxy inherit-env":
		return "the proxy passes its server the whole environment its host gave it, as the host chose it"
	case "survey inherit-env":
		return "survey gives each server its entry's env, PATH and a private HOME and TMPDIR, and nothing else"
	}
	return ""
}

// dashFix rewrites the command line with "--" before the target when an
// unknown flag comes after a word that is not ours: `wire ./server
// -banner` was meant as `wire -- ./server -banner`.
func dashFix(args []string, cmd *cli.Command, name string) (string, bool) {
	if cmd.Root() == cmd || len(args) == 0 {
		return "", false
	}
	// Find the subcommand, then split its words into ours (flags and
	// their values) up to the first word that is not, and the rest.
	i := slices.Index(args, cmd.Name)
	if i < 0 {
		return "", false
	}
	head := []string{"mcpprobe"}
	head = append(head, args[1:i+1]...)
	words := args[i+1:]
	for j := 0; j < len(words); j++ {
		w := words[j]
		if !strings.HasPrefix(w, "-") || w == "-" {
			rest := words[j:]
			bad := slices.IndexFunc(rest, func(s string) bool {
				n, _, _ := strings.Cut(strings.TrimLeft(s, "-"), "=")
				return strings.HasPrefix(s, "-") && n == name
			})
			if bad < 0 {
				return "", false
			}
			return shellJoin(head) + " -- " + shellJoin(rest), true
		}
		n, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f := lookupFlag(cmd, n)
		if f == nil {
			return "", false // the unknown flag comes before any target word
		}
		head = append(head, w)
		if !hasValue && takesValue(f) && j+1 < len(words) {
			j++
			head = append(head, words[j])
		}
	}
	return "", false
}

// quotedCommand is the hint for a command line given as one word: it is
// no file and no command on PATH, but it has spaces, so it was quoted by
// mistake (`wire "node server.mjs"`).
func quotedCommand(cmdName string, args []string) error {
	if len(args) != 1 || !strings.ContainsAny(args[0], " \t") || strings.Contains(args[0], "://") {
		return nil
	}
	if _, err := os.Stat(args[0]); err == nil {
		return nil
	}
	if _, err := exec.LookPath(args[0]); err == nil {
		return nil
	}
	return usageErr("%q is not a file or a command; to run a command with arguments, give them as separate words after --: mcpprobe %s -- %s",
		args[0], cmdName, args[0])
}

// nearestFlag is the command's flag closest to name, if one is a likely
// typo of it (edit distance 2 or less, or a prefix).
func nearestFlag(cmd *cli.Command, name string) string {
	best, bestD := "", 3
	for _, f := range allFlags(cmd) {
		for _, n := range f.Names() {
			if len(n) < 2 {
				continue
			}
			d := editdist.Distance(name, n, 2)
			if strings.HasPrefix(n, name) && len(name) >= 3 {
				d = min(d, 1)
			}
			if d < bestD {
				best, bestD = n, d
			}
		}
	}
	return best
}

// allFlags are the flags the command takes: every shared flag is Local
// (flags.go), so a command takes the ones it declares and no others.
func allFlags(cmd *cli.Command) []cli.Flag { return cmd.Flags }

func lookupFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range allFlags(cmd) {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.TakesValue()
	}
	return false
}

// kindOf says what a flag's value must look like.
func kindOf(f cli.Flag) string {
	switch f.(type) {
	case *cli.DurationFlag:
		return "a duration such as 10s, 500ms or 2m"
	case *cli.IntFlag, *cli.Uint64Flag, *cli.UintFlag, *cli.Int64Flag:
		return "a whole number"
	case *cli.BoolFlag:
		return "true or false (or the flag alone)"
	}
	return "another value"
}

func example(f cli.Flag) string {
	switch f.(type) {
	case *cli.DurationFlag:
		return "10s"
	case *cli.IntFlag, *cli.Uint64Flag, *cli.UintFlag, *cli.Int64Flag:
		return "5"
	}
	if d, ok := f.(cli.DocGenerationFlag); ok {
		if u := strings.Fields(d.GetUsage()); len(u) > 0 {
			for _, w := range u {
				if strings.Trim(w, "`") != w {
					return strings.Trim(w, "`,.;:")
				}
			}
		}
	}
	return "VALUE"
}

// dash writes a flag name as the user types it: -n, --timeout.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func commandLabel(cmd *cli.Command) string {
	if cmd.Root() == cmd {
		return "mcpprobe"
	}
	return strings.TrimPrefix(cmd.FullName(), cmd.Root().Name+" ")
}

func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t'\"$`\\*?;&|<>()") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

// helpPointer is the line after every usage error: the --help of the
// command the user ran, or mcpprobe's.
func helpPointer(root *cli.Command, args []string) string {
	if c := subcommandOf(root, args); c != "" {
		return fmt.Sprintf("Run 'mcpprobe %s --help' for usage.", c)
	}
	return "Run 'mcpprobe --help' for usage."
}

// subcommandOf is the name of the subcommand args run, skipping global
// flags and their values, or "".
func subcommandOf(root *cli.Command, args []string) string {
	if c := root.Command(firstWord(root, args)); c != nil && !c.Hidden && !meta(c.Name) {
		return c.Name
	}
	return ""
}

// firstWord is the first argument after mcpprobe that is neither a flag
// nor a flag's value: the command, or what was typed in its place.
func firstWord(root *cli.Command, args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return ""
		}
		if strings.HasPrefix(a, "-") {
			n, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if f := flagInTree(root, n); f != nil && !hasValue && takesValue(f) {
				i++
			}
			continue
		}
		return a
	}
	return ""
}

// flagInTree is the flag of that name as mcpprobe or any of its commands
// declares it: a command's flag typed before the command still takes its
// value there (`--fail-on warning wire`), so the value is no command.
func flagInTree(root *cli.Command, name string) cli.Flag {
	if f := lookupFlag(root, name); f != nil {
		return f
	}
	for _, c := range root.Commands {
		if f := lookupFlag(c, name); f != nil {
			return f
		}
	}
	return nil
}

// helpCommand is `mcpprobe help [COMMAND]`.
func (rs *runState) helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the help of mcpprobe or of a command",
		ArgsUsage: "[COMMAND]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			root := cmd.Root()
			switch cmd.Args().Len() {
			case 0:
				return cli.ShowRootCommandHelp(root)
			case 1:
				name := cmd.Args().First()
				if c := root.Command(name); c != nil && !c.Hidden {
					return cli.ShowCommandHelp(ctx, root, name)
				}
				return unknownCommand(root, name)
			}
			return usageErr("help takes one command, got %d words", cmd.Args().Len())
		},
	}
}

// versionCommand is `mcpprobe version`, the same line as --version.
func (rs *runState) versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print mcpprobe's version",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr("version takes no arguments")
			}
			fmt.Fprintf(cmd.Root().Writer, "mcpprobe version %s\n", rs.version)
			return nil
		},
	}
}

// rootAction runs for `mcpprobe` alone (its help) and for a word that is
// no command.
func (rs *runState) rootAction(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return unknownCommand(cmd, cmd.Args().First())
	}
	if cmd.IsSet("config") {
		return rs.listServers(cmd) // mcpprobe --config FILE is servers --config FILE
	}
	return cli.ShowRootCommandHelp(cmd)
}

// rootBefore refuses mcpprobe's own flags before a command: they are
// servers' (mcpprobe --config FILE), and a command takes its own.
func rootBefore(ctx context.Context, cmd *cli.Command) (context.Context, error) {
	if !cmd.Args().Present() || cmd.Command(cmd.Args().First()) == nil {
		return ctx, nil
	}
	for _, f := range cmd.Flags {
		if n := f.Names()[0]; f.IsSet() && n != "help" && n != "version" {
			return ctx, usageErr("--%s goes after the command: mcpprobe %s --%s …", n, cmd.Args().First(), n)
		}
	}
	return ctx, nil
}

func unknownCommand(root *cli.Command, name string) error {
	var names []string
	best, bestD := "", 3
	for _, c := range root.Commands {
		if c.Hidden || meta(c.Name) {
			continue
		}
		names = append(names, c.Name)
		if d := editdist.Distance(name, c.Name, 2); d < bestD {
			best, bestD = c.Name, d
		}
	}
	if best != "" {
		return usageErr("unknown command %q; did you mean %s?", name, best)
	}
	if strings.Contains(name, "/") || strings.Contains(name, ".") {
		return usageErr("unknown command %q; a target comes after a command: mcpprobe wire %s", name, name)
	}
	return usageErr("unknown command %q; the commands are %s", name, strings.Join(names, ", "))
}

// buildVersion is the version -ldflags set, or else the module version
// the Go toolchain stamped (go install …@v1.2.3), or "dev".
func buildVersion(ldflags string) string {
	if ldflags != "dev" && ldflags != "" {
		return ldflags
	}
	return buildInfoVersion()
}

// configureCompletion makes `mcpprobe completion SHELL` visible in the
// help: it prints a script for bash, zsh, fish or PowerShell.
func configureCompletion(c *cli.Command) {
	c.Hidden = false
	c.Usage = "print a shell completion script: bash, zsh, fish or pwsh (see its --help)"
	c.ArgsUsage = "bash | zsh | fish | pwsh"
}

// setUsageErrors gives every command the one usage-error path.
func (rs *runState) setUsageErrors(c *cli.Command) {
	c.OnUsageError = rs.onUsageError
	for _, s := range c.Commands {
		rs.setUsageErrors(s)
	}
}

// meta are the commands about mcpprobe itself rather than a server.
func meta(name string) bool { return name == "help" || name == "version" || name == "completion" }

// targetForms is every way to name the server a probing command takes.
const targetForms = "./server | -- CMD ARGS… | URL | --config FILE NAME"

// usageLines are the target forms of the commands that probe a server,
// for their usage lines; setUsageLines puts every --fail-on gate the
// command's flag takes before them (TestUsageLinesMatchBehaviour holds
// the line and what the command accepts together). They replace the
// ArgsUsage each command's file sets. A function, so that the table
// cannot be changed.
func usageLines() map[string]string {
	return map[string]string{
		"wire":      targetForms,
		"report":    targetForms,
		"budget":    targetForms,
		"snapshot":  targetForms,
		"bench":     targetForms,
		"faults":    targetForms,
		"malformed": targetForms,
		"call":      "./server TOOL | TOOL -- CMD ARGS… | URL TOOL | --config FILE NAME TOOL",
		"read":      "./server URI | URI -- CMD ARGS… | URL URI | --config FILE NAME URI",
		"prompt":    "./server PROMPT | PROMPT -- CMD ARGS… | URL PROMPT | --config FILE NAME PROMPT",
		"diff": "--ref FILE TARGET | A -- B\n" +
			"   (TARGET, A, B: ./server, CMD ARGS… (B after --), a URL, --config FILE NAME, or a reference file:\n" +
			"   an MCP tools/list result or response, MCP tools, Anthropic or OpenAI tools,\n" +
			"   an mcpprobe snapshot, wire --json output, or a wire --save directory)",
	}
}

// setUsageLines writes each probing command's usage line from usageLines.
func setUsageLines(app *cli.Command) {
	lines := usageLines()
	for _, c := range app.Commands {
		args, ok := lines[c.Name]
		if !ok {
			continue
		}
		gate := ""
		if gs := gatesOf(c); len(gs) > 0 {
			gate = "[--fail-on " + strings.Join(gs, "|") + "] "
		}
		c.ArgsUsage = gate + args
	}
}

// gatesOf are the gates cmd's --fail-on takes, as its Validator says:
// none for a command without the flag.
func gatesOf(cmd *cli.Command) []string {
	f, ok := lookupFlag(cmd, "fail-on").(*cli.StringSliceFlag)
	if !ok {
		return nil
	}
	var out []string
	for _, g := range findings.Gates {
		if f.Validator([]string{g.Name}) == nil {
			out = append(out, g.Name)
		}
	}
	return out
}
