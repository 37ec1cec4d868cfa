package probe

import (
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
)

// HTTPFindings records what the HTTP exchange showed: the transport and
// session, the first byte, and what the transport noticed on the way.
func HTTPFindings(c *Capture, conn *transport.HTTP, url string, closing transport.HTTPClose) {
	c.Transport = transportName(conn.Mode())
	c.HTTP = &HTTPSummary{URL: url, Mode: conn.Mode(), SessionID: transport.ShortID(conn.SessionID()), DeleteStatus: closing.DeleteStatus}
	c.Timings.FirstByte = conn.FirstByte()
	for _, n := range conn.Notes() {
		c.Add(findings.HTTP, "%s", n)
	}
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
