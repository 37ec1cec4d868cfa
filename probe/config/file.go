package config

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/mcpprobe/mcpprobe/transport"
)

// Kind is the command run on each server of the file.
type Kind string

// The commands that run on every server of a host config.
const (
	Wire   Kind = "wire"
	Budget Kind = "budget"
	Report Kind = "report"
)

// FileOptions run one command on every server of a host config file
// (ListConfig's list), as --config FILE --all does.
type FileOptions struct {
	Kind    Kind
	Path    string
	Format  launch.Format
	Servers []launch.ConfigServer
	Jobs    int
	Hosts   []hosts.Host // budget's and report's
	Date    string       // report's
	// Target is one server's options: the run's flags applied to it. An
	// error (a --env or header the target cannot take) is its row.
	Target func(s launch.ConfigServer) (wire.Options, error)
	// StartupTimeoutSet says the user gave the startup timeout; else a
	// server the file gives one (Codex's startup_timeout_sec) waits as its
	// host would.
	StartupTimeoutSet bool
	// Trace, when set, is a fresh trace for the next server to run. It is
	// called in name order once every target is resolved, so that the
	// connections are numbered in name order and every secret is known to
	// the redaction before any server starts.
	Trace func() *transport.Trace
	// Done, when set, is told each time a server is done: how many are,
	// of how many.
	Done func(done, of int)
}

// RunFile resolves every server of the file, then runs the command on
// each, at most Jobs at a time (Run).
func RunFile(ctx context.Context, o FileOptions) (*Result, error) {
	if o.Target == nil {
		return nil, fmt.Errorf("config: no Target")
	}
	list := append([]launch.ConfigServer(nil), o.Servers...)
	opts := resolve(list, o)
	var mu sync.Mutex
	done := 0
	return Run(ctx, Options{Path: o.Path, Format: o.Format, Servers: list, Jobs: o.Jobs, Hosts: o.Hosts,
		Run: func(ctx context.Context, i int, s launch.ConfigServer) (Single, error) {
			defer func() {
				mu.Lock()
				done++
				if o.Done != nil {
					o.Done(done, len(list))
				}
				mu.Unlock()
			}()
			return runOne(ctx, o, opts[i], s)
		}})
}

// resolve is each runnable server's options, in list order; a server
// whose options cannot be had gets the error as its Err.
func resolve(list []launch.ConfigServer, o FileOptions) []wire.Options {
	opts := make([]wire.Options, len(list))
	for i := range list {
		s := &list[i]
		if s.Disabled || s.Err != nil {
			continue
		}
		w, err := o.Target(*s)
		if err != nil {
			s.Err = err
			continue
		}
		w.Progress = nil // the run's own progress line counts servers
		if s.StartupTimeout > 0 && !o.StartupTimeoutSet {
			w.Spec.Probe.StartupTimeout = s.StartupTimeout
		}
		opts[i] = w
	}
	if o.Trace != nil {
		for i, s := range list {
			if !s.Disabled && s.Err == nil {
				opts[i].Spec.Launch.Trace = o.Trace()
			}
		}
	}
	return opts
}

// runOne runs the command on one server. A typed nil result is no
// result: the error says why.
func runOne(ctx context.Context, o FileOptions, w wire.Options, s launch.ConfigServer) (Single, error) {
	var r Single
	var err error
	switch o.Kind {
	case Budget:
		var b *budget.Result
		if b, err = budget.Run(ctx, budget.Options{Options: w, Hosts: o.Hosts, Filter: Filter(s)}); b != nil {
			r = b
		}
	case Report:
		var rr *report.Result
		if rr, err = report.Run(ctx, report.Options{Options: w, Hosts: o.Hosts, Date: o.Date, Filter: Filter(s)}); rr != nil {
			r = rr
		}
	default:
		var wr *wire.Result
		if wr, err = wire.Run(ctx, w); wr != nil {
			r = wr
		}
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// NoneProbed says no server could be probed, and at least one was tried:
// the run as a whole failed.
func (r *Result) NoneProbed() bool { return r.Probed() == 0 && r.Failed() > 0 }
