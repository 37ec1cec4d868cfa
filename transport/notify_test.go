package transport

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Every notification POST's answer is recorded: status, type and the
// first bytes of the body, which is still read on as a message.
func TestNotificationAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch string(b) {
		case `{"jsonrpc":"2.0","method":"notifications/a"}`:
			w.WriteHeader(http.StatusAccepted)
		case `{"jsonrpc":"2.0","method":"notifications/b"}`:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"result":{}}`)
		case `{"jsonrpc":"2.0","method":"notifications/c"}`:
			http.Error(w, "no", http.StatusBadRequest)
		case `{"jsonrpc":"2.0","id":1,"method":"ping"}`:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
	}))
	defer srv.Close()
	c, err := NewHTTP(HTTPOptions{URL: srv.URL, Mode: "streamable"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, m := range []string{"a", "b", "c"} {
		_ = c.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/` + m + `"}`))
	}
	_ = c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	got := c.NotificationAnswers()
	if len(got) != 3 {
		t.Fatalf("%d answers recorded, want 3 (the request is not one): %+v", len(got), got)
	}
	want := []struct {
		method         string
		status         int
		body           string
		accepted, refd bool
	}{
		{"notifications/a", 202, "", true, false},
		{"notifications/b", 200, `{"jsonrpc":"2.0","id":null,"result":{}}`, false, false},
		{"notifications/c", 400, "no\n", false, true},
	}
	for i, w := range want {
		a := got[i]
		if a.Method != w.method || a.Status != w.status || string(a.Body) != w.body || a.Accepted() != w.accepted || a.Refused() != w.refd {
			t.Errorf("answer %d: %+v (accepted %v, refused %v), want %+v", i, a, a.Accepted(), a.Refused(), w)
		}
	}
	// The 200's body is read on, whole, as the message it is.
	seen := map[string]bool{}
	timeout := time.After(5 * time.Second)
	for len(seen) < 2 {
		select {
		case m := <-c.Messages():
			seen[string(m.Raw)] = true
		case <-timeout:
			t.Fatalf("messages: %v", seen)
		}
	}
	if !seen[`{"jsonrpc":"2.0","id":null,"result":{}}`] {
		t.Errorf("the notification's body was not delivered whole: %v", seen)
	}
}
