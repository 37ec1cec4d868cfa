package probe

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// TestToolCallMirrorsParamHeaders: over Streamable HTTP in 2026-07-28, a
// tools/call carries Mcp-Param-{Name} for each parameter its tool marks
// with x-mcp-header, as listed; a server that enforces them (as the spec
// lets it, with 400 and -32020) answers the call.
func TestToolCallMirrorsParamHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg := gjson.ParseBytes(body)
		id := msg.Get("id").Raw
		w.Header().Set("Content-Type", "application/json")
		switch msg.Get("method").String() {
		case "server/discover":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}`)
		case "tools/list":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[`+
				`{"name":"q","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"query":{"type":"string"}}}}]}}`)
		case "tools/call":
			got = r.Header.Clone()
			if decoded(r.Header.Get("Mcp-Param-Region")) != msg.Get("params.arguments.region").String() {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32020,"message":"header mismatch"}}`)
				return
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","content":[]}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	conn, err := transport.NewHTTP(transport.HTTPOptions{URL: srv.URL, Mode: "streamable", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cl, err := Connect(ctx, conn, fastOptions("auto"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl.ListTools(ctx)
	if _, err := cl.CallTool(ctx, "q", []byte(`{"region":"Zürich","n":7,"query":"x"}`), 5*time.Second); err != nil {
		t.Fatalf("the call was refused: %v", err)
	}
	want := map[string]string{"Mcp-Param-Region": "=?base64?WsO8cmljaA==?=", "Mcp-Param-N": "7", "Mcp-Name": "q", "Mcp-Method": "tools/call"}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.Get(k), v)
		}
	}
	for k := range got {
		if k == "Mcp-Param-Query" {
			t.Errorf("an unannotated parameter was mirrored: %v", got)
		}
	}
}

// decoded is a header value as a server reads it (basic/transports,
// value encoding).
func decoded(v string) string {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		b, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?base64?"), "?="))
		return string(b)
	}
	return v
}
