package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
)

func (rs *runState) hostsCommand() *cli.Command {
	return &cli.Command{
		Name:  "hosts",
		Usage: "list the AI hosts mcpprobe knows, or show one host's rules with where each was read",
		UsageText: "mcpprobe hosts            (every host: its id, tool-count limits, result rule, whether read in its code)\n" +
			"   mcpprobe hosts ID         (one host: each rule, how it is known, its date and source)\n" +
			"   mcpprobe hosts --hosts FILE [ID]",
		Before: rs.before,
		Flags: flags([]cli.Flag{
			&cli.StringFlag{Name: "hosts", Usage: "host profiles `FILE` that replaces or extends the built-in ones"},
			&cli.BoolFlag{Name: "json", Usage: "print the profiles (or the one) as the registry holds them, JSON"},
		}, only(outputFlags(), "no-color", "wide")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return usageErr("hosts takes at most one host id")
			}
			hs := hosts.Known()
			if f := cmd.String("hosts"); f != "" {
				var err error
				if hs, err = hosts.Load(f, hs); err != nil {
					return usageErr("--hosts: %v", err)
				}
			}
			if id := cmd.Args().First(); id != "" {
				for _, h := range hs {
					if h.ID == id {
						return rs.showHost(cmd, h)
					}
				}
				ids := make([]string, len(hs))
				for i, h := range hs {
					ids[i] = h.ID
				}
				return usageErr("unknown host %q; known: %s", id, strings.Join(ids, ", "))
			}
			if cmd.Bool("json") {
				return writeJSON(cmd, hs)
			}
			var b bytes.Buffer
			w := rs.screenFor(cmd, &b)
			fmt.Fprintf(w, "%d hosts. mcpprobe hosts ID shows one host's rules with their sources; docs/hosts.md has them all.\n", len(hs))
			var rows [][]string
			for _, h := range hs {
				limits := "unknown"
				var ls []string
				for _, l := range h.ToolLimits {
					ls = append(ls, fmt.Sprintf("%d per %s, %s", l.Limit, map[string]string{"request": "request", "server": "server", "mcp": "all MCP"}[l.Scope], l.Over))
				}
				if len(ls) > 0 {
					limits = strings.Join(ls, "; ")
				}
				result := h.Result.Rule
				if result == "" {
					result = "unknown"
				}
				code := "no"
				for _, l := range h.Rules() {
					if l.Sure == hosts.SureCode {
						code = "yes"
					}
				}
				rows = append(rows, []string{terminal.Cell(h.ID), terminal.Cell(h.Name), terminal.Cell(limits), result, code})
			}
			terminal.Table(w, terminal.Terminal, []string{"id", "host", "tool count", "result", "read in code"}, rows)
			return rs.flush(cmd, w, &b)
		},
	}
}

// showHost prints one host's rules, each with how it is known, its date
// and its source.
func (rs *runState) showHost(cmd *cli.Command, h hosts.Host) error {
	if cmd.Bool("json") {
		return writeJSON(cmd, h)
	}
	var b bytes.Buffer
	w := rs.screenFor(cmd, &b)
	fmt.Fprintf(w, "%s (%s), measured %s\n", terminal.Cell(h.Name), terminal.Cell(h.ID), terminal.Cell(h.MeasuredOn))
	if h.Aliases != "" {
		fmt.Fprintf(w, "also: %s\n", terminal.Cell(h.Aliases))
	}
	for _, l := range h.Rules() {
		how := l.Sure
		if how == "" {
			how = "source"
		}
		if l.Date != "" {
			how += ", " + l.Date
		}
		fmt.Fprintf(w, "\n%s: %s\n  %s: %s\n", l.What, terminal.Cell(l.Rule), how, terminal.Cell(l.Source))
	}
	if h.Notes != "" {
		fmt.Fprintf(w, "\nnotes: %s\n", terminal.Cell(h.Notes))
	}
	return rs.flush(cmd, w, &b)
}

func writeJSON(cmd *cli.Command, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.Root().Writer, "%s\n", out)
	return err
}
