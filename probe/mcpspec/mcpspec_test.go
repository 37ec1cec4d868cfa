package mcpspec

import (
	"encoding/json"
	"testing"
)

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

func TestClauseWeight(t *testing.T) {
	for _, c := range []struct {
		c    Clause
		want string
	}{
		{Clause{Keyword: "MUST", Binds: "server"}, "MUST"},
		{Clause{Binds: "server"}, "no keyword"},
		{Clause{Keyword: "SHOULD NOT", Binds: "client"}, "client SHOULD NOT"},
		{Clause{Binds: "client"}, "binds the client"},
	} {
		if got := c.c.Weight(); got != c.want {
			t.Errorf("%+v: Weight() = %q, want %q", c.c, got, c.want)
		}
	}
}

// The audit's --json encodes a Clause whole: its field names and order
// are that output's, and the fields the audit leaves empty stay out.
func TestClauseJSON(t *testing.T) {
	b, err := json.Marshal(Clause{Version: "RFC 9728", Section: "§3.3", URL: "https://x", Keyword: "MUST"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"rev":"RFC 9728","section":"§3.3","url":"https://x","level":"MUST"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
