package check

// What the server sends the client during a session, judged from the
// session's events and results: the requests for input (elicitation/create,
// sampling/createMessage) whether sent as requests (legacy) or inside an
// input_required result (2026-07-28), the log messages, and the progress
// notifications. The official suite judges these with tools of its own
// fixture (tools-call-elicitation, tools-call-sampling,
// elicitation-sep1034-defaults, elicitation-sep1330-enums,
// tools-call-with-logging, tools-call-with-progress); these checks judge
// whatever the server sends while mcpprobe check calls its tools.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// The ids of this file's checks.
const (
	IDElicitShape   = "elicitation.request-shape"
	IDSamplingShape = "sampling.request-shape"
	IDLogDeclared   = "logging.message-declared"
	IDProgressToken = "progress.known-token"
)

var (
	negotiatedOnly = &Clause{Version: v1, URL: spec1 + "basic/lifecycle#operation", Keyword: "MUST", Binds: "server",
		Text: "During the operation phase, the client and server exchange messages according to the negotiated capabilities. Both parties MUST: Respect the negotiated protocol version; Only use capabilities that were successfully negotiated"}
	elicitFormLegacy = &Clause{Version: v1, URL: spec1 + "client/elicitation#form-mode-elicitation-requests", Keyword: "MUST", Binds: "server",
		Text: "Form mode elicitation requests MUST either specify `mode: \"form\"` or omit the `mode` field, and include these additional parameters: `message`, `requestedSchema`. […] form mode elicitation schemas are limited to flat objects with primitive properties only (schema.ts PrimitiveSchemaDefinition: string, number, integer, boolean, enum; each `default` of the property's type)"}
	elicitFormModern = &Clause{Version: v2, URL: spec2 + "client/elicitation#form-mode-elicitation-requests", Keyword: "MUST", Binds: "server",
		Text: "Form mode elicitation requests MUST either specify `mode: \"form\"` or omit the `mode` field, and include these additional parameters: `message`, `requestedSchema`. […] form mode elicitation schemas are limited to flat objects with primitive properties only (schema.ts PrimitiveSchemaDefinition: string, number, integer, boolean, enum; each `default` of the property's type)"}
	samplingLegacy = &Clause{Version: v1, URL: spec1 + "client/sampling#creating-messages", Keyword: "", Binds: "server",
		Text: "schema.ts CreateMessageRequestParams: `messages: SamplingMessage[]` and `maxTokens: number` are required; a SamplingMessage has a `role` and a `content`"}
	samplingModern = &Clause{Version: v2, URL: spec2 + "client/sampling#creating-messages", Keyword: "", Binds: "server",
		Text: "schema.ts CreateMessageRequestParams: `messages: SamplingMessage[]` and `maxTokens: number` are required; a SamplingMessage has a `role` and a `content`"}
	logDeclared = &Clause{Version: v1, URL: spec1 + "server/utilities/logging#capabilities", Keyword: "MUST", Binds: "server",
		Text: "Servers that emit log message notifications MUST declare the `logging` capability […] schema.ts LoggingMessageNotification: `level: LoggingLevel` (debug, info, notice, warning, error, critical, alert, emergency) and `data` are required"}
	progressLegacy = &Clause{Version: v1, URL: spec1 + "basic/utilities/progress#behavior-requirements", Keyword: "MUST", Binds: "server",
		Text: "Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation. […] The `progress` value MUST increase with each notification"}
	progressModern = &Clause{Version: v2, URL: spec2 + "basic/patterns/progress#behavior-requirements", Keyword: "MUST", Binds: "server",
		Text: "Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation. […] The `progress` value MUST increase with each notification"}
)

func serverRequestChecks() []Check {
	return []Check{
		Check{ID: IDElicitShape, Title: "elicitation/create only to a client that declared elicitation, with a message and a flat requestedSchema of primitive properties with typed defaults", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: elicitFormLegacy, Modern: elicitFormModern}},
		Check{ID: IDSamplingShape, Title: "sampling/createMessage only to a client that declared sampling, with messages and maxTokens", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: samplingLegacy, Modern: samplingModern}},
		Check{ID: IDLogDeclared, Title: "notifications/message only with logging declared, each with a level and data", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: logDeclared}, NotIn: map[string]string{Modern: "2026-07-28 logs per request: logging.per-request-level judges its messages"}},
		Check{ID: IDProgressToken, Title: "notifications/progress only for a progressToken the client sent, its progress increasing", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: progressLegacy, Modern: progressModern}},
	}
}

// Asked is one request for input the server made: a request on the
// session (legacy) or an entry of an input_required result's inputRequests.
type Asked struct {
	Method   string
	Params   []byte // raw JSON
	Where    string // "a request on the session", "inputRequests of tools/call"
	Declared bool   // the client had declared the capability it needs
}

// asked gathers the session's requests for input: the server's requests
// among the events, and the inputRequests of the input_required results.
func asked(events []gjsonEvent, xs []Exchange, declaredCaps string) []Asked {
	var out []Asked
	for _, e := range events {
		if e.Kind != "request" || (e.Method != "elicitation/create" && e.Method != "sampling/createMessage") {
			continue
		}
		out = append(out, Asked{Method: e.Method, Params: []byte(gjson.GetBytes(e.Raw, "params").Raw), Where: "a request on the session",
			Declared: gjson.Get(declaredCaps, capOf(e.Method)).IsObject()})
	}
	for _, x := range xs {
		if gjson.GetBytes(x.Result, "resultType").String() != "input_required" {
			continue
		}
		gjson.GetBytes(x.Result, "inputRequests").ForEach(func(_, r gjson.Result) bool {
			m := r.Get("method").String()
			if m == "elicitation/create" || m == "sampling/createMessage" {
				// the modern calls declare every input (callCaps); the
				// call without them is mrtr.declared-inputs' to judge
				out = append(out, Asked{Method: m, Params: []byte(r.Get("params").Raw), Where: "inputRequests of " + x.Method, Declared: true})
			}
			return true
		})
	}
	return out
}

// gjsonEvent is the part of a probe.Event these judges read.
type gjsonEvent struct {
	Kind, Method string
	Raw          []byte
}

func capOf(method string) string {
	if method == "sampling/createMessage" {
		return "sampling"
	}
	return "elicitation"
}

// JudgeElicitShape judges every elicitation/create the server asked for.
func JudgeElicitShape(era string, as []Asked) Verdict {
	const id = IDElicitShape
	c := elicitFormLegacy
	if era == Modern {
		c = elicitFormModern
	}
	n := 0
	for _, a := range as {
		if a.Method != "elicitation/create" {
			continue
		}
		n++
		x := Exchange{Method: a.Method, Params: bound(string(a.Params))}
		if !a.Declared {
			return verdict(id, era, negotiatedOnly, Fail, x, "the server sent elicitation/create ("+a.Where+") to a client that declared no elicitation capability")
		}
		p := gjson.ParseBytes(a.Params)
		if mode := p.Get("mode"); mode.Exists() && mode.String() != "form" {
			continue // url mode: no requestedSchema
		}
		if p.Get("message").Type != gjson.String || !p.Get("requestedSchema").IsObject() {
			return verdict(id, era, c, Fail, x, "an elicitation/create ("+a.Where+") lacks a message string or a requestedSchema object")
		}
		if bad := flatSchema(p.Get("requestedSchema")); bad != "" {
			return verdict(id, era, c, Fail, x, "the requestedSchema of an elicitation/create ("+a.Where+") is not a flat object of primitive properties: "+bad)
		}
	}
	if n == 0 {
		return notApplicable(id, era, "the server asked for no elicitation during the session")
	}
	return Verdict{ID: id, Era: era, Clause: c, Outcome: Pass, Why: fmt.Sprintf("each of the %d elicitation/create has a message and a flat requestedSchema of primitive properties", n)}
}

// flatSchema says what is wrong with a form requestedSchema, "" if
// nothing: type "object", properties each a schema.ts
// PrimitiveSchemaDefinition, defaults of the property's type.
func flatSchema(s gjson.Result) string {
	if s.Get("type").String() != "object" {
		return `type is not "object"`
	}
	props := s.Get("properties")
	if !props.IsObject() {
		return "properties is not an object"
	}
	var bad string
	props.ForEach(func(k, p gjson.Result) bool {
		if why := primitive(p); why != "" {
			bad = fmt.Sprintf("property %q %s", k.String(), why)
			return false
		}
		return true
	})
	return bad
}

func primitive(p gjson.Result) string {
	if !p.IsObject() {
		return "is not a schema object"
	}
	def := p.Get("default")
	str := func(r gjson.Result) bool { return r.Type == gjson.String }
	allStrings := func(r gjson.Result) bool {
		if !r.IsArray() {
			return false
		}
		for _, v := range r.Array() {
			if !str(v) {
				return false
			}
		}
		return true
	}
	titled := func(r gjson.Result) bool {
		if !r.IsArray() || len(r.Array()) == 0 {
			return false
		}
		for _, v := range r.Array() {
			if !str(v.Get("const")) || !str(v.Get("title")) {
				return false
			}
		}
		return true
	}
	switch p.Get("type").String() {
	case "string":
		if e := p.Get("enum"); e.Exists() && !allStrings(e) {
			return "has an enum that is not a list of strings"
		}
		if o := p.Get("oneOf"); o.Exists() && !titled(o) {
			return "has a oneOf whose options are not {const, title} strings"
		}
		if def.Exists() && !str(def) {
			return "has a default that is not a string"
		}
	case "number", "integer":
		if def.Exists() && def.Type != gjson.Number {
			return "has a default that is not a number"
		}
	case "boolean":
		if def.Exists() && !def.IsBool() {
			return "has a default that is not a boolean"
		}
	case "array":
		items := p.Get("items")
		if !allStrings(items.Get("enum")) && !titled(items.Get("anyOf")) {
			return "is an array whose items are neither a string enum nor an anyOf of {const, title}"
		}
		if def.Exists() && !allStrings(def) {
			return "has a default that is not a list of strings"
		}
	default:
		return fmt.Sprintf("has type %s, not string, number, integer, boolean or a multi-select array", bound(p.Get("type").Raw))
	}
	return ""
}

// JudgeSamplingShape judges every sampling/createMessage the server asked for.
func JudgeSamplingShape(era string, as []Asked) Verdict {
	const id = IDSamplingShape
	c := samplingLegacy
	if era == Modern {
		c = samplingModern
	}
	n := 0
	for _, a := range as {
		if a.Method != "sampling/createMessage" {
			continue
		}
		n++
		x := Exchange{Method: a.Method, Params: bound(string(a.Params))}
		if !a.Declared {
			return verdict(id, era, negotiatedOnly, Fail, x, "the server sent sampling/createMessage ("+a.Where+") to a client that declared no sampling capability")
		}
		p := gjson.ParseBytes(a.Params)
		msgs := p.Get("messages")
		ok := msgs.IsArray() && p.Get("maxTokens").Type == gjson.Number
		for _, m := range msgs.Array() {
			ok = ok && m.Get("role").Type == gjson.String && m.Get("content").Exists()
		}
		if !ok {
			return verdict(id, era, c, Warn, x, "a sampling/createMessage ("+a.Where+") lacks messages (each with role and content) or a numeric maxTokens")
		}
	}
	if n == 0 {
		return notApplicable(id, era, "the server asked for no sampling during the session")
	}
	return Verdict{ID: id, Era: era, Clause: c, Outcome: Pass, Why: fmt.Sprintf("each of the %d sampling/createMessage has messages and maxTokens", n)}
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// JudgeLogDeclared judges the session's notifications/message.
func JudgeLogDeclared(caps []byte, events []gjsonEvent) Verdict {
	const id = IDLogDeclared
	n := 0
	for _, e := range events {
		if e.Kind != "notification" || e.Method != "notifications/message" {
			continue
		}
		n++
		x := Exchange{Method: e.Method, Raw: e.Raw}
		if !declared(caps, "logging") {
			return verdict(id, Legacy, logDeclared, Fail, x, "the server sent notifications/message without declaring the logging capability")
		}
		p := gjson.GetBytes(e.Raw, "params")
		if !slices.Contains(logLevels, p.Get("level").String()) || !p.Get("data").Exists() {
			return verdict(id, Legacy, logDeclared, Fail, x, "a notifications/message lacks data or a level of "+strings.Join(logLevels, ", "))
		}
	}
	if n == 0 {
		return notApplicable(id, Legacy, "the server sent no notifications/message during the session")
	}
	return Verdict{ID: id, Era: Legacy, Clause: logDeclared, Outcome: Pass, Why: fmt.Sprintf("each of the %d notifications/message has a level and data, with logging declared", n)}
}

// JudgeProgressTokens judges the session's notifications/progress against
// the progress tokens the client sent (sent: raw JSON tokens; mcpprobe
// check sends none, so any progress notification names a token nobody
// provided).
func JudgeProgressTokens(era string, sent []string, events []gjsonEvent) Verdict {
	const id = IDProgressToken
	c := progressLegacy
	if era == Modern {
		c = progressModern
	}
	n := 0
	last := map[string]float64{}
	for _, e := range events {
		if e.Kind != "notification" || e.Method != "notifications/progress" {
			continue
		}
		n++
		x := Exchange{Method: e.Method, Raw: e.Raw}
		p := gjson.GetBytes(e.Raw, "params")
		tok := p.Get("progressToken").Raw
		if !slices.Contains(sent, tok) {
			return verdict(id, era, c, Fail, x, "a notifications/progress names progressToken "+bound(tok)+", which the client never sent")
		}
		v := p.Get("progress")
		if prev, ok := last[tok]; v.Type != gjson.Number || (ok && v.Float() <= prev) {
			return verdict(id, era, c, Fail, x, "the progress of token "+bound(tok)+" did not increase")
		}
		last[tok] = v.Float()
	}
	if n == 0 {
		return notApplicable(id, era, "the server sent no notifications/progress during the session")
	}
	return Verdict{ID: id, Era: era, Clause: c, Outcome: Pass, Why: fmt.Sprintf("each of the %d notifications/progress names a token the client sent, increasing", n)}
}

// serverSent judges this file's checks over the era's session.
func (s *session) serverSent(era string, caps []byte) []Verdict {
	var events []gjsonEvent
	for _, e := range s.cl.Session.Events() {
		events = append(events, gjsonEvent{Kind: e.Kind, Method: e.Method, Raw: e.Raw})
	}
	declaredCaps := s.o.Probe.Capabilities
	if declaredCaps == "" {
		declaredCaps = "{}"
	}
	requests := events
	if era == Modern {
		// 2026-07-28 asks for input only inside input_required results;
		// a request on the stream is subscriptions' and transports' matter
		requests = nil
	}
	as := asked(requests, s.seen, declaredCaps)
	vs := []Verdict{JudgeElicitShape(era, as), JudgeSamplingShape(era, as)}
	if era == Legacy {
		vs = append(vs, JudgeLogDeclared(caps, events))
	}
	return append(vs, JudgeProgressTokens(era, nil, events))
}
