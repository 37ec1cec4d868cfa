package mcpspec

import "testing"

func TestURL(t *testing.T) {
	for _, c := range []struct{ v, path, want string }{
		{"2025-11-25", "basic/index#error-responses", "https://modelcontextprotocol.io/specification/2025-11-25/basic/index#error-responses"},
		{"2026-07-28", "basic/transports/streamable-http#sending-messages", "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages"},
	} {
		if got := URL(c.v, c.path); got != c.want {
			t.Errorf("URL(%q, %q) = %q, want %q", c.v, c.path, got, c.want)
		}
	}
}
