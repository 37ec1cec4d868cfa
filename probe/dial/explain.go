package dial

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
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
func (ss *Session) Explain(err error) error { return explain(ss.srv, err) }

func explain(s *launch.Server, err error) error {
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
	switch {
	case s.Process() != nil:
		explainProcess(s, fe, err)
	case s.HTTP() != nil:
		explainHTTP(s.Trace(), fe, err)
	}
	fe.Err = &explained{err: fe.Err}
	return fe
}

// explainProcess shows what the server did: its exit status (or that
// mcpprobe stopped it), what it wrote on stdout, its last stderr lines.
func explainProcess(s *launch.Server, fe *probe.FatalError, err error) {
	proc, stdio, trace, target := s.Process(), s.Stdio(), s.Trace(), s.Target()
	var ce *probe.ClosedError
	closed := errors.As(err, &ce)
	exited, status, stoppedBy := false, "", ""
	if exit, stopped := s.Stopped(); stopped {
		exited, status, stoppedBy = exit.AlreadyExited, exit.Status, exit.StoppedBy
	} else if closed || stdio.OutputEnded() || stdio.Overflowed() {
		// The stream ended: the process is on its way out. Its status and
		// the last of its stderr are worth a short wait.
		if proc.Wait(s.Grace()) {
			exited, status, stoppedBy = true, proc.ExitStatus(), proc.StoppedBy()
			transport.WaitFor(stdio.Drained(), launch.StderrSettle)
		}
	}
	switch {
	case (closed || exited) && stoppedBy != "":
		// mcpprobe ended it: that is no exit of its own.
		fe.What += " (the server was stopped: " + stoppedBy + ")"
	case (closed || exited) && status != "":
		fe.What = strings.Replace(fe.What, "closed its output", "exited", 1)
		fe.What += " (" + status + ")"
	}
	// What came on stdout, messages included: a server that answers with
	// an id of its own making did answer, and saying "nothing" would send
	// its author looking in the wrong place.
	var got []string
	for _, f := range trace.Tail(512) {
		if len(got) >= 3 {
			break
		}
		switch f.Dir {
		case transport.DirNoise:
			got = append(got, "stdout: "+excerpt(f.Raw, 200))
		case transport.DirRecv:
			got = append(got, "stdout: "+excerpt(f.Raw, 200)+idNote(f.Raw))
		}
	}
	for _, l := range stderrExcerpt(stdio.StderrTail(), 5) {
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
	var te *probe.TimeoutError
	if errors.As(err, &te) && !exited && strings.Contains(fe.What, "--startup-timeout") {
		if hint := downloadHint(target.Command, target.Args); hint != "" {
			fe.Try = hint + "; otherwise " + fe.Try
		}
	}
	if fe.Try == "" {
		switch {
		case stoppedBy != "":
			fe.Try = "see why mcpprobe stopped it above; --trace FILE records every frame"
		case closed || exited:
			fe.Try = "run the command by hand to see why it exits"
		default:
			fe.Try = "run it again with --trace FILE to see every frame it sent"
		}
	}
	if stoppedBy == "" && (closed || exited || !answered(trace)) {
		if note := envNote(target, proc.Dropped(), stdio.StderrTail()); note != "" {
			fe.Try += "; " + note
		}
	}
}

// answered reports whether the server sent a JSON-RPC message at all.
func answered(trace *transport.Trace) bool {
	for _, f := range trace.Tail(512) {
		if f.Dir == transport.DirRecv {
			return true
		}
	}
	return false
}

// envNote says, for a server that exited or never answered, that it ran
// with less of the environment than a shell gives, as under a host: a
// server that needs another variable fails here as it will there. The
// dropped variables that look like its runtime's or its own, or that its
// stderr names, are named; values never are.
func envNote(t launch.Target, dropped, stderr []string) string {
	if len(dropped) == 0 {
		return ""
	}
	given := "--env"
	if t.Name != "" {
		given = "the config's env and --env"
	}
	note := fmt.Sprintf("mcpprobe passed only %s and %s, as the TypeScript SDK's stdio client does; rerun with --inherit-env to see whether it needs another variable",
		strings.Join(launch.HostInherited(), ", "), given)
	if rel := launch.RelevantDropped(t.Command, dropped, stderr); len(rel) > 0 {
		more := ""
		if len(rel) > maxRelevant {
			more = fmt.Sprintf(" and %d more", len(rel)-maxRelevant)
			rel = rel[:maxRelevant]
		}
		note += fmt.Sprintf(" (not passed: %s%s)", strings.Join(rel, ", "), more)
	}
	return note
}

// maxRelevant bounds the dropped names an explanation lists.
const maxRelevant = 6

// idNote says why a response the server sent matched no request, where
// its id shows it: mcpprobe numbers its requests, so an id that is a
// string (or a number never sent) was the server's own invention.
func idNote(raw []byte) string {
	v := gjson.ParseBytes(raw)
	id := v.Get("id")
	if !id.Exists() || v.Get("method").Exists() {
		return ""
	}
	if id.Type == gjson.String {
		return fmt.Sprintf(" (a response with id %s, a string; mcpprobe's requests have number ids, so it answers none of them)", excerpt([]byte(id.Raw), 40))
	}
	return ""
}

// explainHTTP gives an HTTP failure what was received and what to try,
// in HTTP's terms.
func explainHTTP(trace *transport.Trace, fe *probe.FatalError, err error) {
	var he *transport.HTTPError
	var ce *transport.ConnError
	var te *probe.TimeoutError
	var cl *probe.ClosedError
	switch {
	case errors.As(err, &ce):
		fe.What = ce.Error()
		fe.Received = "no HTTP response"
		fe.Try = "check the URL, that the server is running, and --timeout"
	case errors.As(err, &he):
		fe.Received = he.Error()
		switch {
		case he.Status == 401 && strings.Contains(he.Why, "OAuth token"):
			fe.Try = "the OAuth token was refused: check the scope asked (--oauth-scope) and that the client may use this server; --trace FILE shows every OAuth exchange"
		case he.Status == 401 || he.Status == 403:
			fe.Try = "give credentials: --oauth to sign in at a browser, --client-id with --client-secret-env or --refresh-token-env for CI, or -H 'Authorization: Bearer …' / --header-env Authorization=VAR (header values are never shown)"
		case he.Status == 406:
			fe.Try = "the server must accept Accept: application/json, text/event-stream; this is a server bug"
		case he.Status == 404 || he.Status == 405:
			fe.Try = "check the path (Streamable HTTP servers usually serve /mcp, legacy ones /sse); --transport sse forces the legacy transport"
		case strings.Contains(he.Why, "compressed"):
			fe.Try = "configure the server not to compress when the client sends no Accept-Encoding"
		default:
			fe.Try = "check the URL and the server's logs"
		}
	case errors.Is(err, transport.ErrTooMuch):
		fe.Try = "raise --max-bytes if the server really sends that much; otherwise it floods its responses"
	case errors.Is(err, transport.ErrLineTooLong):
		fe.Try = "raise --max-line if the server's messages really are that large"
	case errors.As(err, &te):
		fe.Try = "check that the URL is the server's MCP endpoint and that it answers a POST with JSON or an event stream; raise --startup-timeout (or --timeout) if it is slow"
	case errors.As(err, &cl):
		fe.Try = "the server ended the response or its event stream early: check its logs"
	}
	if fe.Received == "" {
		fe.Received = httpReceived(trace)
	}
	if fe.Try == "" || strings.Contains(fe.Try, "stdio") || strings.Contains(fe.Try, "the command by hand") {
		fe.Try = "check the URL and the server's logs; --trace FILE records every HTTP exchange"
	}
}

// httpReceived sums up the last HTTP answers, for a failure that carries
// none of its own.
func httpReceived(trace *transport.Trace) string {
	var got []string
	frames := trace.Tail(64)
	for i := len(frames) - 1; i >= 0 && len(got) < 3; i-- {
		f := frames[i]
		if f.Dir == transport.DirSend || f.HTTP == nil {
			continue
		}
		line := fmt.Sprintf("HTTP %d %s", f.HTTP.Status, f.HTTP.ContentType)
		if f.HTTP.Status == 0 {
			line = "an event on the stream"
		}
		if len(f.Raw) > 0 {
			line += ": " + excerpt(f.Raw, 200) + idNote(f.Raw)
		}
		got = append([]string{line}, got...)
	}
	if len(got) == 0 {
		return "no HTTP answer with a message"
	}
	return strings.Join(got, "\n  ")
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
