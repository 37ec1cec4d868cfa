package faults

import (
	"context"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
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
// to send it SIGTERM. start must give servers whose own grace period
// (launch.Options.Grace) is grace. A server that does not answer its
// handshake measures nothing: its exit says nothing of how it takes
// being shut down.
func MeasureShutdown(ctx context.Context, start func() (*launch.Server, error), o probe.Options, grace time.Duration) (Shutdown, error) {
	var sd Shutdown
	srv, err := start()
	if err != nil {
		return sd, err
	}
	if _, err := probe.Connect(ctx, srv.Conn(), o); err != nil {
		srv.Stop()
		return sd, err
	}
	r := srv.Stop()
	sd.StdinClose, sd.StdinCloseSignal = r.After, r.Signal
	srv, err = start()
	if err != nil {
		return sd, err
	}
	defer srv.Stop()
	if _, err := probe.Connect(ctx, srv.Conn(), o); err != nil {
		return sd, err
	}
	sd.Sigterm, sd.SigtermExited = srv.Terminate(grace)
	return sd, nil
}
