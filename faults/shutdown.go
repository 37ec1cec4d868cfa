package faults

import (
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/dial"
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

// MeasureShutdown starts the server s names twice: once to close its
// stdin, once to send it SIGTERM. s's servers must have grace as their
// own grace period (launch.Options.Grace). A server that does not answer
// its handshake measures nothing: its exit says nothing of how it takes
// being shut down.
func MeasureShutdown(ctx context.Context, s dial.Spec, grace time.Duration) (Shutdown, error) {
	var sd Shutdown
	ss, err := dial.Start(ctx, s)
	if err != nil {
		return sd, err
	}
	if err := ss.Connect(ctx); err != nil {
		ss.Close()
		return sd, err
	}
	r := ss.Close()
	sd.StdinClose, sd.StdinCloseSignal = r.After, r.Signal
	ss, err = dial.Start(ctx, s)
	if err != nil {
		return sd, err
	}
	defer ss.Close()
	if err := ss.Connect(ctx); err != nil {
		return sd, err
	}
	sd.Sigterm, sd.SigtermExited = ss.Server().Terminate(grace)
	return sd, nil
}
