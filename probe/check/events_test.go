package check

import (
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

const goodEvents = `{"resultType":"complete","events":[{"name":"a","delivery":["poll","push"],"inputSchema":{"type":"object"},"payloadSchema":{"type":"object"}}]}`

func eventsRes(raw string) Exchange {
	return Exchange{Method: "m", Result: []byte(raw), Raw: []byte(raw)}
}

func TestEventsDeclared(t *testing.T) {
	for caps, want := range map[string]string{
		`{"extensions":{"io.modelcontextprotocol/events":{}}}`:                        `capabilities.extensions["io.modelcontextprotocol/events"]`,
		`{"events":{"listChanged":true}}`:                                             "capabilities.events (the 2026-02 design sketch's form, not SEP-3415's)",
		`{"tools":{},"extensions":{"io.modelcontextprotocol/events":null}}`:           "",
		`{"extensions":{"io.modelcontextprotocol/tasks":{}},"experimental":{"x":{}}}`: "",
	} {
		if got := eventsDeclared([]byte(caps)); got != want {
			t.Errorf("%s: %q, want %q", caps, got, want)
		}
	}
}

func TestJudgeEventsGating(t *testing.T) {
	notFound := Exchange{Method: "events/list", Err: &probe.RPCError{Code: -32601, Message: "Method not found"}}
	other := Exchange{Method: "events/list", Err: &probe.RPCError{Code: -32603, Message: "boom"}}
	for _, tc := range []struct {
		where   string
		list    Exchange
		outcome string
	}{
		{"x", eventsRes(goodEvents), Pass},
		{"x", notFound, Warn},
		{"x", other, Warn},
		{"x", Exchange{NoReply: "closed"}, Fail},
		{"", notFound, NotApplicable},
		{"", eventsRes(goodEvents), NotApplicable},
	} {
		if v := JudgeEventsGating(tc.where, tc.list); v.Outcome != tc.outcome {
			t.Errorf("declared %q, %s: %s (%s), want %s", tc.where, tc.list.got(), v.Outcome, v.Why, tc.outcome)
		}
	}
}

func TestJudgeEventsList(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		outcome string
		why     string
	}{
		{goodEvents, Pass, "1 event types"},
		{`{"resultType":"complete","events":[]}`, Pass, "0 event types"},
		{`{"resultType":"complete","events":{}}`, Warn, "events is {}, not an array"},
		{`{"events":[]}`, Warn, `resultType is missing`},
		{`{"resultType":"complete","events":[{"delivery":["poll"],"inputSchema":{},"payloadSchema":{}}]}`, Warn, "events[0] has no name"},
		{`{"resultType":"complete","events":[{"name":"a","delivery":[],"inputSchema":{},"payloadSchema":{}}]}`, Warn, "delivery is [], not a non-empty array"},
		{`{"resultType":"complete","events":[{"name":"a","delivery":["sms",1],"inputSchema":{},"payloadSchema":{}}]}`, Warn, `delivery mode "sms" is none of poll, push, webhook; events[0] (a): delivery mode 1 is none`},
		{`{"resultType":"complete","events":[{"name":"a","delivery":["poll"],"inputSchema":true}]}`, Warn, "inputSchema is true, not a JSON Schema object; events[0] (a): payloadSchema is missing"},
		{`{"resultType":"complete","events":[],"nextCursor":3}`, Warn, "nextCursor is not a string"},
	} {
		v := JudgeEventsList("x", eventsRes(tc.raw))
		if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) {
			t.Errorf("%s: %s %q, want %s containing %q", tc.raw, v.Outcome, v.Why, tc.outcome, tc.why)
		}
	}
	if v := JudgeEventsList("", eventsRes(goodEvents)); v.Outcome != NotApplicable {
		t.Errorf("undeclared: %s", v.Outcome)
	}
}

var notFoundPoll = Exchange{Method: "events/poll", Err: &probe.RPCError{Code: -32011, Message: "NotFound"}}

func TestJudgeEventsPoll(t *testing.T) {
	list := eventsRes(goodEvents)
	for _, tc := range []struct {
		raw     string
		outcome string
		why     string
	}{
		{`{"resultType":"complete","events":[],"cursor":"c1","truncated":false,"hasMore":false,"nextPollMs":1000}`, Pass, `a cursor ("c1")`},
		{`{"resultType":"complete","events":[],"cursor":null}`, Pass, "a cursor (null)"},
		{`{"resultType":"complete","events":[{"eventId":"1"}],"cursor":"c"}`, Warn, "1 events from a null cursor"},
		{`{"resultType":"complete","events":[]}`, Warn, "cursor is missing"},
		{`{"resultType":"complete","events":[],"cursor":5,"hasMore":"no","nextPollMs":-1}`, Warn, "cursor is 5, not a string or null; hasMore is \"no\", not a boolean; nextPollMs is -1"},
	} {
		v := JudgeEventsPoll("x", list, `"a"`, eventsRes(tc.raw), notFoundPoll)
		if v.Outcome != tc.outcome || !strings.Contains(v.Why, tc.why) {
			t.Errorf("%s: %s %q, want %s containing %q", tc.raw, v.Outcome, v.Why, tc.outcome, tc.why)
		}
	}
	good := eventsRes(`{"resultType":"complete","events":[],"cursor":"c"}`)
	if v := JudgeEventsPoll("x", list, `"a"`, good, eventsRes(`{"resultType":"complete","events":[],"cursor":null}`)); v.Outcome != Warn || !strings.Contains(v.Why, "an event type the server does not list, was answered with a result") {
		t.Errorf("an unlisted name served: %s %q", v.Outcome, v.Why)
	}
	if v := JudgeEventsPoll("x", list, "", Exchange{}, Exchange{}); v.Outcome != NotApplicable {
		t.Errorf("nothing to poll: %s", v.Outcome)
	}
	if name, a := pollable(eventsRes(`{"events":[{"name":"p","delivery":["push"]},{"name":"q","delivery":["poll"],"inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}`)); name != `"q"` || !strings.Contains(string(a), `"n"`) {
		t.Errorf("pollable: %s %s", name, a)
	}
}
