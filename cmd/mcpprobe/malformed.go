package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"
)

func malformedCommand() *cli.Command {
	return &cli.Command{
		Name:      "malformed",
		Before:    beforeNoGates,
		Usage:     "send calls a server should refuse, and show which channel answers each",
		ArgsUsage: "./server | -- CMD ARGS… | URL",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "call", Usage: "`TOOL` to derive cases from (repeatable); default the read-only tools"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			mr, err := runMalformed(ctx, cmd)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if cmd.Bool("json") {
				out.Write(reports.MalformedJSON(mr.results, mr.version))
			} else {
				writeMalformed(&out, reports.Terminal, mr)
			}
			return write(cmd, cmd.Root().Writer, mr.redact, out.Bytes())
		},
	}
}

type malformedRun struct {
	results []malformed.Result
	version string
	redact  *transport.Redactor
}

func runMalformed(ctx context.Context, cmd *cli.Command) (*malformedRun, error) {
	t, err := resolveTarget(cmd, targetArgs(ctx, cmd))
	if err != nil {
		return nil, err
	}
	po := probeOptions(cmd)
	srv, err := launch.Start(ctx, t, launchOptions(cmd))
	if err != nil {
		return nil, cannotProbe(err, nil)
	}
	cl, err := probe.Connect(ctx, srv.Conn(), po)
	if err != nil {
		srv.Stop()
		return nil, cannotProbe(srv.Explain(err), nil)
	}
	cl.ListTools(ctx)
	srv.Stop()
	ver, meta := cl.Capture.ProtocolVersion, cl.Meta()
	names, unseen := map[string]bool{}, map[string]bool{}
	for _, n := range cmd.StringSlice("call") {
		names[n], unseen[n] = true, true
	}
	var cases []malformed.Case
	first := ""
	for _, raw := range cl.Capture.Tools.Items {
		name := gjson.GetBytes(raw, "name").String()
		readOnly := gjson.GetBytes(raw, "annotations.readOnlyHint").Bool()
		if (len(names) > 0 && !names[name]) || (len(names) == 0 && !readOnly) {
			continue
		}
		delete(unseen, name)
		if first == "" {
			first = name
		}
		cases = append(cases, malformed.ToolCases(raw, ver, meta)...)
	}
	for n := range unseen {
		return nil, usageErr("the server has no tool %q", n)
	}
	cases = append(cases, malformed.ProtocolCases(ver, meta, first)...)
	results, err := malformed.Run(ctx, starter(cmd, t), po, cases, cmd.Duration("timeout"))
	if err != nil {
		return nil, &exitError{code: exitNoTarget, msg: err.Error()}
	}
	return &malformedRun{results: results, version: ver, redact: transport.NewRedactor(t.Secrets)}, nil
}

func writeMalformed(w io.Writer, st reports.Style, mr *malformedRun) {
	fmt.Fprintf(w, "malformed calls · protocol %s · an is_error result reaches the model, a JSON-RPC error never does\n\n", reports.Escape(mr.version))
	reports.MalformedTable(w, st, mr.results, mr.version)
	met := 0
	for _, r := range mr.results {
		if r.OK {
			met++
		}
	}
	fmt.Fprintf(w, "\n%d of %d cases answered as the spec (%s) asks.\n", met, len(mr.results), reports.Escape(mr.version))
}
