package faults

import (
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/transport"
)

// Shutdown is how a server takes the two ways a host ends it.
type Shutdown struct {
	// StdinClose: time from closing stdin to the exit, and the signal it
	// needed on top ("" if none, "SIGTERM", "SIGKILL").
	StdinClose       time.Duration
	StdinCloseSignal string
	// Sigterm: time from SIGTERM (stdin still open) to the exit; Exited is
	// false when it outlived the grace period.
	Sigterm       time.Duration
	SigtermExited bool
}

// MeasureShutdown starts the server twice: once to close its stdin, once
// to send it SIGTERM.
func MeasureShutdown(ctx context.Context, start func() (*transport.Stdio, error), o probe.Options, grace time.Duration) (Shutdown, error) {
	var sd Shutdown
	srv, err := start()
	if err != nil {
		return sd, err
	}
	_, _ = probe.Connect(ctx, srv, o)
	r := srv.Close(grace)
	sd.StdinClose, sd.StdinCloseSignal = r.After, r.Signal
	srv, err = start()
	if err != nil {
		return sd, err
	}
	_, _ = probe.Connect(ctx, srv, o)
	sd.Sigterm, sd.SigtermExited = srv.Terminate(grace)
	srv.Close(grace)
	return sd, nil
}
