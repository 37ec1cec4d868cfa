package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// A server that serves initialize without a token and asks for one on
// tools/list: the scope asked first is the one its 401 names (Scope
// Selection Strategy, "the initial WWW-Authenticate header in the 401
// response"), not scopes_supported; the session it opened is let go. A
// server that asks for no token on tools/list either leaves
// scopes_supported to decide.
func TestScopeFromTheFirst401(t *testing.T) {
	for _, tc := range []struct {
		name     string
		listAuth bool
		want     string
	}{
		{"401 on tools/list", true, "mcp:basic"},
		{"tools/list served", false, "mcp:profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			var scope string
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/mcp":
					buf := make([]byte, 4096)
					n, _ := r.Body.Read(buf)
					body := string(buf[:n])
					method := r.Method
					if i := strings.Index(body, `"method":"`); i >= 0 {
						method = strings.SplitN(body[i+10:], `"`, 2)[0]
					}
					methods = append(methods, method+" "+r.Header.Get("Mcp-Session-Id"))
					switch {
					case method == "initialize":
						w.Header().Set("Mcp-Session-Id", "s1")
						fmt.Fprint(w, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
					case strings.HasPrefix(method, "notifications/"):
						w.WriteHeader(http.StatusAccepted)
					case method == "tools/list" && !tc.listAuth:
						fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
					case method == "DELETE":
					default:
						w.Header().Set("WWW-Authenticate", `Bearer scope="mcp:basic", resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
						w.WriteHeader(http.StatusUnauthorized)
					}
				case "/.well-known/oauth-protected-resource/mcp":
					fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q],"scopes_supported":["mcp:profile"]}`, srv.URL+"/mcp", srv.URL)
				case "/.well-known/oauth-authorization-server":
					fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, srv.URL, srv.URL+"/token")
				case "/token":
					_ = r.ParseForm()
					scope = r.PostForm.Get("scope")
					fmt.Fprint(w, `{"access_token":"tok-abcdef","token_type":"Bearer"}`)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			h := New(Options{URL: srv.URL + "/mcp", ClientID: "ci", ClientSecret: "s3cret", Timeout: 5 * time.Second})
			if err := h.Authorize(context.Background(), transport.NewTrace(time.Now())); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if scope != tc.want {
				t.Errorf("asked scope %q, want %q", scope, tc.want)
			}
			want := []string{"initialize ", "notifications/initialized s1", "tools/list s1", "DELETE s1"}
			if strings.Join(methods, ",") != strings.Join(want, ",") {
				t.Errorf("requests without a token %q, want %q", methods, want)
			}
		})
	}
}
