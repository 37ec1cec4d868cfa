package main

import (
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/faults"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
)

func (rs *runState) proxyCommand() *cli.Command {
	return &cli.Command{
		Name:   "proxy",
		Before: rs.before,
		Usage:  "stand in for a stdio server in a real host's config, injecting faults; transparent without any",
		ArgsUsage: "[fault flags] [--trace FILE] -- CMD ARGS…\n" +
			`   e.g. in .mcp.json: {"command": "mcpprobe", "args": ["proxy", "--crash-at", "6", "--trace", "/tmp/t.jsonl", "--", "node", "server.mjs"]}`,
		Flags: flags(faultFlags(), only(targetFlags(), "config", "env", "secret-env"), only(boundFlags(), "max-line", "grace"), only(outputFlags(), "trace")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			t, err := rs.resolveTarget(cmd, rs.targetArgs(cmd))
			if err != nil {
				return err
			}
			if t.Kind != "stdio" {
				return usageErr("proxy stands in for a stdio server; give it a command")
			}
			plan, err := planFromFlags(cmd, faults.InProxy)
			if err != nil {
				return err
			}
			// The proxy may relay gigabytes: its trace is written as it
			// comes and held nowhere.
			trace := transport.NewTrace(time.Now())
			trace.Forget()
			if path := cmd.String("trace"); path != "" {
				f, err := openStream(path)
				if err != nil {
					return usageErr("--trace %s: %v", path, err)
				}
				defer func() {
					err := trace.Err()
					if cerr := f.Close(); err == nil {
						err = cerr
					}
					if err != nil {
						(&rs.outputs).fail("--trace "+path, err)
					}
				}()
				_ = trace.Stream(f, rs.redactor().Bytes)
			}
			code, err := faults.Proxy(ctx, rs.stdin, rs.stdout, rs.stderr, faults.ProxyOptions{
				Command: t.Command, Args: t.Args, Env: t.Env, Dir: t.Dir, Plan: plan, Trace: trace,
				MaxLine: int(cmd.Int("max-line")), Grace: cmd.Duration("grace"),
			})
			if err != nil {
				return &exitError{code: exitNoTarget, msg: err.Error()}
			}
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}
