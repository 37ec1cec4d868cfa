package transport

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// What the GET for the server's stream got is in the notes whether it
// answered before the session closed or after: Close waits for the answer
// (within --timeout), so a report does not depend on which came first.
func TestCloseWaitsForTheGetAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			time.Sleep(300 * time.Millisecond) // answers after the client is done
			http.Error(w, "no stream", http.StatusNotFound)
		case http.MethodPost:
			w.Header().Set("Mcp-Session-Id", "s1")
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	c, err := NewHTTP(HTTPOptions{URL: srv.URL + "/mcp", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	notes := strings.Join(c.Notes(), "\n")
	if !strings.Contains(notes, "GET for the server's stream answered 404") {
		t.Errorf("notes %q lack the GET's 404", notes)
	}
}
