package dial

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe"
)

// Probe starts the target, probes it (probe.Run), stops it, and adds to the
// capture's findings what the process and its streams did, or what the
// HTTP exchange showed (Judge). A failure is explained (Explain); the
// capture is returned with it when there is one, so what was seen can
// still be shown and traced.
func Probe(ctx context.Context, s Spec) (*probe.Capture, error) {
	ss, err := Start(ctx, s)
	if err != nil {
		return nil, err
	}
	c, runErr := probe.Run(ctx, ss.Conn(), s.Probe)
	exit := ss.Close()
	ss.Judge(c, exit, runErr)
	if runErr != nil {
		runErr = ss.Explain(runErr)
	}
	c.SortFindings()
	return c, runErr
}
