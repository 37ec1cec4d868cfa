package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	type host struct {
		ID    string `json:"id"`
		Limit int    `json:"limit"`
	}
	type file struct {
		Hosts []host `json:"hosts"`
	}
	cases := []struct {
		in   string
		into any
		want string
	}{
		{`[1,2]`, &file{}, "expected an object, got a list"},
		{`{"hosts": "x"}`, &file{}, `"hosts": expected a list, got text`},
		{`{"hosts": [{"limit": "5"}]}`, &file{}, `"hosts.limit": expected a whole number, got text`},
		{`{"hosts": [{"id": 5}]}`, &file{}, `"hosts.id": expected text, got a number`},
		{`{"hosts": [}`, &file{}, "not valid JSON at byte"},
		{`{"hosts": [`, &file{}, "the JSON ends early"},
	}
	for _, c := range cases {
		err := json.Unmarshal([]byte(c.in), c.into)
		if err == nil {
			t.Fatalf("%s: no error", c.in)
		}
		got := Explain(err)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: Explain = %q, want it to contain %q", c.in, got, c.want)
		}
		for _, leak := range []string{"Go value", "Go struct", "jsonerr.", "unmarshal"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: Explain = %q names Go internals (%q)", c.in, got, leak)
			}
		}
	}
}
