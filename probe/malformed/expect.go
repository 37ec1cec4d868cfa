package malformed

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/mcpspec"
	"github.com/mcpprobe/mcpprobe/transport"
)

// Verdicts. Only a MUST the server broke is a fail; what the spec leaves
// open, or restricts only the client in, is observed; a case sent to a
// tool that could not answer a valid call is inconclusive.
const (
	Pass         = "pass"
	Fail         = "fail"         // a MUST (or MUST NOT) broken: error
	Warn         = "warn"         // a SHOULD, or a clause without a keyword, not followed: warning
	Observed     = "observed"     // the text leaves it open: what the server did, no judgement
	Inconclusive = "inconclusive" // the tool's baseline call failed: nothing to compare with
)

// Clause is the text a verdict rests on: the judges' one citation type.
type Clause = mcpspec.Clause

// Deviation is what an answer other than the expected one weighs, and the
// clause that weight rests on (nil: the expectation's own).
type Deviation struct {
	Severity findings.Severity // "": nothing the text speaks to, so observed
	Clause   *Clause
	Why      string
}

// Channels an expectation can ask for besides those an answer has.
const (
	Rejected     = "rejected"   // rpc_error or is_error: the server refused it, on either channel
	Answered     = "answered"   // any answer: no crash, no hang
	NothingAsked = "observed"   // nothing asked: the server's answer is reported as what it did
	WrongCode    = "wrong_code" // a Deviations key: rpc_error with another code than asked
	Otherwise    = ""           // a Deviations key: any channel not listed
)

// Expectation is what the negotiated version asks of one case, the clause
// it rests on, and what each other answer weighs.
type Expectation struct {
	Channel string // ok, is_error, rpc_error, rejected, no_answer, answered, observed
	Code    int64  // for rpc_error; 0: any code (no case asks for code 0)
	Why     string
	Clause  *Clause // nil only for the baseline, which no text asks for
	// Deviations by the channel that answered (ok, is_error, rpc_error,
	// no_answer, crashed), WrongCode, or Otherwise.
	Deviations map[string]Deviation
	// Status, over HTTP, is the HTTP status the clause asks of the
	// response (0: any), and WrongStatus what another one weighs.
	Status      int
	WrongStatus Deviation
}

func (e Expectation) String() string {
	if e.Channel == RPCError && e.Code != 0 {
		return fmt.Sprintf("rpc_error %d", e.Code)
	}
	return e.Channel
}

// specVersion is the spec text a negotiated version is judged by.
func specVersion(v string) string { return probe.SpecVersion(v) }

func mcpURL(v, path string) string { return mcpspec.URL(v, path) }

const jsonRPC = "JSON-RPC 2.0"

func jsonRPCURL(anchor string) string { return "https://www.jsonrpc.org/specification#" + anchor }

// The clauses that hold whatever the version.
var (
	// R2: a request gets a reply. A crash is the plainest way to break it.
	mustReply = &Clause{Version: jsonRPC, URL: jsonRPCURL("response_object"), Keyword: "MUST", Binds: "server",
		Text: "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."}
	errorMember = &Clause{Version: jsonRPC, URL: jsonRPCURL("response_object"), Keyword: "MUST", Binds: "server",
		Text: "When a rpc call encounters an error, the Response Object MUST contain the error member"}
	codeTable = &Clause{Version: jsonRPC, URL: jsonRPCURL("error_object"), Binds: "server",
		Text: "-32601 Method not found: The method does not exist / is not available."}
	schemaOpen = &Clause{Version: "JSON Schema", URL: "https://json-schema.org/understanding-json-schema/reference/object#additionalproperties", Binds: "server",
		Text: "By default any additional properties are allowed."}
)

// A request with an id is owed a reply (JSON-RPC's MUST): a crash breaks
// it. A reply that does not come within --timeout is a warning only: no
// version sets a deadline, and a slow server is not a silent one.
func replyOwed(d map[string]Deviation) map[string]Deviation {
	if d == nil {
		d = map[string]Deviation{}
	}
	if _, set := d[Crashed]; !set {
		d[Crashed] = Deviation{Severity: findings.Error, Clause: mustReply, Why: "a request gets a reply; the server ended instead"}
	}
	if _, set := d[NoAnswer]; !set {
		d[NoAnswer] = Deviation{Severity: findings.Warning, Clause: mustReply, Why: "no reply within --timeout; no version sets a deadline, so a warning"}
	}
	if _, set := d[HTTPError]; !set {
		d[HTTPError] = Deviation{Severity: findings.Warning, Clause: mustReply,
			Why: "an HTTP error status with no JSON-RPC error in its body: the client learns at once that the request failed, but not why; a request gets a Response, yet Streamable HTTP lets a server refuse a POST with an HTTP status, so a warning"}
	}
	return d
}

// transportClause is a Streamable HTTP sentence as a Clause.
func transportClause(c Clause) *Clause { return &c }

// sseBody is what the 2024-11-05 HTTP+SSE transport says of a client's
// POSTs: where they go, not what they hold.
var sseBody = &Clause{Version: "2024-11-05", URL: mcpURL("2024-11-05", "basic/transports#http-with-sse"), Keyword: "MUST", Binds: "client",
	Text: "All subsequent client messages MUST be sent as HTTP POST requests to this endpoint."}

// bodyClause is the sentence that forbids the client a frame that is not
// one valid message, on the transport the session runs over.
func bodyClause(version, over string) *Clause {
	v := specVersion(version)
	switch over {
	case OverStreamable:
		return transportClause(probe.PostBody(version))
	case OverSSE:
		return sseBody
	}
	return &Clause{Version: v, URL: stdioURL(v), Keyword: "MUST NOT", Binds: "client",
		Text: "The client MUST NOT write anything to the server's stdin that is not a valid MCP message."}
}

// overHTTP is the expectation of a notification sent over Streamable
// HTTP, judged by how its POST was answered: the transport's MUST (202 and
// no body when accepted, an HTTP error status when not) decides, not the
// JSON-RPC rule, which a body on a 2xx breaks only if it holds a reply.
func (e Expectation) overHTTP(a *transport.NotificationAnswer, version string) Expectation {
	cl := transportClause(probe.NotificationAccepted(version))
	bad := Deviation{Severity: findings.Error, Clause: cl,
		Why: "answered " + probe.DescribeHTTPAnswer(a.Status, a.ContentType, a.Body, a.BodyLen) + ": a notification the server accepts MUST get 202 Accepted with no body"}
	n := Expectation{Channel: e.Channel, Clause: cl, Deviations: map[string]Deviation{Crashed: e.Deviations[Crashed]}}
	switch {
	case a.Accepted():
		// Accepted as the transport says; a reply on another stream is
		// still a reply to a notification, judged by the original rule.
		n.Why = "202 Accepted with no body, as the transport says an accepted notification gets; " + e.Why
		for k, d := range e.Deviations {
			if d.Clause == nil {
				d.Clause = e.Clause
			}
			n.Deviations[k] = d
		}
	case a.Refused():
		n.Channel = Answered
		n.Why = fmt.Sprintf("refused with HTTP %d, the transport's answer to a notification the server cannot accept (it MUST be an HTTP error status)", a.Status)
		n.Deviations[Otherwise] = bad
	default:
		n.Channel = "http 202" // what no answer is: every answer but a crash fails
		n.Why = bad.Why
		n.Deviations[Otherwise] = bad
	}
	return n
}

// A case the spec leaves open: any answer, or none, is observed. Only a
// crash is worth a warning, for robustness; no text makes it a failure.
func open(c *Clause, why string) Expectation {
	return Expectation{Channel: NothingAsked, Clause: c, Why: why, Deviations: map[string]Deviation{
		Crashed: {Severity: findings.Warning, Why: "the server or its session ended; the text leaves the answer open, so a robustness warning, not a failure"},
	}}
}

func toolsErrors(v string) string { return mcpURL(v, "server/tools#error-handling") }

// unknownTool: every version lists an unknown tool among the protocol
// errors, with no keyword, and -32602 as the example; the schema's
// isError text says such errors "should" (lower case) be MCP errors.
func unknownTool(version string) Expectation {
	v := specVersion(version)
	c := &Clause{Version: v, URL: toolsErrors(v), Binds: "server",
		Text: `Protocol Errors: "Unknown tools" (example -32602); the schema: errors in finding the tool "should be reported as an MCP error response"`}
	return Expectation{Channel: RPCError, Code: -32602, Clause: c,
		Why: "an unknown tool is a protocol error; the text has no keyword (a lower-case \"should\"), so another channel is a warning, and -32602 is only the example",
		Deviations: replyOwed(map[string]Deviation{
			WrongCode: {Severity: findings.Info, Why: "-32602 is the spec's example, not a requirement"},
			Otherwise: {Severity: findings.Warning, Why: "an unknown tool should be reported as a protocol error, not as a result"},
		})}
}

// stdioURL is where a version says what a client may write on stdio.
func stdioURL(v string) string {
	if v >= "2026-07-28" {
		return mcpURL(v, "basic/transports/stdio")
	}
	return mcpURL(v, "basic/transports#stdio")
}

// invalidJSON and missingMethod: the client MUST NOT write them, so no
// text binds the server's answer; JSON-RPC's table names the ideal one.
func invalidJSON(version, over string) Expectation {
	return open(bodyClause(version, over),
		"only the client is bound (it MUST NOT send this); JSON-RPC's answer would be -32700 with id null, and before 2025-11-25 MCP forbids that null id, so no answer is wrong")
}

func missingMethod(version, over string) Expectation {
	return open(bodyClause(version, over),
		"only the client is bound (it MUST NOT send this); JSON-RPC's answer would be -32600, and many SDKs read the frame as a reply to nothing and drop it")
}

// unknownMethod: a reply with an error member is a JSON-RPC MUST; the
// code -32601 is JSON-RPC's table (no keyword), except on 2026-07-28 over
// HTTP, where it is a MUST.
func unknownMethod(version string, http bool) Expectation {
	v := specVersion(version)
	code := Deviation{Severity: findings.Warning, Clause: codeTable, Why: "JSON-RPC's table gives -32601, with no keyword"}
	status, wrongStatus := 0, Deviation{}
	if v >= "2026-07-28" && http {
		notFound := &Clause{Version: v, URL: mcpURL(v, "basic/transports/streamable-http#protocol-version-header"),
			Keyword: "MUST", Binds: "server",
			Text: "If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601"}
		code = Deviation{Severity: findings.Error, Clause: notFound, Why: "over Streamable HTTP, 2026-07-28 requires -32601"}
		status, wrongStatus = 404, Deviation{Severity: findings.Error, Clause: notFound, Why: "over Streamable HTTP, 2026-07-28 requires 404 Not Found with the -32601 error"}
	}
	return Expectation{Channel: RPCError, Code: -32601, Clause: errorMember, Status: status, WrongStatus: wrongStatus,
		Why: "a call of a method that does not exist is an error, and its reply MUST carry the error member",
		Deviations: replyOwed(map[string]Deviation{
			WrongCode: code,
			Otherwise: {Severity: findings.Error, Why: "a result for a method that does not exist: the reply MUST carry an error"},
		})}
}

// badCursor: pagination's SHOULD.
func badCursor(version string) Expectation {
	v := specVersion(version)
	c := &Clause{Version: v, URL: mcpURL(v, "server/utilities/pagination#error-handling"), Keyword: "SHOULD", Binds: "server",
		Text: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."}
	dev := Deviation{Severity: findings.Warning, Why: "an invalid cursor SHOULD be -32602"}
	return Expectation{Channel: RPCError, Code: -32602, Clause: c, Why: "an invalid cursor SHOULD be answered -32602",
		Deviations: replyOwed(map[string]Deviation{WrongCode: dev, Otherwise: dev})}
}

// cancelUnknown: a notification gets no reply (a MUST NOT); the
// cancellation of an unknown request SHOULD be ignored, so a crash is a
// warning.
func cancelUnknown(version string) Expectation {
	v := specVersion(version)
	c := &Clause{Version: jsonRPC, URL: jsonRPCURL("notification"), Keyword: "MUST NOT", Binds: "server",
		Text: "The Server MUST NOT reply to a Notification, including those that are within a batch request."}
	if v >= "2025-03-26" {
		c = &Clause{Version: v, URL: mcpURL(v, "basic/index#notifications"), Keyword: "MUST NOT", Binds: "server",
			Text: "Notifications … The receiver MUST NOT send a response."}
	}
	cancelURL := mcpURL(v, "basic/utilities/cancellation#error-handling")
	if v >= "2026-07-28" {
		cancelURL = mcpURL(v, "basic/patterns/cancellation#error-handling")
	}
	ignore := &Clause{Version: v, URL: cancelURL, Keyword: "SHOULD", Binds: "server",
		Text: "Invalid cancellation notifications SHOULD be ignored: Unknown request IDs"}
	return Expectation{Channel: NoAnswer, Clause: c, Why: "a notification gets no reply, and the cancellation of an unknown request is ignored",
		Deviations: map[string]Deviation{
			Crashed:   {Severity: findings.Warning, Clause: ignore, Why: "it SHOULD be ignored; the server ended instead"},
			Otherwise: {Severity: findings.Error, Why: "a reply to a notification"},
		}}
}

// batch: a MUST in 2025-03-26 only; before, MCP had no batches, and from
// 2025-06-18 each message is single, which binds the sender.
func batch(version, over string) Expectation {
	v := specVersion(version)
	switch {
	case v == "2025-03-26":
		c := &Clause{Version: v, URL: mcpURL(v, "basic/index#batching"), Keyword: "MUST", Binds: "server",
			Text: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches."}
		miss := Deviation{Severity: findings.Error, Why: "2025-03-26 servers MUST support receiving batches: the answer is an array with the tools/list result"}
		return Expectation{Channel: OK, Clause: c, Why: "2025-03-26 is the one version with batches, and a server MUST accept them",
			Deviations: replyOwed(map[string]Deviation{
				NoAnswer:  {Severity: findings.Error, Why: "no answer to the batch within --timeout: 2025-03-26 servers MUST support receiving batches"},
				Otherwise: miss,
			})}
	case v == "2024-11-05":
		return open(&Clause{Version: jsonRPC, URL: jsonRPCURL("batch"), Binds: "server",
			Text: "The Server should respond with an Array containing the corresponding Response objects"},
			"2024-11-05 has no batches (its JSONRPCMessage has no array form) and JSON-RPC's sentence is a lower-case \"should\": the answer is open")
	}
	c := &Clause{Version: v, URL: stdioURL(v), Binds: "client",
		Text: "Messages are individual JSON-RPC requests, notifications, or responses."}
	if over != OverStdio {
		c = bodyClause(version, over)
	}
	return open(c, "batching was removed in 2025-06-18; the text says what a sender may send, not how a server answers an array")
}

// secondInitialize and beforeInitialize: only the client is bound.
func secondInitialize(version string) Expectation {
	v := specVersion(version)
	return open(&Clause{Version: v, URL: mcpURL(v, "basic/lifecycle#initialization"), Keyword: "MUST", Binds: "client",
		Text: "The client MUST initiate this phase by sending an initialize request"},
		"no version says how a server answers a second initialize; ok and an error are both legitimate")
}

func beforeInitialize(version string) Expectation {
	v := specVersion(version)
	return open(&Clause{Version: v, URL: mcpURL(v, "basic/lifecycle#initialization"), Keyword: "SHOULD NOT", Binds: "client",
		Text: "The client SHOULD NOT send requests other than pings before the server has responded to the initialize request."},
		"only the client is bound; a result, an error and silence are all legitimate (2026-07-28 itself says legacy servers answer with implementation-defined errors or not at all)")
}

// nullArgs: arguments must be an object in every schema, so null fails
// the CallToolRequest schema: a protocol error in every version ("Invalid
// arguments", later "Malformed requests"), with no keyword and any code.
func nullArgs(version string) Expectation {
	v := specVersion(version)
	text := `Protocol Errors: "Invalid arguments"`
	if v >= "2025-11-25" {
		text = `Protocol Errors: "Malformed requests (requests that fail to satisfy CallToolRequest schema)"`
	}
	c := &Clause{Version: v, URL: toolsErrors(v), Binds: "server", Text: text}
	return Expectation{Channel: RPCError, Clause: c,
		Why: "arguments must be an object: null fails the CallToolRequest schema, a protocol error in every version (any code; -32602 is the natural one)",
		Deviations: replyOwed(map[string]Deviation{
			Otherwise: {Severity: findings.Warning, Why: "a request that fails the CallToolRequest schema is listed among protocol errors (no keyword)"},
		})}
}

// validateInputs is R10, which every version has: it gives no channel,
// so accepting an invalid input can only be a warning.
func validateInputs(v string) *Clause {
	return &Clause{Version: v, URL: mcpURL(v, "server/tools#security-considerations"), Keyword: "MUST", Binds: "server",
		Text: "Servers MUST: Validate all tool inputs"}
}

// inputError is what a schema violation inside arguments asks. Before
// 2025-11-25 the text lists "Invalid arguments" as a protocol error and
// "Invalid input data" as a tool execution error, so either channel
// passes; from 2025-11-25 input validation errors are tool execution
// errors (isError), and a protocol error is a warning.
func inputError(version string) Expectation {
	v := specVersion(version)
	accepted := Deviation{Severity: findings.Warning,
		Why: "the invalid input was accepted; servers MUST validate all tool inputs (" + validateInputs(v).URL + "), but that text names neither a channel nor the inputSchema: a warning"}
	if v < "2025-11-25" {
		c := &Clause{Version: v, URL: toolsErrors(v), Binds: "server",
			Text: `Protocol Errors: "Invalid arguments"; Tool Execution Errors: "Invalid input data"`}
		return Expectation{Channel: Rejected, Clause: c,
			Why:        "before 2025-11-25 the text lists invalid arguments under both channels, so either rejection passes",
			Deviations: replyOwed(map[string]Deviation{OK: accepted})}
	}
	c := &Clause{Version: v, URL: toolsErrors(v), Binds: "server",
		Text: `Tool Execution Errors: "Input validation errors (e.g., date in wrong format, value out of range)"`}
	return Expectation{Channel: IsError, Clause: c,
		Why: "from 2025-11-25 input validation errors are tool execution errors (isError), so the model can correct its call",
		Deviations: replyOwed(map[string]Deviation{
			OK:       accepted,
			RPCError: {Severity: findings.Warning, Why: "a protocol error never reaches the model; 2025-11-25 moved input validation errors to isError (SEP-1303, a lower-case \"should\")"},
		})}
}

// unknownOpen: the schema admits other properties, so a call with one is
// valid; a server that refuses it anyway is observed.
func unknownOpen() Expectation {
	refused := Deviation{Severity: findings.Info, Why: "the schema admits other properties, yet the server refused one"}
	return Expectation{Channel: OK, Clause: schemaOpen,
		Why:        "the schema allows other properties (no additionalProperties: false), so the call is valid",
		Deviations: replyOwed(map[string]Deviation{IsError: refused, RPCError: refused})}
}

// answered: the 1 MB string and the 100-deep nesting. No version sets a
// size or depth limit, so any answer passes; JSON-RPC's MUST reply makes
// a crash a failure.
func answered() Expectation {
	return Expectation{Channel: Answered, Clause: mustReply,
		Why:        "no version sets a size or depth limit: any answer will do, but a request gets one",
		Deviations: replyOwed(nil)}
}

// baselineExpect is the valid call each tool gets first; no text asks
// for it, and it is not judged: it decides whether the tool's cases can be.
func baselineExpect() Expectation {
	return Expectation{Channel: OK, Why: "a valid call, made first: if it fails, the tool's cases cannot be judged"}
}

// Judgement is a verdict with the clause it rests on.
type Judgement struct {
	Verdict  string
	Severity findings.Severity
	Clause   *Clause
	Why      string
}

// Judge compares what answered (channel, and code for rpc_error) with
// what e asks.
func Judge(channel string, code int64, e Expectation) Judgement {
	if meets(channel, code, e) {
		if e.Channel == NothingAsked {
			return Judgement{Verdict: Observed, Clause: e.Clause, Why: e.Why}
		}
		return Judgement{Verdict: Pass, Clause: e.Clause, Why: e.Why}
	}
	var d Deviation
	var found bool
	if e.Channel == RPCError && channel == RPCError {
		d, found = e.Deviations[WrongCode]
	} else {
		d, found = e.Deviations[channel]
	}
	if !found {
		d = e.Deviations[Otherwise]
	}
	j := Judgement{Severity: d.Severity, Clause: d.Clause, Why: d.Why}
	if j.Clause == nil {
		j.Clause = e.Clause
	}
	if j.Why == "" {
		j.Why = e.Why
	}
	switch d.Severity {
	case findings.Error:
		j.Verdict = Fail
	case findings.Warning:
		j.Verdict = Warn
	default:
		j.Verdict = Observed
	}
	return j
}

// meets: the answer is the one asked for. An observed case meets
// anything but a crash, which Judge weighs apart.
func meets(channel string, code int64, e Expectation) bool {
	switch e.Channel {
	case NothingAsked:
		return channel != Crashed
	case Answered:
		return channel == OK || channel == IsError || channel == RPCError || channel == HTTPError
	case Rejected:
		return channel == IsError || channel == RPCError
	case RPCError:
		return channel == RPCError && (e.Code == 0 || e.Code == code)
	}
	return channel == e.Channel
}
