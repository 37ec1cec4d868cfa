package probe

import (
	"context"
	"errors"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
)

// RunHTTP probes a server over Streamable HTTP or legacy HTTP+SSE and ends
// its session, adding what the HTTP exchange showed to the findings.
func RunHTTP(ctx context.Context, ho transport.HTTPOptions, o Options) (*Capture, error) {
	conn, err := transport.NewHTTP(ho)
	if err != nil {
		return nil, &FatalError{What: err.Error(), Err: err, Try: "give a URL such as https://host/mcp"}
	}
	c, runErr := Run(ctx, conn, o)
	closing := conn.Close()
	c.Transport = transportName(conn.Mode())
	c.HTTP = &HTTPSummary{URL: ho.URL, Mode: conn.Mode(), SessionID: transport.ShortID(conn.SessionID()), DeleteStatus: closing.DeleteStatus}
	c.Timings.FirstByte = conn.FirstByte()
	for _, n := range conn.Notes() {
		c.Add(findings.HTTP, "%s", n)
	}
	if runErr != nil {
		runErr = explainHTTP(runErr)
	}
	c.SortFindings()
	return c, runErr
}

// HTTPSummary is what a capture keeps of the HTTP side.
type HTTPSummary struct {
	URL          string
	Mode         string // "streamable" or "sse"
	SessionID    string // a short prefix
	DeleteStatus int    // 0 if no DELETE was sent
}

func transportName(mode string) string {
	switch mode {
	case "sse":
		return "sse"
	case "streamable":
		return "streamable-http"
	}
	return "http"
}

// explainHTTP gives an HTTP failure its what-to-try.
func explainHTTP(err error) error {
	var fe *FatalError
	if !errors.As(err, &fe) {
		fe = &FatalError{What: err.Error(), Err: err}
	}
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
	return fe
}
