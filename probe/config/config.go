// Package config runs a command on every server of a host config file
// (--config FILE --all), a bounded number at a time, and adds up what only
// the sum shows: the tokens every request pays across the servers, whether
// a host would defer the tools behind a tool search at that size, tool
// names that collide, and full names over a host's limit.
package config

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/report"
	"github.com/mcpprobe/mcpprobe/probe/wire"
	"github.com/tidwall/gjson"
)

// Single is one server's result: a *wire.Result, *budget.Result or
// *report.Result.
type Single interface {
	Findings() []findings.Finding
	Counts() map[string]int
}

// Options say which file, which servers, and how to probe one.
type Options struct {
	Path    string
	Format  launch.Format
	Servers []launch.ConfigServer // in the order the result keeps (ListConfig's: name order)
	// Jobs bounds how many servers run at once; 0 is DefaultJobs.
	Jobs int
	// Hosts are the profiles the sum is worked out for; none (wire) adds
	// up tools and bytes only.
	Hosts []hosts.Host
	// Run probes one server, each in its own process group through
	// probe/launch, and returns its result; a server that cannot be probed
	// is its error (with what was received before, when there is some).
	Run func(ctx context.Context, i int, s launch.ConfigServer) (Single, error)
}

// DefaultJobs is --jobs when not given: the servers mostly wait (on a
// process starting, on a network), so twice the cores, but not more than
// four, since a server starting is itself often a node or python process
// that wants a core.
func DefaultJobs() int { return min(4, runtime.GOMAXPROCS(0)*2) }

// Server is one server's row.
type Server struct {
	Name     string
	Config   launch.ConfigServer
	Disabled bool   // turned off in the file: not run, not counted
	Result   Single // nil when Err is set or the server is disabled
	Err      error
}

// Failure is a server's error in the three parts of an exit-3 message.
type Failure struct{ What, Received, Try string }

// Explain splits an error the way mcpprobe's exit-3 message does.
func Explain(err error) Failure {
	var fe *probe.FatalError
	if errors.As(err, &fe) {
		return Failure{What: fe.What, Received: fe.Received, Try: fe.Try}
	}
	return Failure{What: err.Error()}
}

// Result is every server's row, and the sums.
type Result struct {
	Path   string
	Format launch.Format
	Jobs   int
	Hosts  bool // the sum has hosts (budget, report)
	// Servers are in Options.Servers' order.
	Servers []Server
	Totals  budget.Totals
}

// Run runs every enabled server, at most Jobs at a time. It returns once
// all are done, or ctx is; a server's failure is its row.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Run == nil {
		return nil, fmt.Errorf("config: no Run")
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs()
	}
	r := &Result{Path: o.Path, Format: o.Format, Jobs: jobs, Hosts: len(o.Hosts) > 0, Servers: make([]Server, len(o.Servers))}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, s := range o.Servers {
		r.Servers[i] = Server{Name: s.Name, Config: s, Disabled: s.Disabled}
		if s.Disabled {
			continue
		}
		if s.Err != nil {
			r.Servers[i].Err = s.Err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				r.Servers[i].Err = ctx.Err()
				return
			}
			defer func() { <-sem }()
			res, err := o.Run(ctx, i, s)
			r.Servers[i].Result, r.Servers[i].Err = res, err
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.Totals = budget.Sum(r.Tools(), o.Hosts)
	return r, nil
}

// Tools are the servers probed, as the sum reads them, in row order.
func (r *Result) Tools() []budget.ServerTools {
	var out []budget.ServerTools
	for _, s := range r.Servers {
		if s.Result == nil {
			continue
		}
		st := budget.ServerTools{Name: s.Name}
		var c *probe.Capture
		var b *budget.Result
		switch v := s.Result.(type) {
		case *wire.Result:
			c = v.Capture
		case *budget.Result:
			c, b = v.Capture, v
		case *report.Result:
			c, b = v.Wire.Capture, v.Budget
		}
		if b != nil && b.Tokens != nil {
			st.Tokens = b.Tokens.Total
			st.Hosts = map[string]budget.HostTokens{}
			for _, h := range b.HostTokens {
				st.Hosts[h.Host] = h
			}
		}
		f := Filter(s.Config)
		if c != nil {
			for i, t := range wire.Tools(c) {
				if f.Keeps(t.Name) {
					st.Tools = append(st.Tools, t.Name)
					st.Descriptions = append(st.Descriptions, gjson.GetBytes(c.Tools.Items[i], "description").String())
				} else {
					st.Filtered = append(st.Filtered, t.Name)
				}
			}
			st.Bytes = wire.Totals(c.Tools).Bytes
		}
		out = append(out, st)
	}
	return out
}

// Filter is the server's include/exclude tool lists as budget reads them.
func Filter(s launch.ConfigServer) budget.ToolFilter {
	return budget.ToolFilter{Include: s.IncludeTools, Exclude: s.ExcludeTools}
}

// Probed and Failed count the rows.
func (r *Result) Probed() int { return r.count(func(s Server) bool { return s.Result != nil }) }

// Failed counts the servers that could not be probed.
func (r *Result) Failed() int { return r.count(func(s Server) bool { return s.Err != nil }) }

func (r *Result) count(f func(Server) bool) int {
	n := 0
	for _, s := range r.Servers {
		if f(s) {
			n++
		}
	}
	return n
}

// Findings are every server's, each message led by its server's name,
// then the whole config's (Whole).
func (r *Result) Findings() []findings.Finding {
	var out []findings.Finding
	for _, s := range r.Servers {
		if s.Result != nil {
			for _, f := range s.Result.Findings() {
				// The tool's name after the server's, not before it
				// (the renderer puts a tool missing from the message
				// first): "server `fs`: `read_file`: …".
				if f.Tool != "" && !strings.Contains(f.Message, "`"+f.Tool+"`") {
					f.Message = fmt.Sprintf("server `%s`: `%s`: %s", s.Name, f.Tool, f.Message)
				} else {
					f.Message = fmt.Sprintf("server `%s`: %s", s.Name, f.Message)
				}
				out = append(out, f)
			}
		}
	}
	return append(out, r.Whole()...)
}

// Whole are the findings of the config as a whole: a config-server-failed
// for each server that could not be probed, then the sum's.
func (r *Result) Whole() []findings.Finding {
	var out []findings.Finding
	for _, s := range r.Servers {
		if s.Err != nil {
			out = append(out, findings.New(findings.ConfigServerFailed, "server `%s` could not be probed: %s", s.Name, firstLine(Explain(s.Err).What)))
		}
	}
	if r.Hosts {
		out = append(out, r.Totals.Findings()...)
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Counts add up the servers' counts (report's drift).
func (r *Result) Counts() map[string]int {
	var out map[string]int
	for _, s := range r.Servers {
		if s.Result == nil {
			continue
		}
		for k, v := range s.Result.Counts() {
			if out == nil {
				out = map[string]int{}
			}
			out[k] += v
		}
	}
	return out
}
