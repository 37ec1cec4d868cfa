package call

import (
	"strings"
	"testing"
)

// Without --elicit, call declares elicitation and accepts each request as
// a host's form submitted as shown, and says what it sent, with the
// clause; --elicit, when given, is answered as told.
func TestElicitDefaults(t *testing.T) {
	params := `{"message":"?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"ok":{"type":"boolean"}},"required":["ok"]}}`
	raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":` + params + `}`)
	r := Replies{ElicitDefaults: true}
	if got := r.Capabilities(); got != `{"elicitation":{}}` {
		t.Errorf("capabilities %s", got)
	}
	ans, ok := r.Answerer()("elicitation/create", []byte(params))
	if want := `{"action":"accept","content":{"name":"John Doe","ok":false}}`; !ok || string(ans) != want {
		t.Errorf("answer %s, want %s", ans, want)
	}
	d := r.DescribeRequest("elicitation/create", raw)
	if !strings.HasPrefix(d, FormAnswered) || !strings.Contains(d, "SEP-1034") || !strings.HasSuffix(d, `{"name":"John Doe","ok":false}`) {
		t.Errorf("described as %q", d)
	}
	r.Elicit = "decline"
	if ans, _ := r.Answerer()("elicitation/create", []byte(params)); string(ans) != `{"action":"decline"}` {
		t.Errorf("--elicit decline answered %s", ans)
	}
	if d := r.DescribeRequest("elicitation/create", raw); d != "answered decline (--elicit)" {
		t.Errorf("--elicit decline described as %q", d)
	}
}
