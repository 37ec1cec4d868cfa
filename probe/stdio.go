package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
)

// StdioTarget is a server to spawn.
type StdioTarget struct {
	transport.StdioOptions
	// Grace is how long the server gets to exit after stdin closes, and
	// again after SIGTERM, before the next step.
	Grace time.Duration
}

// RunStdio spawns the server, probes it and shuts it down, adding what the
// process and its streams did to the capture's findings.
func RunStdio(ctx context.Context, t StdioTarget, o Options) (*Capture, error) {
	if t.Grace <= 0 {
		t.Grace = 2 * time.Second
	}
	if t.Trace == nil {
		t.Trace = transport.NewTrace(time.Now())
	}
	srv, err := transport.StartStdio(t.StdioOptions)
	if err != nil {
		fe := &FatalError{What: err.Error(), Received: "nothing: the process never ran", Err: err}
		var se *transport.StartError
		if errors.As(err, &se) {
			fe.What, fe.Try = se.Headline(), se.Hint()
		}
		return nil, fe
	}
	c, runErr := Run(ctx, srv, o)
	c.Transport = "stdio"
	exit := srv.Close(t.Grace)
	exitedEarly := exit.AlreadyExited
	c.Timings.FirstByte = srv.FirstByte()
	if !exit.AlreadyExited {
		c.Timings.ExitAfter, c.Timings.ExitKnown = exit.After, true
	}
	streamFindings(c, srv)
	exitFindings(c, exit, t.Grace, exitedEarly && runErr == nil)
	if runErr != nil {
		runErr = explain(runErr, c, srv, exit)
	}
	c.SortFindings()
	return c, runErr
}

// streamFindings reports what the server wrote outside the protocol.
func streamFindings(c *Capture, srv *transport.Stdio) {
	var noise []transport.Frame
	invalidUTF8, stderrBytes := 0, 0
	for _, f := range c.Trace.Frames() {
		switch f.Dir {
		case transport.DirNoise:
			noise = append(noise, f)
			if !isUTF8(f.Raw) {
				invalidUTF8++
			}
		case transport.DirRecv:
			if !isUTF8(f.Raw) {
				invalidUTF8++
			}
		case transport.DirStderr:
			stderrBytes += f.Len
		}
	}
	noiseLines, stderrLines, dropped := srv.Counts()
	if noiseLines > 0 {
		first := ""
		for _, f := range noise {
			if !f.Cut && transport.GluedMessage(f.Raw) < 0 {
				first = excerpt(f.Raw, 60)
				break
			}
		}
		if first != "" {
			c.Add(findings.StdoutNoise, "%d line(s) on stdout are not JSON-RPC, first: %q; the official Go SDK client drops the connection on such a line, the TypeScript SDK raises an error per line", noiseLines, first)
		}
		for _, f := range noise {
			if off := transport.GluedMessage(f.Raw); off >= 0 {
				c.Add(findings.PartialWrite, "stdout text without a newline (%q) was glued to the next message (frame %d); mcpprobe cut the message out, most clients lose it and time out", excerpt(f.Raw[:off], 40), f.Seq)
			}
			if f.NoNewline {
				c.Add(findings.NoFinalNewline, "the last %d bytes on stdout had no newline (frame %d)", f.Len, f.Seq)
			}
		}
	}
	if invalidUTF8 > 0 {
		c.Add(findings.InvalidUTF8, "%d stdout line(s) are not valid UTF-8; JSON must be UTF-8", invalidUTF8)
	}
	if stderrLines > 1000 || stderrBytes > 1<<20 {
		c.Add(findings.StderrFlood, "the server wrote %d lines on stderr during the probe; hosts log or drop them, and a host that does not drain stderr blocks the server", stderrLines)
	}
	if dropped > 0 {
		c.Add(findings.TraceCapped, "%d noise or stderr lines were past the 4 MiB the trace keeps and were counted, not stored", dropped)
	}
}

func exitFindings(c *Capture, exit transport.ExitReport, grace time.Duration, exitedEarly bool) {
	switch {
	case exitedEarly:
		c.Add(findings.ExitedEarly, "the server exited on its own during the probe (%s)", exit.Status)
	case exit.Signal == "SIGTERM":
		c.Add(findings.IgnoresStdinClose, "the server was still running %v after its stdin closed and needed SIGTERM; hosts expect it to exit when stdin closes", grace)
	case exit.Signal == "SIGKILL":
		c.Add(findings.NeedsSigkill, "the server ignored stdin closing and SIGTERM (%v each) and had to be killed with SIGKILL", grace)
	}
	if exit.Leftover {
		c.Add(findings.LeftoverProcesses, "processes of the server's group were still alive after it exited; mcpprobe killed them (a host may leave them running)")
	}
}

// explain turns a handshake failure into a message that shows what the
// server did: its exit status, its last stderr lines, what it wrote.
func explain(err error, c *Capture, srv *transport.Stdio, exit transport.ExitReport) error {
	var fe *FatalError
	if !errors.As(err, &fe) {
		fe = &FatalError{What: err.Error(), Err: err}
	}
	var ce *ClosedError
	if errors.As(err, &ce) || exit.AlreadyExited {
		fe.What = strings.Replace(fe.What, "closed its output", "exited", 1)
		fe.What += " (" + exit.Status + ")"
	}
	var got []string
	for _, f := range c.Trace.Frames() {
		if f.Dir == transport.DirNoise && len(got) < 3 {
			got = append(got, "stdout: "+excerpt(f.Raw, 200))
		}
	}
	for _, l := range tail(srv.StderrTail(), 5) {
		got = append(got, "stderr: "+excerpt([]byte(l), 200))
	}
	if len(got) > 0 {
		if fe.Received != "" {
			got = append([]string{fe.Received}, got...)
		}
		fe.Received = strings.Join(got, "\n  ")
	} else if fe.Received == "" {
		fe.Received = "nothing on stdout or stderr"
	}
	return fe
}

func tail(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func excerpt(b []byte, n int) string {
	b = bytes.TrimRight(b, "\r")
	if len(b) > n {
		return string(b[:n]) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return string(b)
}

func isUTF8(b []byte) bool { return bytes.Equal(bytes.ToValidUTF8(b, nil), b) }
