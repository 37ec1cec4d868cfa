package check

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe"
)

// The Streamable HTTP transport's own checks: each applies to an HTTP
// target only, and each era is judged by its own transport text
// (2025-11-25 basic/transports; 2026-07-28 basic/transports/streamable-http).

// The 202 clause is probe's, built by a call: built on first use, once, so
// the registry and the judge cite the same clause.
var (
	notifyLegacy = sync.OnceValue(func() *Clause { c := probe.NotificationAccepted(v1); return &c })
	notifyModern = sync.OnceValue(func() *Clause { c := probe.NotificationAccepted(v2); return &c })
)

var (
	ctypeLegacy = &Clause{Version: v1, URL: spec1 + "basic/transports#sending-messages-to-the-server", Keyword: "MUST", Binds: "server",
		Text: "If the input is a JSON-RPC request, the server MUST either return `Content-Type: text/event-stream`, to initiate an SSE stream, or `Content-Type: application/json`, to return one JSON object."}
	ctypeModern = &Clause{Version: v2, URL: spec2 + "basic/transports/streamable-http#sending-messages", Keyword: "MUST", Binds: "server",
		Text: "If the body is a JSON-RPC request, the server MUST return either `Content-Type: application/json` (a single JSON object) or `Content-Type: text/event-stream` (an SSE response stream)."}
	acceptLegacy = &Clause{Version: v1, URL: spec1 + "basic/transports#sending-messages-to-the-server", Keyword: "MUST", Binds: "client",
		Text: "The client MUST include an `Accept` header, listing both `application/json` and `text/event-stream` as supported content types."}
	acceptModern = &Clause{Version: v2, URL: spec2 + "basic/transports/streamable-http#sending-messages", Keyword: "MUST", Binds: "client",
		Text: "The client MUST include an `Accept` header listing both `application/json` and `text/event-stream` as supported content types."}
	versionHeader = &Clause{Version: v1, URL: spec1 + "basic/transports#protocol-version-header", Keyword: "MUST", Binds: "server",
		Text: "If the server receives a request with an invalid or unsupported `MCP-Protocol-Version`, it MUST respond with `400 Bad Request`."}
	sessionCharset = &Clause{Version: v1, URL: spec1 + "basic/transports#session-management", Keyword: "MUST", Binds: "server",
		Text: "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."}
	sessionRequired = &Clause{Version: v1, URL: spec1 + "basic/transports#session-management", Keyword: "SHOULD", Binds: "server",
		Text: "Servers that require a session ID SHOULD respond to requests without an `MCP-Session-Id` header (other than initialization) with HTTP 400 Bad Request."}
	// The 404 MUST speaks of a session the server terminated; an id it
	// never issued is not one, so the sentence is cited without its
	// keyword for that case (see JudgeUnknownSession).
	sessionUnknown = &Clause{Version: v1, URL: spec1 + "basic/transports#session-management", Keyword: "", Binds: "server",
		Text: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found."}
	sessionDelete = &Clause{Version: v1, URL: spec1 + "basic/transports#session-management", Keyword: "MUST", Binds: "server",
		Text: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found. […] The server MAY respond to this request [DELETE] with HTTP 405 Method Not Allowed"}
	originLegacy = &Clause{Version: v1, URL: spec1 + "basic/transports#security-warning", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks. If the `Origin` header is present and invalid, servers MUST respond with HTTP 403 Forbidden."}
	originModern = &Clause{Version: v2, URL: spec2 + "basic/transports/streamable-http#security--endpoint", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks. If the `Origin` header is present and invalid, servers MUST respond with HTTP 403 Forbidden."}
	getLegacy = &Clause{Version: v1, URL: spec1 + "basic/transports#listening-for-messages-from-the-server", Keyword: "MUST", Binds: "server",
		Text: "The server MUST either return `Content-Type: text/event-stream` in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"}
	getModern = &Clause{Version: v2, URL: spec2 + "basic/transports/streamable-http#earlier-streamable-http-revisions", Keyword: "SHOULD", Binds: "server",
		Text: "A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`."}
	priming = &Clause{Version: v1, URL: spec1 + "basic/transports#sending-messages-to-the-server", Keyword: "SHOULD", Binds: "server",
		Text: "If the server initiates an SSE stream: The server SHOULD immediately send an SSE event consisting of an event ID and an empty `data` field in order to prime the client to reconnect"}
	resume = &Clause{Version: v1, URL: spec1 + "basic/transports#resumability-and-redelivery", Keyword: "MAY", Binds: "server",
		Text: "The server MAY use this header [Last-Event-ID] to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point."}
	headerMismatch = &Clause{Version: v2, URL: spec2 + "basic/transports/streamable-http#server-validation", Keyword: "MUST", Binds: "server",
		Text: "When rejecting a request due to header validation failure, servers MUST return HTTP status `400 Bad Request` and MUST include a JSON-RPC error response using the following error code: `-32020` HeaderMismatch"}
)

// The transport checks' ids.
const (
	IDHTTPNotification   = "http.notification-accepted"
	IDHTTPContentType    = "http.request-content-type"
	IDHTTPAccept         = "http.accept-negotiation"
	IDHTTPVersionHeader  = "http.protocol-version-header"
	IDHTTPSessionCharset = "http.session-id-charset"
	IDHTTPSessionMissing = "http.session-required"
	IDHTTPSessionUnknown = "http.session-unknown"
	IDHTTPSessionDelete  = "http.session-delete"
	IDHTTPOrigin         = "http.origin"
	IDHTTPGet            = "http.get-stream"
	IDHTTPPriming        = "http.sse-priming"
	IDHTTPResume         = "http.sse-resume"
	IDHTTPHeaderMismatch = "http.header-mismatch"
)

const (
	noSessions = "2026-07-28 has no sessions (Mcp-Session-Id is gone)"
	noResume   = "2026-07-28's streams are not resumable (\"Resumable SSE streams via Last-Event-ID are not supported\")"
)

var httpOnly = []string{HTTP}

// HTTPChecks are the Streamable HTTP transport's checks, in the order
// verdicts show them; they follow Registry's.
var HTTPChecks = sync.OnceValue(func() []Check {
	return []Check{
		{ID: IDHTTPNotification, Title: "a notification POST is answered 202 Accepted with no body (or refused with an HTTP error status)", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: notifyLegacy(), Modern: notifyModern()}},
		{ID: IDHTTPContentType, Title: "a POSTed request is answered application/json or text/event-stream, with its JSON-RPC response", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: ctypeLegacy, Modern: ctypeModern}},
		{ID: IDHTTPAccept, Title: "what the server does with a POST whose Accept lists only one of application/json and text/event-stream (observed)", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: acceptLegacy, Modern: acceptModern}},
		{ID: IDHTTPVersionHeader, Title: "an unsupported MCP-Protocol-Version header is answered 400", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: versionHeader}, NotIn: map[string]string{Modern: "in 2026-07-28 an unsupported version is UnsupportedProtocolVersionError (-32022), judged with the version checks; a header that disagrees with its body is http.header-mismatch"}},
		{ID: IDHTTPSessionCharset, Title: "Mcp-Session-Id holds visible ASCII only (0x21–0x7E)", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: sessionCharset}, NotIn: map[string]string{Modern: noSessions}},
		{ID: IDHTTPSessionMissing, Title: "a request without the session id the server issued is answered 400", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: sessionRequired}, NotIn: map[string]string{Modern: noSessions}},
		{ID: IDHTTPSessionUnknown, Title: "a session id the server never issued is answered 404", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: sessionUnknown}, NotIn: map[string]string{Modern: noSessions}},
		{ID: IDHTTPSessionDelete, Title: "after DELETE ends the session, its id is answered 404 (DELETE may be refused with 405)", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: sessionDelete}, NotIn: map[string]string{Modern: noSessions}},
		{ID: IDHTTPOrigin, Title: "a foreign Origin is answered 403 (fails on a loopback target only)", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: originLegacy, Modern: originModern}},
		{ID: IDHTTPGet, Title: "GET on the MCP endpoint opens text/event-stream or is answered 405", Eras: both, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: getLegacy, Modern: getModern}},
		{ID: IDHTTPPriming, Title: "an SSE answer starts with a priming event (an id, empty data)", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: priming}, NotIn: map[string]string{Modern: noResume}},
		{ID: IDHTTPResume, Title: "what a GET with Last-Event-ID gets (observed: resuming is a MAY)", Eras: []string{Legacy}, Transports: httpOnly,
			Clauses: map[string]*Clause{Legacy: resume}, NotIn: map[string]string{Modern: noResume}},
		{ID: IDHTTPHeaderMismatch, Title: "a request whose Mcp-Method disagrees with its body is answered 400 HeaderMismatch (-32020)", Eras: []string{Modern}, Transports: httpOnly,
			Clauses: map[string]*Clause{Modern: headerMismatch}, NotIn: map[string]string{Legacy: "Mcp-Method and Mcp-Name are new in 2026-07-28"}},
	}
})

func hv(id, era string, c *Clause, outcome string, x hx, why string) Verdict {
	return Verdict{ID: id, Era: era, Clause: c, Outcome: outcome, Sent: x.sent(), Got: x.got(), Why: why}
}

// unanswered judges an exchange nothing answered: a transport rule is
// about what the answer is, so no answer within --timeout is a warning,
// and a connection refused or ended leaves the check inconclusive.
func unanswered(id, era string, c *Clause, x hx) Verdict {
	if strings.Contains(x.Err, "--timeout") {
		return hv(id, era, c, Warn, x, "no HTTP answer within --timeout; no version sets a deadline, so a warning")
	}
	return hv(id, era, c, Inconclusive, x, "no HTTP answer: "+x.Err)
}

func pick(era string, legacy, modern *Clause) *Clause {
	if era == Modern {
		return modern
	}
	return legacy
}

// JudgeNotification: 202 with no body, or an HTTP error status.
func JudgeNotification(era string, x hx) Verdict {
	const id = IDHTTPNotification
	c := pick(era, notifyLegacy(), notifyModern())
	switch {
	case !x.answered():
		return unanswered(id, era, c, x)
	case x.Status == http.StatusAccepted && len(x.Body) == 0:
		return hv(id, era, c, Pass, x, "202 Accepted, no body")
	case x.Status >= 400:
		return hv(id, era, c, Pass, x, fmt.Sprintf("refused with HTTP %d, the error status a server that cannot accept it MUST give", x.Status))
	}
	return hv(id, era, c, Fail, x, fmt.Sprintf("answered HTTP %d with %d bytes of body: a notification the server accepts MUST get 202 Accepted with no body", x.Status, len(x.Body)))
}

// JudgeContentType judges a request's answer: application/json with one
// JSON object, or text/event-stream (whose response is a SHOULD).
func JudgeContentType(era string, x hx) Verdict {
	const id = IDHTTPContentType
	c := pick(era, ctypeLegacy, ctypeModern)
	mt := x.mediaType()
	switch {
	case !x.answered():
		return unanswered(id, era, c, x)
	case x.Status >= 400:
		return hv(id, era, c, Inconclusive, x, fmt.Sprintf("a well-formed %s was refused with HTTP %d: no answer to judge", x.What, x.Status))
	case mt == "application/json" && !isObject(x.Msg):
		return hv(id, era, c, Fail, x, "answered application/json with a body that is not one JSON object")
	case mt == "application/json":
		return hv(id, era, c, Pass, x, fmt.Sprintf("HTTP %d application/json, one JSON object", x.Status))
	case mt == "text/event-stream" && x.Msg == nil:
		return hv(id, era, c, Warn, x, "answered text/event-stream whose events, as read, hold no response: the stream SHOULD include it")
	case mt == "text/event-stream":
		return hv(id, era, c, Pass, x, fmt.Sprintf("HTTP %d text/event-stream carrying the response", x.Status))
	case mt == "":
		return hv(id, era, c, Fail, x, fmt.Sprintf("answered HTTP %d with no Content-Type: a request MUST be answered application/json or text/event-stream", x.Status))
	}
	return hv(id, era, c, Fail, x, fmt.Sprintf("answered HTTP %d Content-Type %s: a request MUST be answered application/json or text/event-stream", x.Status, mt))
}

func isObject(b []byte) bool {
	s := strings.TrimSpace(string(b))
	return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}")
}

// JudgeAccept observes what POSTs whose Accept lists one of the two
// types got (json: application/json alone; sse: text/event-stream
// alone): the rule binds the client, so nothing the server does fails it.
func JudgeAccept(era string, json, sse hx) Verdict {
	const id = IDHTTPAccept
	c := pick(era, acceptLegacy, acceptModern)
	answer := func(x hx) string {
		if !x.answered() {
			return "no HTTP answer (" + x.Err + ")"
		}
		got := fmt.Sprintf("HTTP %d", x.Status)
		if mt := x.mediaType(); mt != "" {
			got += " " + mt
		}
		return got
	}
	v := hv(id, era, c, Observed, json, "Accept: application/json alone was answered "+answer(json)+", text/event-stream alone "+answer(sse)+"; the Accept rule binds the client, so what the server does is its choice")
	v.Sent = bound(json.sent() + "; " + sse.sent())
	v.Got = bound(json.got() + "; " + sse.got())
	return v
}

// badVersion is the MCP-Protocol-Version no server supports.
const badVersion = "1999-01-01"

// JudgeVersionHeader: an unsupported MCP-Protocol-Version gets 400.
// negotiated is the session's version: before 2025-06-18 there is no
// such header.
func JudgeVersionHeader(negotiated string, x hx) Verdict {
	const id = IDHTTPVersionHeader
	switch {
	case negotiated != "" && probe.SpecVersion(negotiated) < "2025-06-18":
		return notApplicable(id, Legacy, "the session negotiated "+negotiated+", which has no MCP-Protocol-Version header (new in 2025-06-18)")
	case !x.answered():
		return unanswered(id, Legacy, versionHeader, x)
	case x.Status == http.StatusBadRequest:
		return hv(id, Legacy, versionHeader, Pass, x, "MCP-Protocol-Version: "+badVersion+" was answered 400")
	}
	return hv(id, Legacy, versionHeader, Fail, x, fmt.Sprintf("MCP-Protocol-Version: %s was answered HTTP %d: a server MUST answer an invalid or unsupported version with 400 Bad Request", badVersion, x.Status))
}

// JudgeSessionCharset: every byte of the issued id in 0x21–0x7E.
func JudgeSessionCharset(init hx) Verdict {
	const id = IDHTTPSessionCharset
	if init.SessionID == "" {
		return notApplicable(id, Legacy, "the server issued no Mcp-Session-Id (it keeps no session)")
	}
	x := init
	// The id is a credential of the session: what is shown is its length
	// and a prefix, escaped, as the trace keeps a prefix.
	prefix := init.SessionID[:min(len(init.SessionID), 6)]
	x.Body = []byte(fmt.Sprintf("Mcp-Session-Id of %d bytes, %q…", len(init.SessionID), prefix))
	for i := 0; i < len(init.SessionID); i++ {
		if b := init.SessionID[i]; b < 0x21 || b > 0x7e {
			return hv(id, Legacy, sessionCharset, Fail, x, fmt.Sprintf("byte %d of the %d-byte Mcp-Session-Id is 0x%02x: a session id MUST hold visible ASCII only (0x21–0x7E)", i+1, len(init.SessionID), b))
		}
	}
	return hv(id, Legacy, sessionCharset, Pass, x, fmt.Sprintf("the %d-byte Mcp-Session-Id is visible ASCII", len(init.SessionID)))
}

// JudgeSessionMissing judges a request sent without the session id the
// server issued: 400 is what a server that requires it SHOULD give; one
// that serves it does not require it, which the text allows.
func JudgeSessionMissing(session string, x hx) Verdict {
	const id = IDHTTPSessionMissing
	switch {
	case session == "":
		return notApplicable(id, Legacy, "the server issued no Mcp-Session-Id")
	case !x.answered():
		return unanswered(id, Legacy, sessionRequired, x)
	case x.Status == http.StatusBadRequest:
		return hv(id, Legacy, sessionRequired, Pass, x, "a request without Mcp-Session-Id was answered 400")
	case x.Status < 300:
		return hv(id, Legacy, sessionRequired, Observed, x, fmt.Sprintf("served a request without Mcp-Session-Id (HTTP %d): a server that does not require its session id may", x.Status))
	}
	return hv(id, Legacy, sessionRequired, Warn, x, fmt.Sprintf("a request without Mcp-Session-Id was answered HTTP %d: servers that require a session id SHOULD answer 400", x.Status))
}

// unknownSession is a session id no server issued.
const unknownSession = "mcpprobe-unknown-session-0000000000000000"

// JudgeUnknownSession judges a request with a session id the server
// never issued. The 404 MUST speaks of a session the server terminated;
// such an id is one it cannot tell from a terminated one, but the
// sentence does not name it, so anything but 404 is a warning.
func JudgeUnknownSession(session string, x hx) Verdict {
	const id = IDHTTPSessionUnknown
	switch {
	case session == "":
		return notApplicable(id, Legacy, "the server issued no Mcp-Session-Id")
	case !x.answered():
		return unanswered(id, Legacy, sessionUnknown, x)
	case x.Status == http.StatusNotFound:
		return hv(id, Legacy, sessionUnknown, Pass, x, "a session id the server never issued was answered 404")
	}
	return hv(id, Legacy, sessionUnknown, Warn, x, fmt.Sprintf("a session id the server never issued was answered HTTP %d, not 404: the 404 MUST names terminated sessions only, and an id never issued is not one, so a warning", x.Status))
}

// JudgeSessionDelete judges DELETE of the session, then a request with
// its id: a session DELETE ended MUST then get 404; a DELETE refused with
// 405 is the MAY. A 200 or 204 says the deletion was enacted (RFC 9110
// §9.3.5), a 202 that it was accepted only, so only the first two are
// held to the 404.
func JudgeSessionDelete(session string, del, after hx) Verdict {
	const id = IDHTTPSessionDelete
	switch {
	case session == "":
		return notApplicable(id, Legacy, "the server issued no Mcp-Session-Id")
	case !del.answered():
		return unanswered(id, Legacy, sessionDelete, del)
	case del.Status == http.StatusMethodNotAllowed:
		return hv(id, Legacy, sessionDelete, Observed, del, "DELETE was answered 405: the server MAY refuse to let clients end sessions")
	case del.Status == http.StatusAccepted:
		return hv(id, Legacy, sessionDelete, Observed, del, "DELETE was answered 202, which RFC 9110 gives a deletion accepted but not yet enacted: nothing to judge after it")
	case del.Status >= 300:
		return hv(id, Legacy, sessionDelete, Observed, del, fmt.Sprintf("DELETE was answered HTTP %d: the session did not end, so there is nothing to judge after it", del.Status))
	case !after.answered():
		return unanswered(id, Legacy, sessionDelete, after)
	case after.Status == http.StatusNotFound:
		return hv(id, Legacy, sessionDelete, Pass, after, fmt.Sprintf("DELETE was answered %d, then a request with the ended session's id 404", del.Status))
	}
	return hv(id, Legacy, sessionDelete, Fail, after, fmt.Sprintf("DELETE was answered %d, which RFC 9110 gives a deletion enacted (the session terminated), then a request with its id was answered HTTP %d: a server MUST answer 404 once a session is terminated", del.Status, after.Status))
}

// The tool a tools/call with a disagreeing Mcp-Name names: no server has
// it, so a server that does not validate the header calls nothing.
const (
	mismatchTool = "mcpprobe-check-no-such-tool"
	mismatchName = "mcpprobe-check-other-name"
)

// foreignOrigin is an Origin no MCP server serves.
const foreignOrigin = "http://evil.example"

// JudgeOrigin: a foreign Origin gets 403. Which origins are valid is the
// server's configuration, so a served foreign Origin fails only on a
// loopback target, the DNS-rebinding case the clause is about; on another
// target it may be the deployment's policy, and is observed.
func JudgeOrigin(era string, loopback bool, x hx) Verdict {
	const id = IDHTTPOrigin
	c := pick(era, originLegacy, originModern)
	switch {
	case !x.answered():
		return unanswered(id, era, c, x)
	case x.Status == http.StatusForbidden:
		return hv(id, era, c, Pass, x, "Origin: "+foreignOrigin+" was answered 403")
	case x.Status < 300 && loopback:
		return hv(id, era, c, Fail, x, fmt.Sprintf("Origin: %s was served (HTTP %d) by a server on loopback, the DNS-rebinding case: servers MUST validate Origin and answer an invalid one 403 (SDKs leave it to the server: the TypeScript SDK 1.x's enableDnsRebindingProtection is off by default, 2.x's createMcpHandler leaves Origin to originValidationResponse, the Go SDK's handler checks Host only unless CrossOriginProtection is set)", foreignOrigin, x.Status))
	case x.Status < 300:
		return hv(id, era, c, Observed, x, fmt.Sprintf("Origin: %s was served (HTTP %d) by a server not on loopback: which origins are valid is its configuration, so this fails on a loopback target only", foreignOrigin, x.Status))
	}
	return hv(id, era, c, Observed, x, fmt.Sprintf("Origin: %s was answered HTTP %d, not 403: refused, though not with the status the clause names", foreignOrigin, x.Status))
}

// JudgeGet: legacy, GET opens text/event-stream or is answered 405 (a
// MUST); modern, a server of that revision only SHOULD answer 405 (one
// that serves 2025-11-25 too serves that era's GET: legacyServed, when
// not "", says so).
func JudgeGet(era string, legacyServed string, x hx) Verdict {
	const id = IDHTTPGet
	if era == Modern {
		switch {
		case legacyServed != "":
			return notApplicable(id, Modern, legacyServed)
		case !x.answered():
			return unanswered(id, Modern, getModern, x)
		case x.Status == http.StatusMethodNotAllowed:
			return hv(id, Modern, getModern, Pass, x, "GET was answered 405")
		}
		return hv(id, Modern, getModern, Warn, x, fmt.Sprintf("GET was answered HTTP %d: a server of this revision only SHOULD answer 405", x.Status))
	}
	mt := x.mediaType()
	switch {
	case !x.answered():
		return unanswered(id, Legacy, getLegacy, x)
	case x.Status < 300 && mt == "text/event-stream":
		return hv(id, Legacy, getLegacy, Pass, x, fmt.Sprintf("GET opened text/event-stream (HTTP %d)", x.Status))
	case x.Status == http.StatusMethodNotAllowed:
		return hv(id, Legacy, getLegacy, Pass, x, "GET was answered 405: no stream at this endpoint, which the clause allows")
	case x.Status == http.StatusUnauthorized || x.Status == http.StatusForbidden:
		return hv(id, Legacy, getLegacy, Inconclusive, x, fmt.Sprintf("GET was answered HTTP %d: authorization stood before the stream", x.Status))
	}
	what := fmt.Sprintf("HTTP %d", x.Status)
	if mt != "" {
		what += " " + mt
	}
	return hv(id, Legacy, getLegacy, Fail, x, "GET was answered "+what+": the server MUST answer text/event-stream or 405 Method Not Allowed")
}

// firstStream is the first of xs answered text/event-stream, if any.
func firstStream(xs []hx) (hx, bool) {
	for _, x := range xs {
		if x.Method == http.MethodPost && x.Status < 300 && x.mediaType() == "text/event-stream" {
			return x, true
		}
	}
	return hx{}, false
}

// JudgePriming judges the first SSE answer to a POST: it SHOULD start
// with an event that has an id and empty data (new in 2025-11-25).
func JudgePriming(negotiated string, xs []hx) Verdict {
	const id = IDHTTPPriming
	x, ok := firstStream(xs)
	switch {
	case !ok:
		return notApplicable(id, Legacy, "every POST was answered application/json: no stream to judge")
	case negotiated != "" && probe.SpecVersion(negotiated) < v1:
		return notApplicable(id, Legacy, "the session negotiated "+negotiated+"; the priming event is new in 2025-11-25")
	case len(x.Events) == 0:
		return hv(id, Legacy, priming, Warn, x, "the stream held no event as read: the server SHOULD send a priming event first")
	}
	ev := x.Events[0]
	retry := "no retry field"
	for _, e := range x.Events {
		if e.Retry != "" {
			retry = "a retry field"
			break
		}
	}
	if ev.HasID && ev.ID != "" && ev.Data == "" {
		return hv(id, Legacy, priming, Pass, x, fmt.Sprintf("the %s stream starts with an event id and empty data (%s)", x.What, retry))
	}
	ids := 0
	for _, e := range x.Events {
		if e.HasID {
			ids++
		}
	}
	return hv(id, Legacy, priming, Warn, x, fmt.Sprintf("the %s stream's first event is not an id with empty data (%d of its %d events carry an id, %s): the server SHOULD send one first", x.What, ids, len(x.Events), retry))
}

// resumeFrom is the Last-Event-ID a client that lost the first stream
// right after its first event with an id would send: the priming event's
// id, as the spec means it ("using that event ID as Last-Event-ID"); ""
// if no event carried one.
func resumeFrom(xs []hx) string {
	x, _ := firstStream(xs)
	for _, e := range x.Events {
		if e.HasID && e.ID != "" {
			return e.ID
		}
	}
	return ""
}

// JudgeResume observes what a GET with Last-Event-ID (the first event id
// of the first stream) got, and whether it replayed the response that
// followed: resuming is a MAY.
func JudgeResume(lastID string, x hx) Verdict {
	const id = IDHTTPResume
	switch {
	case lastID == "":
		return notApplicable(id, Legacy, "no stream carried an event id: nothing to resume from (ids are a MAY)")
	case !x.answered():
		return hv(id, Legacy, resume, Observed, x, "a GET with Last-Event-ID got no HTTP answer ("+x.Err+"); resuming is a MAY")
	}
	what := fmt.Sprintf("HTTP %d", x.Status)
	if mt := x.mediaType(); mt != "" {
		what += " " + mt
	}
	switch {
	case x.Status < 300 && x.mediaType() == "text/event-stream" && x.Msg != nil:
		what += ", replaying the response of the stream it resumed"
	case x.Status < 300 && x.mediaType() == "text/event-stream":
		what += fmt.Sprintf(", with no response replayed in the %s it was read", resumeWait)
	}
	return hv(id, Legacy, resume, Observed, x, "a GET with Last-Event-ID was answered "+what+"; resuming is a MAY")
}

// JudgeHeaderMismatch: a body whose method disagrees with Mcp-Method,
// and (when sent) a tools/call whose params.name disagrees with Mcp-Name,
// each get 400 and HeaderMismatch (-32020). The first that does not is
// the verdict.
func JudgeHeaderMismatch(xs ...hx) Verdict {
	var v Verdict
	for _, x := range xs {
		if v = judgeMismatch(x); v.Outcome != Pass {
			return v
		}
	}
	if len(xs) > 1 {
		v.Why = "Mcp-Method and Mcp-Name that disagree with the body were each answered 400 with HeaderMismatch (-32020)"
	}
	return v
}

func judgeMismatch(x hx) Verdict {
	const id = IDHTTPHeaderMismatch
	code, has := x.rpcCode()
	switch {
	case !x.answered():
		return unanswered(id, Modern, headerMismatch, x)
	case x.Status == http.StatusBadRequest && has && code == -32020:
		return hv(id, Modern, headerMismatch, Pass, x, "answered 400 with HeaderMismatch (-32020)")
	case x.Status == http.StatusBadRequest && has:
		return hv(id, Modern, headerMismatch, Fail, x, fmt.Sprintf("answered 400 with error %d: the error MUST be HeaderMismatch (-32020)", code))
	case x.Status == http.StatusBadRequest:
		return hv(id, Modern, headerMismatch, Fail, x, "answered 400 without a JSON-RPC error: it MUST include HeaderMismatch (-32020)")
	}
	how := fmt.Sprintf("HTTP %d", x.Status)
	if has {
		how += fmt.Sprintf(" with error %d", code)
	}
	what := "a server/discover body sent with Mcp-Method: tools/list"
	if x.What == "tools/call" {
		what = "a tools/call body naming " + mismatchTool + " sent with Mcp-Name: " + mismatchName
	}
	return hv(id, Modern, headerMismatch, Fail, x, what+" was answered "+how+": a server MUST reject a header that disagrees with the body with 400 and HeaderMismatch (-32020)")
}
