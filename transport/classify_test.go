package transport

import (
	"strings"
	"testing"
)

func TestIsJSONRPC(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, true},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, true},
		{"jsonrpc member not first", `{"id":1,"result":{},"jsonrpc":"2.0"}`, true},
		{"wrong jsonrpc value is still a JSON-RPC attempt", `{"jsonrpc":"1.0","id":1}`, true},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"x"}]`, true},
		{"batch of one", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, true},
		{"empty array", `[]`, false},
		{"empty array padded", ` [ ] `, false},
		{"batch with a non-message", `[{"jsonrpc":"2.0","id":1,"result":{}},{"level":"info"}]`, false},
		{"batch with a scalar", `[{"jsonrpc":"2.0","id":1,"result":{}},1]`, false},
		{"array of numbers", `[1,2,3]`, false},
		{"structured log line", `{"level":"info","msg":"server started","time":"2026-01-01T00:00:00Z"}`, false},
		{"log line mentioning jsonrpc in a nested object", `{"level":"debug","msg":{"jsonrpc":"2.0"}}`, false},
		{"log line mentioning jsonrpc in a value", `{"level":"debug","msg":"jsonrpc"}`, false},
		{"plain text", `Server listening on stdio`, false},
		{"empty", ``, false},
		{"only whitespace", " \t\r", false},
		{"invalid JSON", `{"jsonrpc":"2.0","id":1,`, false},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"result":{}} extra`, false},
		{"two objects on a line", `{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":2,"result":{}}`, false},
		{"single quotes", `{'jsonrpc':'2.0'}`, false},
		{"whitespace padded", "  \t{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}  ", true},
		{"carriage return at end", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r", true},
		{"padded batch", "\t[ {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} ]\r", true},
		{"string", `"jsonrpc"`, false},
		{"number", `42`, false},
		{"null", `null`, false},
		{"glued message is not itself a message", `Loading{"jsonrpc":"2.0","id":1,"result":{}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsJSONRPC([]byte(tc.in)); got != tc.want {
				t.Fatalf("IsJSONRPC(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestGluedMessage(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"glued behind text", "Loading" + msg, 7},
		{"glued behind text with spaces", "Loading... done " + msg, 16},
		{"no glue: plain text", "Loading...", -1},
		{"no glue: empty", "", -1},
		{"no glue: text with a non-message object", `Loading {"level":"info"}`, -1},
		{"message at offset 0", msg, -1},
		{"message at offset 0 followed by text", msg + "tail", -1},
		{"stray brace before message", "a{b}" + msg, 4},
		{"stray log object before message", `{"level":"info"}` + msg, 16},
		{"glued batch is not found by brace", "x[" + msg + "]", -1},
		{"glued message with cr", "Loading" + msg + "\r", 7},
		{"glued invalid message", `Loading{"jsonrpc":"2.0",`, -1},
		{"too many braces before the message", strings.Repeat("{", 8) + msg, -1},
		{"within the candidate bound", strings.Repeat("{", 6) + msg, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := GluedMessage([]byte(tc.in))
			if got != tc.want {
				t.Fatalf("GluedMessage(%q) = %d, want %d", tc.in, got, tc.want)
			}
			if got >= 0 && !IsJSONRPC([]byte(tc.in)[got:]) {
				t.Errorf("the suffix at %d is not a message: %q", got, tc.in[got:])
			}
		})
	}
}
