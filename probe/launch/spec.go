package launch

import "github.com/mcpprobe/mcpprobe/probe"

// Spec is one target as the user asked for it: what to start, how to start
// it, and how to speak to it once started. Every command that starts a
// server takes one in its Options, filled once from the flags.
type Spec struct {
	Target Target
	Launch Options
	Probe  probe.Options
}
