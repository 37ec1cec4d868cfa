package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTraceRestart(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	tr := NewTrace(old)
	if !tr.Restart(time.Now()) || tr.Since() > time.Minute {
		t.Errorf("an empty trace did not move its start: since %v", tr.Since())
	}
	tr.Add(DirSend, []byte("x"))
	if tr.Restart(old) || tr.Since() > time.Minute {
		t.Errorf("a trace with a frame moved its start")
	}
}

// stepBearer is a Bearer that steps up to token "t<n>" at each call of
// StepUp, up to ok times.
type stepBearer struct {
	n, ok int
}

func (b *stepBearer) Authorization(context.Context, *url.URL, *Trace) string {
	return fmt.Sprintf("Bearer t%d", b.n)
}
func (b *stepBearer) Refresh(context.Context, string, *Trace) error { return errors.New("no") }
func (b *stepBearer) StepUp(_ context.Context, refused string, ch []string, _ *Trace) error {
	if b.n >= b.ok || refused != fmt.Sprintf("Bearer t%d", b.n) || len(ch) != 1 {
		return errors.New("no step-up")
	}
	b.n++
	return nil
}

// A 403 is stepped up and the request sent again with the new token, the
// same body, at most twice; a Bearer that will not step up gets the 403
// back as it came.
func TestStepUp(t *testing.T) {
	for _, tc := range []struct {
		name         string
		need, ok     int // the token the server accepts (t<need>); step-ups the bearer grants
		status, sent int
	}{
		{"one step-up", 1, 5, 200, 2},
		{"two step-ups", 2, 5, 200, 3},
		{"never enough: two retries, no more", 9, 9, 403, 3},
		{"the bearer refuses", 1, 0, 403, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var sent []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				sent = append(sent, r.Header.Get("Authorization")+" "+string(body))
				mu.Unlock()
				if r.Header.Get("Authorization") != fmt.Sprintf("Bearer t%d", tc.need) {
					w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="more"`)
					w.WriteHeader(403)
					fmt.Fprint(w, "forbidden")
					return
				}
				fmt.Fprint(w, "ok")
			}))
			defer srv.Close()
			b := &stepBearer{ok: tc.ok}
			c := &HTTP{opts: HTTPOptions{Timeout: 5 * time.Second, Bearer: b}, trace: NewTrace(time.Now())}
			client := &http.Client{Transport: &bearerTransport{c: c, rt: http.DefaultTransport}}
			resp, err := client.Post(srv.URL, "application/json", strings.NewReader(`{"x":1}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			if resp.StatusCode != tc.status || len(sent) != tc.sent {
				t.Errorf("status %d after %d requests (%q), want %d after %d", resp.StatusCode, len(sent), sent, tc.status, tc.sent)
			}
			if tc.status == 403 && string(body) != "forbidden" {
				t.Errorf("the 403's body %q, want it as it came", body)
			}
			for i, s := range sent {
				if want := fmt.Sprintf("Bearer t%d {\"x\":1}", i); s != want {
					t.Errorf("request %d: %q, want %q", i, s, want)
				}
			}
		})
	}
}
