package main

import (
	"context"
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func (rs *runState) budgetCommand() *cli.Command {
	return &cli.Command{
		Name:      "budget",
		Before:    rs.before,
		Usage:     "what each AI host delivers of the server to the model, and a lint of it",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME | --config FILE --all",
		Flags: flags(append(append(hostFlags(),
			&cli.BoolFlag{Name: "show-cut", Usage: "print the delivered head and the lost tail of every cut text"},
			&cli.StringFlag{Name: "view", Usage: "print, as markdown, exactly what `HOST` delivers to the model"},
			&cli.BoolFlag{Name: "per-host-tools", Usage: "with --json, list every tool under every host (default: under each host only the tools it does not deliver as sent; tools_as_sent counts the others)"},
		), wholeConfigFlags()...), probing("budget", "cut", "schema-drop", "lint-error", "lint-warning")...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			hc, err := hostChoice(cmd)
			if err != nil {
				return err
			}
			all, err := rs.wantsAll(ctx, cmd)
			if err != nil {
				return err
			}
			if all {
				return rs.runAll(ctx, cmd, hc.Selected, "")
			}
			o := budget.Options{Hosts: hc.Selected, View: hc.View, Filter: rs.configFilter(ctx, cmd), PerHostTools: cmd.Bool("per-host-tools")}
			if err := budgetConflicts(cmd, hc.View != nil); err != nil {
				return err
			}
			tf, err := rs.openTrace(cmd)
			if err != nil {
				return err
			}
			defer tf.close()
			if o.Options, err = rs.wireOptions(cmd, rs.targetArgs(cmd), tf); err != nil {
				return err
			}
			r, err := budget.Run(ctx, o)
			if err != nil {
				return rs.failure(err)
			}
			if r.TokensErr != nil {
				fmt.Fprintf(cmd.Root().ErrWriter, "mcpprobe: token counts unavailable: %v\n", r.TokensErr)
			}
			return rs.emit(cmd, reports.NewBudget(r, cmd.String("view") != "", cmd.Bool("show-cut")))
		},
	}
}

// budgetConflicts refuses the output flags that cannot go together.
func budgetConflicts(cmd *cli.Command, view bool) error {
	switch {
	case cmd.Bool("per-host-tools") && !cmd.Bool("json"):
		return usageErr("--per-host-tools is for --json: the text and --view already show each host's tools as it changes them")
	case cmd.Bool("show-cut") && (cmd.IsSet("view") || cmd.Bool("json")):
		return usageErr("--show-cut and --%s conflict: --show-cut adds the cut texts to budget's text table", map[bool]string{true: "view", false: "json"}[cmd.IsSet("view")])
	case view && cmd.Bool("json"):
		return usageErr("--view and --json conflict: --view prints one host's delivery as markdown; budget --json alone has every host's")
	}
	return nil
}

// hostFlags is the host-flag group: every command that judges a server
// against hosts (budget, report, call, read, prompt, bench) takes it and
// reads it with hostChoice, so a profile of --hosts or a pick of --host
// reaches every figure that depends on a host.
func hostFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "host", Usage: "`ID`, ID@VERSION for the rules of an older version (claude-code@2.1.280), or ID=CUT to override its description cut: only those hosts (repeatable, or comma-separated; all is the strictest of each rule); default every known host"},
		&cli.StringFlag{Name: "hosts", Usage: "host profiles `FILE` that replaces or extends the built-in ones"},
	}
}

// hostChoice reads the host-flag group, and --view where the command has
// it; a file or an id that does not work is a usage error, before any
// server starts.
func hostChoice(cmd *cli.Command) (hosts.Choice, error) {
	f := hosts.Flags{File: cmd.String("hosts"), View: cmd.String("view")}
	if cmd.IsSet("host") {
		f.Specs = cmd.StringSlice("host")
	}
	c, err := hosts.Resolve(f)
	if err != nil {
		return hosts.Choice{}, usageErr("%v", err)
	}
	return c, nil
}
