package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/lint"
	"github.com/mcpprobe/mcpprobe/probe/tokens"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/urfave/cli/v3"
)

func budgetCommand() *cli.Command {
	return &cli.Command{
		Name:      "budget",
		Before:    before("cut", "schema-drop", "lint-error", "lint-warning"),
		Usage:     "what each AI host delivers of the server to the model, and a lint of it",
		ArgsUsage: "./server | -- CMD ARGS… | URL | --config FILE NAME",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "host", Usage: "`ID` or ID=CUT to override its description cut (repeatable, or comma-separated); default every known host and all"},
			&cli.StringFlag{Name: "hosts", Usage: "host profiles `FILE` that replaces or extends the built-in ones"},
			&cli.BoolFlag{Name: "show-cut", Usage: "print the delivered head and the lost tail of every cut text"},
			&cli.StringFlag{Name: "view", Usage: "print, as markdown, exactly what `HOST` delivers to the model"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			hosts, err := selectHosts(cmd)
			if err != nil {
				return err
			}
			s, err := probeTarget(ctx, cmd, cmd.Root().ErrWriter)
			if err != nil {
				return err
			}
			b := analyseBudget(s.capture, hosts)
			if b.tokensErr != nil {
				fmt.Fprintf(cmd.Root().ErrWriter, "mcpprobe: token counts unavailable: %v\n", b.tokensErr)
			}
			var out bytes.Buffer
			switch {
			case cmd.String("view") != "":
				id := cmd.String("view")
				vh, err := budget.Select(hosts.all, []string{id})
				if err != nil {
					return usageErr("--view: %v", err)
				}
				r := budget.Compute(s.capture, vh)
				reports.View(&out, r.Hosts[0], s.capture)
			case cmd.Bool("json"):
				out.Write(reports.BudgetJSON(b.result, b.tokens, b.findings, b.lint, header(s)))
			default:
				fmt.Fprintf(&out, "%s · %s tools · what each host delivers (description length in UTF-16 units)\n\n", reports.Escape(reports.ServerName(s.capture)), reports.Num(len(s.capture.Tools.Items)))
				reports.Delivery(&out, reports.Terminal, b.result, s.capture)
				fmt.Fprintln(&out)
				if b.tokens != nil {
					reports.Tokens(&out, reports.Terminal, s.capture, *b.tokens)
					reports.TokenTable(&out, reports.Terminal, *b.tokens)
					fmt.Fprintln(&out)
				}
				if cmd.Bool("show-cut") {
					reports.ShowCut(&out, b.result)
				}
				fmt.Fprintln(&out, "Findings:")
				reports.Findings(&out, reports.Terminal, reports.SortFindings(append(append([]probe.Finding(nil), b.findings...), b.lint...)))
			}
			if err := write(cmd, cmd.Root().Writer, s.redact, out.Bytes()); err != nil {
				return err
			}
			return gate(cmd, b.all(s.capture), nil)
		},
	}
}

type hostSet struct {
	all      []budget.Host // every profile known, after --hosts
	selected []budget.Host
}

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

// budgetRun is the budget of one capture, with its lint and token counts.
type budgetRun struct {
	result    budget.Result
	tokens    *tokens.Definitions
	tokensErr error
	findings  []probe.Finding // budget findings: cuts, drops, instructions
	lint      []probe.Finding
}

func analyseBudget(c *probe.Capture, hosts hostSet) budgetRun {
	b := budgetRun{result: budget.Compute(c, hosts.selected)}
	b.findings = budget.Findings(b.result)
	b.lint = lint.Check(c)
	var names []string
	for _, t := range wire.Tools(c) {
		names = append(names, t.Name)
	}
	if d, err := tokens.OfTools(names, c.Tools.Items); err == nil {
		b.tokens = &d
	} else {
		b.tokensErr = err
	}
	return b
}

// all is every finding: the capture's, the budget's and the lint's.
func (b budgetRun) all(c *probe.Capture) []probe.Finding {
	return append(append(append([]probe.Finding(nil), c.Findings...), b.findings...), b.lint...)
}
