package check

// Events (experimental): what a black box can judge of a server's events
// extension, on SEP-3415's text (Draft, created 2026-10-05, which the
// Triggers & Events working group incubates in
// modelcontextprotocol/experimental-ext-triggers-events): whether events/*
// is gated on the declaration, the events/list result, and one poll from
// "now". Push and webhooks need a stream held open or a callback URL the
// probe would have to serve, and are left out.

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/tidwall/gjson"
)

// EventsExtension is the extension's identifier.
const EventsExtension = "io.modelcontextprotocol/events"

const sep3415 = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3415"

const eventsRev = "SEP-3415 draft (2026-10-05)"

var (
	eventsGating = &Clause{Version: eventsRev, URL: sep3415 + "#capability-negotiation", Keyword: "", Binds: "server",
		Text: "A client MUST NOT send them to a server that has not advertised the extension, and a server that does not offer it answers any `events/*` request with `-32601` (Method not found)."}
	eventsList = &Clause{Version: eventsRev, URL: sep3415 + "#listing-available-events", Keyword: "", Binds: "server",
		Text: "Response: `{resultType: \"complete\", events: [{name, description, delivery, inputSchema, payloadSchema, _meta?}], nextCursor?}`; `delivery` […] is any non-empty subset of \"poll\", \"push\" and \"webhook\"; `inputSchema` is a JSON Schema for valid subscription arguments; `payloadSchema` is a JSON Schema for `data`"}
	eventsPoll = &Clause{Version: eventsRev, URL: sep3415 + "#poll-based-delivery", Keyword: "", Binds: "server",
		Text: "Response: `{resultType: \"complete\", events[], cursor, truncated, hasMore, nextPollMs}`. In the request, `null` means \"start from now\": the server returns no events and a fresh cursor for later polls. In the response, the server MAY return `cursor: null` for an event type that does not support replay. […] Errors (`NotFound`, `Forbidden`, `InvalidParams`, `Unsupported`) are returned as a standard JSON-RPC error response."}
)

// The ids of the events checks.
const (
	IDEventsGating = "events.gating"
	IDEventsList   = "events.list-shape"
	IDEventsPoll   = "events.poll"
)

const eventsModernOnly = "the events extension is defined for 2026-07-28 and later (SEP-3415: it relies on server/discover and per-request capabilities)"

// EventsChecks are the events extension's checks.
var EventsChecks = sync.OnceValue(func() []Check {
	return []Check{
		{ID: IDEventsGating, Title: "events/list is served when the events extension is declared (an undeclared server is not sent events/*: a client MUST NOT)", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: eventsGating}, NotIn: map[string]string{Legacy: eventsModernOnly}},
		{ID: IDEventsList, Title: "events/list answers events, each with a name, a non-empty delivery of poll/push/webhook, inputSchema and payloadSchema", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: eventsList}, NotIn: map[string]string{Legacy: eventsModernOnly}},
		{ID: IDEventsPoll, Title: "events/poll from a null cursor answers no events, a cursor, and well-typed truncated, hasMore and nextPollMs", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: eventsPoll}, NotIn: map[string]string{Legacy: eventsModernOnly}},
	}
})

// eventsDeclared says where the server declares events: SEP-3415's
// extensions entry, or the design sketch's top-level capability (2026-02,
// the shape ChatGPT-facing servers use); "" when it does not.
func eventsDeclared(caps []byte) string {
	switch {
	case declared(caps, "extensions."+gjson.Escape(EventsExtension)):
		return `capabilities.extensions["` + EventsExtension + `"]`
	case declared(caps, "events"):
		return "capabilities.events (the 2026-02 design sketch's form, not SEP-3415's)"
	}
	return ""
}

// events runs the events checks of the modern era.
func (s *session) events(era string, caps []byte) []Verdict {
	if era != Modern {
		return nil
	}
	where := eventsDeclared(caps)
	if where == "" {
		// SEP-3415 binds the client: it MUST NOT send events/* to a server
		// that has not advertised the extension, so the probe does not, and
		// gating is judged only on the servers that declare it.
		x := Exchange{}
		return []Verdict{JudgeEventsGating("", x), JudgeEventsList("", x), JudgeEventsPoll("", x, "", x, x)}
	}
	s.o.say("events/list")
	// Not kept in s.seen: an undeclared server's -32601 is no result whose
	// resultType lifecycle.result-type should judge.
	list := s.askAside("events/list", "")
	out := []Verdict{JudgeEventsGating(where, list), JudgeEventsList(where, list)}
	name, argsRaw := pollable(list)
	poll, unknown := Exchange{}, Exchange{}
	if where != "" && name != "" {
		s.o.say("events/poll")
		poll = s.askAside("events/poll", `"name":`+name+`,"arguments":`+string(argsRaw)+`,"cursor":null`)
		unknown = s.askAside("events/poll", `"name":"`+unknownEvent+`","arguments":{},"cursor":null`)
	}
	return append(out, JudgeEventsPoll(where, list, name, poll, unknown))
}

func (s *session) askAside(method, members string) Exchange {
	x := Exchange{Method: method, Params: members}
	r, err := s.cl.Request(s.ctx, method, members, s.o.Probe.Timeout)
	return exchanged(x, r, err)
}

// pollable is the first listed event type whose delivery offers poll (its
// name as raw JSON) and the minimal arguments its inputSchema accepts.
func pollable(list Exchange) (string, []byte) {
	for _, e := range gjson.GetBytes(list.Result, "events").Array() {
		if e.Get("name").Type != gjson.String {
			continue
		}
		for _, d := range e.Get("delivery").Array() {
			if d.String() == "poll" {
				a := []byte("{}")
				if sch := e.Get("inputSchema"); sch.IsObject() {
					a = args.MinimalArgs([]byte(sch.Raw))
				}
				return e.Get("name").Raw, a
			}
		}
	}
	return "", nil
}

func answeredResult(x Exchange) bool { return x.Err == nil && x.NoReply == "" && x.Result != nil }

// JudgeEventsGating: a server that declares the extension serves
// events/list. An undeclared one is not asked (the client's MUST NOT), so
// whether it would answer -32601 is never judged. A declared one that does
// not serve it breaks the lower-case "must respect declared capabilities"
// (a warn).
func JudgeEventsGating(where string, list Exchange) Verdict {
	const id = IDEventsGating
	switch {
	case where == "":
		return notApplicable(id, Modern, "the server does not declare the events extension, and a client MUST NOT send it events/* (SEP-3415), so mcpprobe does not")
	case list.NoReply != "":
		return noReply(id, Modern, list)
	case answeredResult(list):
		return verdict(id, Modern, eventsGating, Pass, list, "declared in "+where+" and events/list is served")
	}
	return verdict(id, Modern, capsModern, Warn, list, "declared in "+where+", but events/list was answered "+list.got())
}

var deliveryModes = []string{"poll", "push", "webhook"}

// JudgeEventsList judges a declared server's events/list result.
func JudgeEventsList(where string, list Exchange) Verdict {
	const id = IDEventsList
	switch {
	case where == "":
		return notApplicable(id, Modern, "the server does not declare the events extension")
	case list.NoReply != "":
		return noReply(id, Modern, list)
	case !answeredResult(list):
		return verdict(id, Modern, eventsList, Inconclusive, list, "events/list answered no result (events.gating judges that)")
	}
	res := gjson.ParseBytes(list.Result)
	var bad []string
	if rt := res.Get("resultType"); rt.String() != "complete" {
		bad = append(bad, "resultType is "+orMissing(rt)+", not \"complete\"")
	}
	evs := res.Get("events")
	if !evs.IsArray() {
		bad = append(bad, "events is "+orMissing(evs)+", not an array")
	}
	if nc := res.Get("nextCursor"); nc.Exists() && nc.Type != gjson.String {
		bad = append(bad, "nextCursor is not a string")
	}
	n := 0
	evs.ForEach(func(_, e gjson.Result) bool {
		n++
		label := fmt.Sprintf("events[%d]", n-1)
		if nm := e.Get("name"); nm.Type == gjson.String && nm.String() != "" {
			label = fmt.Sprintf("%s (%s)", label, bound(nm.String()))
		} else {
			bad = append(bad, label+" has no name")
		}
		d := e.Get("delivery")
		switch {
		case !d.IsArray() || len(d.Array()) == 0:
			bad = append(bad, label+": delivery is "+orMissing(d)+", not a non-empty array")
		default:
			for _, m := range d.Array() {
				if !slices.Contains(deliveryModes, m.String()) || m.Type != gjson.String {
					bad = append(bad, label+": delivery mode "+m.Raw+" is none of poll, push, webhook")
				}
			}
		}
		for _, k := range []string{"inputSchema", "payloadSchema"} {
			if !e.Get(k).IsObject() {
				bad = append(bad, label+": "+k+" is "+orMissing(e.Get(k))+", not a JSON Schema object")
			}
		}
		return len(bad) < 8
	})
	if len(bad) > 0 {
		return verdict(id, Modern, eventsList, Warn, list, strings.Join(bad, "; "))
	}
	return verdict(id, Modern, eventsList, Pass, list, fmt.Sprintf("%d event types, each with a name, a delivery of poll/push/webhook, inputSchema and payloadSchema", n))
}

func orMissing(v gjson.Result) string {
	if !v.Exists() {
		return "missing"
	}
	return bound(v.Raw)
}

// unknownEvent is an event name no server lists.
const unknownEvent = "mcpprobe.no-such-event"

// JudgeEventsPoll judges one poll from a null cursor of the first event
// type that offers poll, and a poll of an event name the server does not
// list ("A poll against a removed name already returns NotFound"; errors
// "are returned as a standard JSON-RPC error response").
func JudgeEventsPoll(where string, list Exchange, name string, poll, unknown Exchange) Verdict {
	const id = IDEventsPoll
	switch {
	case where == "":
		return notApplicable(id, Modern, "the server does not declare the events extension")
	case !answeredResult(list):
		return inconclusive(id, Modern, eventsPoll, "events/list answered no result, so no event type to poll")
	case name == "":
		return notApplicable(id, Modern, "no listed event type offers poll delivery")
	case poll.NoReply != "":
		return noReply(id, Modern, poll)
	case poll.Err != nil:
		return verdict(id, Modern, eventsPoll, Warn, poll, "a poll from a null cursor of "+name+", with the minimal arguments its inputSchema accepts, was answered with an error: "+poll.got())
	}
	res := gjson.ParseBytes(poll.Result)
	var bad []string
	if rt := res.Get("resultType"); rt.String() != "complete" {
		bad = append(bad, "resultType is "+orMissing(rt)+", not \"complete\"")
	}
	evs := res.Get("events")
	switch {
	case !evs.IsArray():
		bad = append(bad, "events is "+orMissing(evs)+", not an array")
	case len(evs.Array()) > 0:
		bad = append(bad, fmt.Sprintf("%d events from a null cursor, which means \"start from now\": the server returns no events", len(evs.Array())))
	}
	if c := res.Get("cursor"); !c.Exists() || c.Type != gjson.String && c.Type != gjson.Null {
		bad = append(bad, "cursor is "+orMissing(c)+", not a string or null")
	}
	for _, k := range []string{"truncated", "hasMore"} {
		if v := res.Get(k); v.Exists() && v.Type != gjson.True && v.Type != gjson.False {
			bad = append(bad, k+" is "+bound(v.Raw)+", not a boolean")
		}
	}
	if v := res.Get("nextPollMs"); v.Exists() && (v.Type != gjson.Number || v.Float() < 0) {
		bad = append(bad, "nextPollMs is "+bound(v.Raw)+", not a number >= 0")
	}
	if len(bad) > 0 {
		return verdict(id, Modern, eventsPoll, Warn, poll, strings.Join(bad, "; "))
	}
	if answeredResult(unknown) {
		return verdict(id, Modern, eventsPoll, Warn, unknown, "a poll of "+unknownEvent+", an event type the server does not list, was answered with a result, not a JSON-RPC error (NotFound)")
	}
	why := "polled " + name + " from a null cursor: no events and a cursor (" + bound(res.Get("cursor").Raw) + ")"
	if unknown.Err != nil {
		why += fmt.Sprintf("; an unlisted event name was answered error %d", unknown.Err.Code)
	}
	return verdict(id, Modern, eventsPoll, Pass, poll, why)
}
