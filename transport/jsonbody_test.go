package transport

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestJSONValues(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		limit      int
		values     []string
		rest       string
		over       bool
	}{
		{"one object", `{"a":1}`, 100, []string{`{"a":1}`}, "", false},
		{"trailing newline is not a message", "{\"a\":1}\n", 100, []string{`{"a":1}`}, "", false},
		{"leading whitespace kept", " \n{\"a\":1}", 100, []string{" \n{\"a\":1}"}, "", false},
		{"braces and quotes in strings", `{"s":"}]\"{"}`, 100, []string{`{"s":"}]\"{"}`}, "", false},
		{"an escaped backslash ends no string", `{"s":"\\"}`, 100, []string{`{"s":"\\"}`}, "", false},
		{"a batch", `[{"a":1},{"b":2}]`, 100, []string{`[{"a":1},{"b":2}]`}, "", false},
		{"two values", `{"a":1}{"b":2}`, 100, []string{`{"a":1}`, `{"b":2}`}, "", false},
		{"a cut value", `{"a":`, 100, nil, `{"a":`, false},
		{"not JSON", `hello`, 100, nil, `hello`, false},
		{"empty", ``, 100, nil, ``, false},
		{"a value then junk", `{"a":1} x`, 100, []string{`{"a":1}`}, ` x`, false},
		{"over the limit", `{"a":"` + strings.Repeat("x", 50) + `"}`, 20, nil, `{"a":"` + strings.Repeat("x", 15), true},
		{"endless nesting", strings.Repeat("[", 1000), 64, nil, strings.Repeat("[", 65), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			rest, over, err := jsonValues(iotest.OneByteReader(strings.NewReader(tc.body)), tc.limit, func(v []byte, n int) {
				if n != len(got)+1 {
					t.Errorf("value %d numbered %d", len(got)+1, n)
				}
				got = append(got, string(v))
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.values, "|") || string(rest) != tc.rest || over != tc.over {
				t.Errorf("values %q rest %q over %v, want %q %q %v", got, rest, over, tc.values, tc.rest, tc.over)
			}
			if tc.body == "" && rest == nil {
				t.Error("an empty body must come back as rest, for the caller to say so")
			}
		})
	}
}

// A body that never ends after its message: the message is handed on at
// once, not when the body ends.
func TestJSONValuesOpenBody(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	got := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = jsonValues(pr, 1<<20, func(v []byte, _ int) { got <- string(v) })
	}()
	go func() {
		_, _ = pw.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}` + "\n"))
	}()
	select {
	case v := <-got:
		if !strings.Contains(v, "acknowledged") {
			t.Errorf("got %q", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the message waited for the body to end")
	}
	pr.Close()
	<-done
}
