package probe

import (
	"fmt"
	"strconv"

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
	if conn.Mode() == "streamable" {
		notificationFindings(c, conn.NotificationAnswers())
	}
}

// notificationFindings: each notification the server accepted otherwise
// than with 202 and no body breaks the transport's MUST. An HTTP error
// status is its way to refuse one, which is no finding here.
func notificationFindings(c *Capture, answers []transport.NotificationAnswer) {
	cl := NotificationAccepted(c.ProtocolVersion)
	for _, a := range answers {
		if a.Accepted() || a.Refused() {
			continue
		}
		what := a.Method
		if what == "" {
			what = "a response"
		}
		c.Add(findings.HTTPNotificationAnswer, "%s (frame %d) was answered %s; %s %s (%s): %q",
			what, a.Seq, DescribeHTTPAnswer(a.Status, a.ContentType, a.Body, a.BodyLen), cl.Version, cl.Keyword, cl.URL, cl.Text)
	}
}

// DescribeHTTPAnswer says what an HTTP answer was: its status, content
// type and the first bytes of its body, escaped so that no control
// character reaches a terminal.
func DescribeHTTPAnswer(status int, contentType string, body []byte, n int64) string {
	s := fmt.Sprintf("HTTP %d", status)
	if contentType != "" {
		s += " " + contentType
	}
	switch {
	case len(body) > 0:
		s += " with a body: " + EscapeExcerpt(body, 120)
	case n == 0:
		s += " with no body"
	}
	return s
}

// EscapeExcerpt is the first n bytes of b, quoted with Go's escapes, so
// that a control character or invalid UTF-8 shows as what it is.
func EscapeExcerpt(b []byte, n int) string {
	cut := ""
	if len(b) > n {
		b, cut = b[:n], "…"
	}
	return strconv.Quote(string(b)) + cut
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
