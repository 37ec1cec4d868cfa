package launch

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe"
)

// Probe starts t, probes it (probe.Run), stops it, and adds to the
// capture's findings what the process and its streams did, or what the
// HTTP exchange showed. A failure is explained (Explain); the capture is
// returned with it when there is one, so what was seen can still be shown
// and traced.
func Probe(ctx context.Context, t Target, o Options, po probe.Options) (*probe.Capture, error) {
	s, err := Start(ctx, t, o)
	if err != nil {
		return nil, err
	}
	c, runErr := probe.Run(ctx, s.Conn(), po)
	exit := s.Stop()
	c.Target = t.Display()
	switch {
	case s.replay != nil:
		// A recording has no process or HTTP exchange to judge: only
		// what the messages themselves show.
		c.Transport = "stdio"
	case s.stdio != nil:
		c.Transport = "stdio"
		c.Timings.FirstByte = s.FirstByte()
		if exit.Timed() {
			c.Timings.ExitAfter, c.Timings.ExitKnown = exit.After, true
		}
		probe.StdioFindings(c, s.stdio, probe.ProcessExit{
			Early:        exit.AlreadyExited && runErr == nil && exit.StoppedBy == "",
			OutputClosed: exit.OutputClosed,
			Signal:       exit.Signal, Status: exit.Status, Leftover: exit.Leftover, Grace: s.opts.Grace,
			Interrupted: Interrupted() != "",
		})
	default:
		probe.HTTPFindings(c, s.http, t.URL, s.closing)
	}
	// What the launcher found when it let the server go: processes that
	// escaped its group, a server past --max-bytes.
	c.Findings = append(c.Findings, findingsOf(s)...)
	if runErr != nil {
		runErr = s.Explain(runErr)
	}
	c.SortFindings()
	return c, runErr
}
