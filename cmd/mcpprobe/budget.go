package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func (rs *runState) budgetCommand() *cli.Command {
	return &cli.Command{
		Name:      "budget",
		Before:    rs.before,
		Usage:     "what each AI host delivers of the server to the model, and a lint of it",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME | --config FILE --all",
		Flags: flags(append([]cli.Flag{
			&cli.StringSliceFlag{Name: "host", Usage: "`ID` or ID=CUT to override its description cut (repeatable, or comma-separated); default every known host and all"},
			&cli.StringFlag{Name: "hosts", Usage: "host profiles `FILE` that replaces or extends the built-in ones"},
			&cli.BoolFlag{Name: "show-cut", Usage: "print the delivered head and the lost tail of every cut text"},
			&cli.StringFlag{Name: "view", Usage: "print, as markdown, exactly what `HOST` delivers to the model"},
		}, wholeConfigFlags()...), probing("budget", "cut", "schema-drop", "lint-error", "lint-warning")...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			hosts, err := selectHosts(cmd)
			if err != nil {
				return err
			}
			all, err := rs.wantsAll(ctx, cmd)
			if err != nil {
				return err
			}
			if all {
				return rs.runAll(ctx, cmd, hosts.selected, "")
			}
			o := budget.Options{Hosts: hosts.selected, Filter: rs.configFilter(ctx, cmd)}
			if cmd.Bool("show-cut") && (cmd.IsSet("view") || cmd.Bool("json")) {
				return usageErr("--show-cut and --%s conflict: --show-cut adds the cut texts to budget's text table", map[bool]string{true: "view", false: "json"}[cmd.IsSet("view")])
			}
			if id := cmd.String("view"); id != "" {
				if cmd.Bool("json") {
					return usageErr("--view and --json conflict: --view prints one host's delivery as markdown; budget --json alone has every host's")
				}
				vh, err := budget.Select(hosts.all, []string{id})
				if err != nil {
					return usageErr("--view: %v", err)
				}
				o.View = &vh[0]
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
			out := budgetOutcome(r)
			if cmd.String("view") != "" {
				out.text, out.markdown = func(w io.Writer) { reports.BudgetView(w, r) }, true
			} else if cmd.Bool("show-cut") {
				out.text = func(w io.Writer) { reports.BudgetText(w, r, true) }
			}
			return rs.emit(cmd, out)
		},
	}
}

func budgetOutcome(r *budget.Result) outcome {
	c := r.Capture
	return outcome{command: "budget", target: c.Target, protocol: c.ProtocolVersion,
		findings: r.Findings(), counts: r.Counts(),
		section: func() []byte { return reports.BudgetSection(r) },
		text:    func(w io.Writer) { reports.BudgetText(w, r, false) }}
}

type hostSet struct {
	all      []budget.Host // every profile known, after --hosts
	selected []budget.Host
}

// selectHosts reads --hosts and --host; a file or an id that does not
// work is a usage error, before any server starts.
func selectHosts(cmd *cli.Command) (hostSet, error) {
	all := budget.Known()
	if f := cmd.String("hosts"); f != "" {
		var err error
		if all, err = budget.Load(f, all); err != nil {
			return hostSet{}, usageErr("--hosts: %v", err)
		}
	}
	var specs []string
	if cmd.IsSet("host") {
		specs = cmd.StringSlice("host")
	}
	sel, err := budget.Select(all, specs)
	if err != nil {
		return hostSet{}, usageErr("--host: %v", err)
	}
	return hostSet{all: all, selected: sel}, nil
}
