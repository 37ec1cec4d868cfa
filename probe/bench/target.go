package bench

import (
	"context"

	"github.com/mcpprobe/mcpprobe/probe/launch"
)

// Target is the server under test and how to start it: every Start is a
// fresh process, or a fresh HTTP session, with a trace of its own whose
// times count from that start.
type Target struct {
	Target launch.Target
	Launch launch.Options
}

// Name is the target as the user typed it, secrets hidden.
func (t Target) Name() string { return t.Target.Display() }

// Start starts the target afresh.
func (t Target) Start(ctx context.Context) (*launch.Server, error) {
	o := t.Launch
	o.Trace = nil
	return launch.Start(ctx, t.Target, o)
}
