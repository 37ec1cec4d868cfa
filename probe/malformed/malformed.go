package malformed

import (
	"context"
	"fmt"
	"sort"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/tidwall/gjson"
)

// Options say which server to send malformed calls to: the embedded Spec
// (each start a fresh process or HTTP session), and the tools to derive
// cases from.
type Options struct {
	launch.Spec
	// Tools name the tools whose input schemas cases are derived from;
	// none means every tool annotated readOnlyHint, since a malformed call
	// that a server accepts anyway must not write.
	Tools []string
}

// Result is a malformed run: every case with the channel that answered.
type Result struct {
	Target   string // as the user typed it, secrets hidden
	Protocol string // negotiated; the cases' expectations follow it
	Cases    []Outcome
}

// Met is how many cases were answered as the spec asks.
func (r *Result) Met() int {
	n := 0
	for _, c := range r.Cases {
		if c.OK {
			n++
		}
	}
	return n
}

// Findings are the cases answered otherwise than the negotiated version
// asks, each naming what it asks and why.
func (r *Result) Findings() []findings.Finding {
	var fs []findings.Finding
	for _, c := range r.Cases {
		if c.OK {
			continue
		}
		var f findings.Finding
		switch {
		case c.Channel == Crashed:
			f = findings.New(findings.MalformedCrash, "%q ended the server or its session (%s); %s asks %s: %s",
				c.Case, c.Message, r.Protocol, c.Expected, c.Expected.Why)
		case c.Channel == NoAnswer:
			f = findings.New(findings.MalformedUnanswered, "%q got no answer; %s asks %s: %s",
				c.Case, r.Protocol, c.Expected, c.Expected.Why)
		default:
			got := c.Channel
			if c.Channel == RPCError {
				got = fmt.Sprintf("%s %d", c.Channel, c.Code)
			}
			f = findings.New(findings.MalformedChannel, "%q answered %s; %s asks %s: %s",
				c.Case, got, r.Protocol, c.Expected, c.Expected.Why)
		}
		if c.Tool != "" {
			f = f.About(c.Tool)
		}
		fs = append(fs, f)
	}
	return fs
}

// Counts is empty: malformed gates only on its findings.
func (r *Result) Counts() map[string]int { return nil }

// Run lists the server's tools on a first connection, derives the cases
// from the tools asked for (or the read-only ones) and the protocol, and
// sends each to a fresh connection of the server, restarting it after a
// case that killed it. A tool the server lacks is a *probe.OptionError; a
// server that cannot be started or probed, a *probe.FatalError.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := func() (*launch.Server, error) {
		lo := o.Launch
		lo.Trace = nil // each start a trace of its own, or the Recorder's next connection
		return launch.Start(ctx, o.Target, lo)
	}
	srv, err := start()
	if err != nil {
		return nil, err
	}
	cl, err := probe.Connect(ctx, srv.Conn(), o.Probe)
	if err != nil {
		err = srv.Explain(err)
		srv.Stop()
		return nil, err
	}
	cl.ListTools(ctx)
	srv.Stop()
	res := &Result{Target: o.Target.Display(), Protocol: cl.Capture.ProtocolVersion}
	cases, err := plan(cl.Capture.Tools.Items, o.Tools, res.Protocol, cl.Meta())
	if err != nil {
		return nil, err
	}
	res.Cases, err = play(ctx, start, o.Probe, cases, o.Probe.Timeout)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// plan derives the cases: from each tool named (or, when none is, each
// tool annotated read-only), then the protocol-level ones, whose big and
// deep arguments go to the first such tool.
func plan(tools [][]byte, named []string, version, meta string) ([]Case, error) {
	want, unseen := map[string]bool{}, map[string]bool{}
	for _, n := range named {
		want[n], unseen[n] = true, true
	}
	var cases []Case
	first := ""
	for _, raw := range tools {
		name := gjson.GetBytes(raw, "name").String()
		readOnly := gjson.GetBytes(raw, "annotations.readOnlyHint").Bool()
		if (len(want) > 0 && !want[name]) || (len(want) == 0 && !readOnly) {
			continue
		}
		delete(unseen, name)
		if first == "" {
			first = name
		}
		cases = append(cases, ToolCases(raw, version, meta)...)
	}
	if len(unseen) > 0 {
		var missing []string
		for n := range unseen {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		return nil, probe.Optionf("the server has no tool %q", missing[0])
	}
	return append(cases, ProtocolCases(version, meta, first)...), nil
}
