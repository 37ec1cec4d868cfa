package check

import (
	"strconv"
	"strings"
	"testing"
)

func elicit(schema string) string {
	return `{"message":"m","requestedSchema":` + schema + `}`
}

// Each case injects one bug into what a server asks for.
func TestJudgeElicitShape(t *testing.T) {
	good := elicit(`{"type":"object","properties":{` +
		`"name":{"type":"string","default":"x"},` +
		`"n":{"type":"integer","minimum":1,"default":3},` +
		`"ok":{"type":"boolean","default":false},` +
		`"color":{"type":"string","enum":["red","green"],"default":"red"},` +
		`"hex":{"type":"string","oneOf":[{"const":"#f00","title":"Red"}]},` +
		`"many":{"type":"array","items":{"enum":["a","b"]},"default":["a"]},` +
		`"titled":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}},"required":["name"]}`)
	at := func(params string, declared bool) []Asked {
		return []Asked{{Method: "elicitation/create", Params: []byte(params), Where: "a request on the session", Declared: declared}}
	}
	for _, tc := range []struct {
		name, era string
		as        []Asked
		outcome   string
		why       string
	}{
		{"every primitive kind, typed defaults", Legacy, at(good, true), Pass, "flat requestedSchema"},
		{"url mode has no schema", Modern, at(`{"mode":"url","message":"m","url":"https://x.example","elicitationId":"e"}`, true), Pass, ""},
		{"undeclared elicitation", Legacy, at(good, false), Fail, "declared no elicitation"},
		{"no message", Legacy, at(`{"requestedSchema":{"type":"object","properties":{}}}`, true), Fail, "message"},
		{"nested object", Modern, at(elicit(`{"type":"object","properties":{"o":{"type":"object","properties":{}}}}`), true), Fail, `property "o"`},
		{"string default on an integer (SEP-1034)", Legacy, at(elicit(`{"type":"object","properties":{"n":{"type":"integer","default":"3"}}}`), true), Fail, "not a number"},
		{"boolean default a string", Legacy, at(elicit(`{"type":"object","properties":{"b":{"type":"boolean","default":"true"}}}`), true), Fail, "not a boolean"},
		{"enum of numbers (SEP-1330)", Legacy, at(elicit(`{"type":"object","properties":{"c":{"type":"string","enum":[1,2]}}}`), true), Fail, "enum"},
		{"oneOf without titles (SEP-1330)", Legacy, at(elicit(`{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a"}]}}}`), true), Fail, "oneOf"},
		{"multi-select of free strings", Legacy, at(elicit(`{"type":"object","properties":{"m":{"type":"array","items":{"type":"string"}}}}`), true), Fail, "array"},
		{"schema not an object type", Legacy, at(elicit(`{"type":"array"}`), true), Fail, "object"},
		{"none asked", Legacy, nil, NotApplicable, "no elicitation"},
		{"sampling only", Legacy, []Asked{{Method: "sampling/createMessage", Params: []byte(`{}`), Declared: true}}, NotApplicable, ""},
	} {
		v := JudgeElicitShape(tc.era, tc.as)
		if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) || v.Era != tc.era {
			t.Errorf("%s: %s %s (%s), want %s with %q", tc.name, v.Era, v.Outcome, v.Why, tc.outcome, tc.why)
		}
	}
}

func TestJudgeSamplingShape(t *testing.T) {
	at := func(params string, declared bool) []Asked {
		return []Asked{{Method: "sampling/createMessage", Params: []byte(params), Where: "inputRequests of tools/call", Declared: declared}}
	}
	good := `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":100}`
	for _, tc := range []struct {
		name    string
		as      []Asked
		outcome string
	}{
		{"well formed", at(good, true), Pass},
		{"undeclared sampling", at(good, false), Fail},
		{"no maxTokens", at(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`, true), Warn},
		{"message without role", at(`{"messages":[{"content":{"type":"text","text":"hi"}}],"maxTokens":1}`, true), Warn},
		{"none", nil, NotApplicable},
	} {
		if v := JudgeSamplingShape(Modern, tc.as); v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
	}
}

func TestAsked(t *testing.T) {
	events := []gjsonEvent{
		{Kind: "request", Method: "elicitation/create", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m"}}`)},
		{Kind: "request", Method: "roots/list", Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"roots/list"}`)},
		{Kind: "notification", Method: "notifications/message", Raw: []byte(`{}`)},
	}
	ir := res(`{"resultType":"input_required","inputRequests":{"a":{"method":"sampling/createMessage","params":{"maxTokens":1}},"b":{"method":"roots/list"}}}`)
	ir.Method = "tools/call"
	as := asked(events, []Exchange{ir, res(`{"resultType":"complete"}`)}, `{"sampling":{}}`)
	if len(as) != 2 {
		t.Fatalf("asked = %+v, want the elicitation request and the sampling input request", as)
	}
	if as[0].Method != "elicitation/create" || as[0].Declared || string(as[0].Params) != `{"message":"m"}` {
		t.Errorf("first = %+v", as[0])
	}
	if as[1].Method != "sampling/createMessage" || !as[1].Declared || as[1].Where != "inputRequests of tools/call" {
		t.Errorf("second = %+v", as[1])
	}
}

func TestJudgeLogDeclared(t *testing.T) {
	msg := func(params string) gjsonEvent {
		return gjsonEvent{Kind: "notification", Method: "notifications/message", Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":` + params + `}`)}
	}
	logging := []byte(`{"logging":{}}`)
	for _, tc := range []struct {
		name    string
		caps    []byte
		events  []gjsonEvent
		outcome string
	}{
		{"declared, well formed", logging, []gjsonEvent{msg(`{"level":"info","data":"started"}`), msg(`{"level":"error","logger":"x","data":{"k":1}}`)}, Pass},
		{"not declared", []byte(`{"tools":{}}`), []gjsonEvent{msg(`{"level":"info","data":"x"}`)}, Fail},
		{"unknown level", logging, []gjsonEvent{msg(`{"level":"verbose","data":"x"}`)}, Fail},
		{"no data", logging, []gjsonEvent{msg(`{"level":"info"}`)}, Fail},
		{"none sent", logging, nil, NotApplicable},
	} {
		if v := JudgeLogDeclared(tc.caps, tc.events); v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
	}
}

func TestJudgeProgressTokens(t *testing.T) {
	prog := func(tok string, p float64) gjsonEvent {
		return gjsonEvent{Kind: "notification", Method: "notifications/progress",
			Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":` + strconv.FormatFloat(p, 'f', -1, 64) + `}}`)}
	}
	for _, tc := range []struct {
		name    string
		sent    []string
		events  []gjsonEvent
		outcome string
	}{
		{"increasing, token sent", []string{`"t1"`}, []gjsonEvent{prog(`"t1"`, 1), prog(`"t1"`, 2.5)}, Pass},
		{"a token never sent", nil, []gjsonEvent{prog(`"t1"`, 1)}, Fail},
		{"integer token sent as a string", []string{`"7"`}, []gjsonEvent{prog(`7`, 1)}, Fail},
		{"not increasing", []string{`1`}, []gjsonEvent{prog(`1`, 2), prog(`1`, 2)}, Fail},
		{"none", nil, nil, NotApplicable},
	} {
		if v := JudgeProgressTokens(Legacy, tc.sent, tc.events); v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
	}
}

func TestJudgeDeclaredInputs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		x       Exchange
		outcome string
	}{
		{"-32021", rpcErr(-32021), Pass},
		{"complete", res(`{"resultType":"complete","content":[]}`), Pass},
		{"requestState only", res(`{"resultType":"input_required","requestState":"s"}`), Pass},
		{"asks for elicitation anyway", res(`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{}}}}`), Fail},
		{"server ended", Exchange{Method: "tools/call", NoReply: "closed"}, Fail},
	} {
		v := JudgeDeclaredInputs("confirm", tc.x)
		if v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
		if !strings.Contains(v.Why, "confirm") && tc.x.NoReply == "" {
			t.Errorf("%s: %q does not name the tool", tc.name, v.Why)
		}
	}
}
