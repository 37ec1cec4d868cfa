package probe

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/transport"
)

// Each notification accepted otherwise than with 202 and no body is one
// error finding citing the transport's MUST of the session's revision; a
// 202 and an HTTP error status (a refusal) are none.
func TestNotificationFindings(t *testing.T) {
	answers := []transport.NotificationAnswer{
		{Seq: 3, Method: "notifications/initialized", Status: 202},
		{Seq: 5, Method: "notifications/initialized", Status: 200, ContentType: "application/json", BodyLen: 38, Body: []byte(`{"jsonrpc":"2.0","id":null,"result":{}}`)},
		{Seq: 7, Method: "notifications/cancelled", Status: 400, BodyLen: 11, Body: []byte("bad request")},
		{Seq: 9, Method: "notifications/roots/list_changed", Status: 204},
		{Seq: 11, Status: 200, BodyLen: 0},
	}
	for _, tc := range []struct{ version, url, words string }{
		{"2025-11-25", "2025-11-25/basic/transports#sending-messages-to-the-server", "If the input is a JSON-RPC response or notification"},
		{"2025-03-26", "2025-03-26/basic/transports#sending-messages-to-the-server", "If the input consists solely of"},
		{"2024-11-05", "2025-03-26/basic/transports#sending-messages-to-the-server", "If the input consists solely of"},
		{"2026-07-28", "2026-07-28/basic/transports/streamable-http#sending-messages", "If the body is a JSON-RPC notification"},
	} {
		c := &Capture{ProtocolVersion: tc.version}
		notificationFindings(c, answers)
		var got []string
		for _, f := range c.Findings {
			if f.Code != findings.HTTPNotificationAnswer || f.Severity != findings.Error {
				t.Errorf("%s: %v %s", tc.version, f.Code, f.Severity)
			}
			if !strings.Contains(f.Message, tc.url) || !strings.Contains(f.Message, tc.words) {
				t.Errorf("%s: %s", tc.version, f.Message)
			}
			got = append(got, f.Message)
		}
		if len(got) != 3 || !strings.Contains(got[0], `frame 5) was answered HTTP 200 application/json with a body: "{\"jsonrpc\"`) ||
			!strings.Contains(got[1], "roots/list_changed (frame 9) was answered HTTP 204 with no body") ||
			!strings.Contains(got[2], "a response (frame 11) was answered HTTP 200 with no body") {
			t.Errorf("%s: %q", tc.version, got)
		}
	}
}
