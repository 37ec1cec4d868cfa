package probe

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
)

// ProcessExit is how a stdio server's process went away, as its findings
// need it.
type ProcessExit struct {
	// Early: the server exited on its own during an otherwise successful
	// probe.
	Early bool
	// OutputClosed: it closed its stdout and kept running until let go
	// (Early is then set too, and Status is how it went when let go).
	OutputClosed bool
	Signal       string // the strongest signal it needed: "", "SIGTERM" or "SIGKILL"
	Status       string // as the OS reported it
	Leftover     bool   // processes of its group outlived it and were killed
	Grace        time.Duration
	// Interrupted: the user stopped the run and mcpprobe killed the
	// server; how it went away says nothing about it.
	Interrupted bool
}

// StdioFindings records what a stdio server did outside the protocol: what
// it wrote besides JSON-RPC messages, and how it took being shut down.
func StdioFindings(c *Capture, srv *transport.Stdio, exit ProcessExit) {
	streamFindings(c, srv)
	if !exit.Interrupted {
		exitFindings(c, exit, exit.Grace, exit.Early)
	}
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
		places := NewPlaces(c.Trace)
		for _, f := range noise {
			if off := transport.GluedMessage(f.Raw); off >= 0 {
				c.Add(findings.PartialWrite, "stdout text without a newline (%q) was glued to the next message (%s); mcpprobe cut the message out, most clients lose it and time out", excerpt(f.Raw[:off], 40), places.Of(f.Seq))
			}
			if f.NoNewline {
				c.Add(findings.NoFinalNewline, "the last %d bytes on stdout had no newline (%s)", f.Len, places.Of(f.Seq))
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

func exitFindings(c *Capture, exit ProcessExit, grace time.Duration, exitedEarly bool) {
	switch {
	case exitedEarly && exit.OutputClosed:
		c.Add(findings.ExitedEarly, "the server closed its stdout during the probe and kept running until it was let go (then %s)", exit.Status)
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

func excerpt(b []byte, n int) string {
	b = bytes.TrimRight(b, "\r")
	if len(b) > n {
		return string(b[:n]) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return string(b)
}

// isUTF8 is utf8.Valid: the copy ToValidUTF8 made of every frame cost
// 18 ms on a 7 MB list.
func isUTF8(b []byte) bool { return utf8.Valid(b) }
