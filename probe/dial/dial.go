// Package dial is the one road from a target to a session with it: open the
// target (launch spawns a command or reaches a URL), connect the probe's
// client and shake hands, explain a failure to start or connect in the
// three parts a user reads (what happened, what was received, what to
// try), then let the server go and judge how it went (its exit, what it
// wrote outside the protocol, what escaped its process group).
//
// launch owns processes and knows nothing of MCP; probe speaks MCP and
// knows nothing of processes; dial is where the two meet. Every command
// that starts a server goes through it.
package dial

import (
	"context"
	"errors"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/oauth"
	"github.com/mcpprobe/mcpprobe/transport"
)

// Session is a started target and, once Connect succeeded, the client that
// shook hands with it.
type Session struct {
	srv  *launch.Server
	spec Spec
	// Client is the probe's client on the session, nil until Connect
	// succeeds.
	Client *probe.Client
}

// Start opens the target s names: a command in a process group of its own,
// or an HTTP session (nothing is sent until the first message). Nothing is
// said to the server yet. A failure is a *probe.FatalError in three parts;
// an interrupted run or a done ctx is returned as it is. ctx only bounds
// the start: the server runs until Close, which the caller must call.
func Start(ctx context.Context, s Spec) (*Session, error) {
	if err := authorize(ctx, &s); err != nil {
		return nil, err
	}
	srv, err := launch.Start(ctx, s.Target, s.Launch)
	if err != nil {
		var ne *launch.NotStartedError
		if errors.As(err, &ne) {
			return nil, &probe.FatalError{What: ne.What, Received: ne.Received, Try: ne.Try, Err: ne.Err}
		}
		return nil, err
	}
	return &Session{srv: srv, spec: s}, nil
}

// authorize gets the OAuth token of a URL target, once per run (the
// exchanges recorded in the trace of the first session started), and
// hands it to the launcher.
func authorize(ctx context.Context, s *Spec) error {
	if s.OAuth == nil || (s.Target.Kind != "http" && s.Target.Kind != "sse") {
		return nil
	}
	// The exchanges go into the session's trace, stamped at its start:
	// the session's times count from after them (a person at a browser
	// is no part of a server's startup).
	own := transport.NewTrace(time.Now())
	err := s.OAuth.Authorize(ctx, own)
	switch {
	case s.Launch.Trace != nil:
		s.Launch.Trace.Restart(time.Now())
	case s.Launch.Record != nil:
		s.Launch.Trace = s.Launch.Record.Trace(time.Now())
	default:
		s.Launch.Trace = transport.NewTrace(time.Now())
	}
	for _, f := range own.Frames() {
		s.Launch.Trace.AddFrame(transport.Frame{Dir: f.Dir, Raw: f.Raw, HTTP: f.HTTP})
	}
	if err != nil {
		var oe *oauth.Error
		if errors.As(err, &oe) {
			return &probe.FatalError{What: oe.What, Received: oe.Received, Try: oe.Try, Err: err}
		}
		return err
	}
	s.Launch.Bearer = s.OAuth
	return nil
}

// Connect shakes hands with the server, with the spec's client options. Its
// error is the client's, unexplained: the caller decides whether and when
// to Explain it (before Close, a process on its way out gets a bounded
// wait so its exit status can be shown; after, the exit is known).
func (ss *Session) Connect(ctx context.Context) error {
	cl, err := probe.Connect(ctx, ss.srv.Conn(), ss.spec.Probe)
	if err != nil {
		return err
	}
	ss.Client = cl
	return nil
}

// Open starts the target and connects to it. A failure is explained, the
// server let go, and no session returned.
func Open(ctx context.Context, s Spec) (*Session, error) {
	ss, err := Start(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := ss.Connect(ctx); err != nil {
		err = ss.Explain(err)
		ss.Close()
		return nil, err
	}
	return ss, nil
}

// Close lets the server go the way a host does (launch.Server.Stop) and
// says how it went. It may be called more than once.
func (ss *Session) Close() launch.ExitReport { return ss.srv.Stop() }

// Server is the started server, for what only a crash or a signal tests:
// Kill, Terminate.
func (ss *Session) Server() *launch.Server { return ss.srv }

// Conn is the message stream to the server.
func (ss *Session) Conn() transport.Conn { return ss.srv.Conn() }

// Trace is the record of every frame of the session.
func (ss *Session) Trace() *transport.Trace { return ss.srv.Trace() }

// FirstByte is when the server's first byte arrived, 0 if none yet.
func (ss *Session) FirstByte() time.Duration { return ss.srv.FirstByte() }

// ExitFindings adds to c what a stdio server did outside the protocol: what
// it wrote besides JSON-RPC messages and how it took being let go (exit,
// Close's report). runErr is the run's failure, if any: a server that
// exited during a failed run did not exit early of its own. A URL or a
// replay adds nothing.
func (ss *Session) ExitFindings(c *probe.Capture, exit launch.ExitReport, runErr error) {
	st := ss.srv.Stdio()
	if st == nil {
		return
	}
	probe.StdioFindings(c, st, probe.ProcessExit{
		Early:        exit.AlreadyExited && runErr == nil && exit.StoppedBy == "",
		OutputClosed: exit.OutputClosed,
		Signal:       exit.Signal, Status: exit.Status, Leftover: exit.Leftover, Grace: ss.srv.Grace(),
		Interrupted: launch.Interrupted() != "",
	})
}

// Judge completes the capture of a closed session: its target and
// transport, the stdio timings and ExitFindings, or what the HTTP
// exchange showed, and what the launcher found when it let the server go
// (processes that escaped its group, a server past --max-bytes).
func (ss *Session) Judge(c *probe.Capture, exit launch.ExitReport, runErr error) {
	srv := ss.srv
	c.Target = ss.spec.Target.Display()
	switch {
	case srv.Replayed():
		// A recording has no process or HTTP exchange to judge: only
		// what the messages themselves show.
		c.Transport = "stdio"
	case srv.Stdio() != nil:
		c.Transport = "stdio"
		c.Timings.FirstByte = srv.FirstByte()
		if exit.Timed() {
			c.Timings.ExitAfter, c.Timings.ExitKnown = exit.After, true
		}
		ss.ExitFindings(c, exit, runErr)
	default:
		probe.HTTPFindings(c, srv.HTTP(), ss.spec.Target.URL, srv.Closing())
	}
	c.Findings = append(c.Findings, srv.Findings()...)
}
