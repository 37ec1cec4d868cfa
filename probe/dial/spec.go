package dial

import (
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/oauth"
)

// Spec is one target as the user asked for it: what to start, how to start
// it, and how to speak to it once started. Every command that starts a
// server takes one in its Options, filled once from the flags.
type Spec struct {
	Target launch.Target
	Launch launch.Options
	Probe  probe.Options
	// OAuth, for a URL target, is the run's OAuth client: the first
	// Start authorizes (every exchange in its trace), and every
	// connection sends the token to the origin it was issued for, and to
	// no other. Copies of the spec share it, so a run authorizes once.
	OAuth *oauth.Host
}

// Afresh is the spec for a start that gets a trace of its own (or the
// Recorder's next connection), whose times count from that start: a
// command that starts the target several times must not pour them all
// into one trace.
func (s Spec) Afresh() Spec {
	s.Launch.Trace = nil
	return s
}
