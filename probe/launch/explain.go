package launch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/transport"
)

// explained marks an error Explain has already been through, so that a
// second call adds nothing twice.
type explained struct{ err error }

func (e *explained) Error() string {
	if e.err == nil {
		return "explained"
	}
	return e.err.Error()
}
func (e *explained) Unwrap() error { return e.err }

// Explain turns any failure after Start into a *probe.FatalError in three
// parts: what happened, what was received, and what to try. For a command
// it shows what the process did (its exit status, what it wrote on stdout
// that was not JSON-RPC, its last stderr lines); for a URL, what the HTTP
// answer was. It may be called before or after Stop; before, it waits a
// bounded time (Grace) for a process whose output has ended to exit, so
// its status and last stderr lines can be shown. nil stays nil.
func (s *Server) Explain(err error) error {
	if err == nil {
		return nil
	}
	var done *explained
	if errors.As(err, &done) {
		return err
	}
	fe := &probe.FatalError{What: err.Error(), Err: err}
	var have *probe.FatalError
	if errors.As(err, &have) {
		cp := *have
		fe = &cp
	}
	if s.proc != nil {
		s.explainProcess(fe, err)
	} else if s.http != nil {
		explainHTTP(fe, err)
	}
	fe.Err = &explained{err: fe.Err}
	return fe
}

// explainProcess shows what the server did: its exit status, its last
// stderr lines, what it wrote.
func (s *Server) explainProcess(fe *probe.FatalError, err error) {
	var ce *probe.ClosedError
	closed := errors.As(err, &ce)
	exited, status := false, ""
	if s.isStopped() {
		exited, status = s.exit.AlreadyExited, s.exit.Status
	} else if closed || s.stdio.OutputEnded() {
		// The stream ended: the process is on its way out. Its status and
		// the last of its stderr are worth a short wait.
		if s.proc.Wait(s.opts.Grace) {
			exited, status = true, s.proc.ExitStatus()
			transport.WaitFor(s.stdio.Drained(), stderrSettle)
		}
	}
	if (closed || exited) && status != "" {
		fe.What = strings.Replace(fe.What, "closed its output", "exited", 1)
		fe.What += " (" + status + ")"
	}
	var got []string
	for _, f := range s.trace.Frames() {
		if f.Dir == transport.DirNoise && len(got) < 3 {
			got = append(got, "stdout: "+excerpt(f.Raw, 200))
		}
	}
	for _, l := range tail(s.stdio.StderrTail(), 5) {
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
	if fe.Try == "" && (closed || exited) {
		fe.Try = "run the command by hand to see why it exits"
	}
}

// explainHTTP gives an HTTP failure what was received and what to try.
func explainHTTP(fe *probe.FatalError, err error) {
	var he *transport.HTTPError
	var ce *transport.ConnError
	switch {
	case errors.As(err, &ce):
		fe.What = ce.Error()
		fe.Received = "no HTTP response"
		fe.Try = "check the URL, that the server is running, and --timeout"
	case errors.As(err, &he):
		fe.Received = he.Error()
		switch {
		case he.Status == 401 || he.Status == 403:
			fe.Try = "give credentials with -H 'Authorization: Bearer …' or --header-env Authorization=VAR (header values are never shown)"
		case he.Status == 406:
			fe.Try = "the server must accept Accept: application/json, text/event-stream; this is a server bug"
		case he.Status == 404 || he.Status == 405:
			fe.Try = "check the path (Streamable HTTP servers usually serve /mcp, legacy ones /sse); --transport sse forces the legacy transport"
		case strings.Contains(he.Why, "compressed"):
			fe.Try = "configure the server not to compress when the client sends no Accept-Encoding"
		default:
			fe.Try = "check the URL and the server's logs"
		}
	}
}

func tail(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// excerpt is b cut to n bytes, unescaped: the printer escapes it.
func excerpt(b []byte, n int) string {
	b = bytes.TrimRight(b, "\r")
	if len(b) > n {
		return string(b[:n]) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return string(b)
}
