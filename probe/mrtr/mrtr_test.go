package mrtr

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestResponses(t *testing.T) {
	elicit := func(method string, _ []byte) ([]byte, bool) {
		if method == "elicitation/create" {
			return []byte(`{"action":"decline"}`), true
		}
		return nil, false
	}
	reqs := `{"confirm":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}},` +
		`"llm":{"method":"sampling/createMessage","params":{"messages":[]}},"r":{"method":"roots/list"},"x":{"method":"odd/thing"}}`
	for _, tc := range []struct {
		name string
		a    func(string, []byte) ([]byte, bool)
		want string
		by   []string
	}{
		{"built", nil,
			`{"confirm":{"action":"accept","content":{"ok":false}},"llm":{"role":"assistant","content":{"type":"text","text":"mcpprobe"},"model":"mcpprobe","stopReason":"endTurn"},"r":{"roots":[]}}`,
			[]string{"accepted with values built from the requested schema", "a short text mcpprobe wrote", "no roots", "not answered: mcpprobe does not know this method"}},
		{"--elicit", elicit,
			`{"confirm":{"action":"decline"},"llm":{"role":"assistant","content":{"type":"text","text":"mcpprobe"},"model":"mcpprobe","stopReason":"endTurn"},"r":{"roots":[]}}`,
			[]string{"answered decline", "a short text mcpprobe wrote", "no roots", "not answered: mcpprobe does not know this method"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, answers := Responses(gjson.Parse(reqs), tc.a, func(string) string { return "answered decline" })
			if got != tc.want {
				t.Errorf("responses\n %s\nwant\n %s", got, tc.want)
			}
			if len(answers) != len(tc.by) {
				t.Fatalf("answers %+v", answers)
			}
			for i, a := range answers {
				if a.By != tc.by[i] {
					t.Errorf("answer %d (%s) by %q, want %q", i, a.Key, a.By, tc.by[i])
				}
			}
		})
	}
}

func TestReadRetry(t *testing.T) {
	for _, tc := range []struct {
		result, want string
		ok           bool
	}{
		{`{"resultType":"input_required","inputRequests":{},"requestState":"s\u00e9"}`, `"name":"t","inputResponses":{},"requestState":"s\u00e9"`, true},
		{`{"resultType":"input_required","inputRequests":{},"requestState":7}`, `"name":"t","inputResponses":{}`, true},
		{`{"resultType":"complete"}`, "", false},
		{`not json`, "", false},
	} {
		in, ok := Read([]byte(tc.result))
		if ok != tc.ok {
			t.Fatalf("Read(%s) ok %v", tc.result, ok)
		}
		if ok {
			if got := in.Retry(`"name":"t"`, "{}"); got != tc.want {
				t.Errorf("Retry = %s, want %s", got, tc.want)
			}
		}
	}
}

// A server that names thousands of input requests gets at most
// maxRequests answers.
func TestResponsesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":{"method":"roots/list"}`)
	}
	b.WriteString("}")
	_, answers := Responses(gjson.Parse(b.String()), nil, nil)
	if len(answers) != maxRequests {
		t.Errorf("%d answers, want %d", len(answers), maxRequests)
	}
}
