// Package check is the conformance verdict: every check that applies to a
// target, run against each protocol era the server serves, each verdict
// resting on a clause of that era's text. It holds the registry of checks
// (stable ids other tools can list), the judges (pure functions of what
// was sent and what came back, so they are tested on hand-made answers),
// the run that makes the exchanges, and the baseline file of known
// failures. Malformed-call verdicts are imported from probe/malformed,
// not judged again.
package check

import (
	"slices"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/malformed"
	"github.com/mcpprobe/mcpprobe/probe/mcpspec"
)

// Clause is the text a verdict rests on, the same shape malformed cites.
type Clause = malformed.Clause

// Eras, each judged by its own text.
const (
	Legacy = "legacy" // 2025-11-25 and older: initialize, sessions, ping
	Modern = "modern" // 2026-07-28: server/discover, _meta on every request
)

// Eras in the order columns show them.
var Eras = []string{Legacy, Modern}

// Transports a check can apply to.
const (
	Stdio = "stdio"
	HTTP  = "http" // Streamable HTTP and legacy SSE
)

// Outcomes. Only a MUST the server broke is a fail; a SHOULD, or a
// sentence with a lower-case "must", not followed is a warn; what the text
// leaves open is observed; a check whose precondition (a working
// handshake, a list that answered) failed is inconclusive; a check of a
// capability the server does not declare, of a method the era does not
// have, or needing something the server lacks is not-applicable.
const (
	Pass          = "pass"
	Fail          = "fail"
	Warn          = "warn"
	Observed      = "observed"
	Inconclusive  = "inconclusive"
	NotApplicable = "not-applicable"
)

// Outcomes in the order summaries count them.
var Outcomes = []string{Pass, Fail, Warn, Observed, Inconclusive, NotApplicable}

// Check is one entry of the registry.
type Check struct {
	ID         string
	Title      string
	Eras       []string
	Transports []string
	// Clauses by era: the sentence a pass or fail rests on.
	Clauses map[string]*Clause
	// NotIn says, for an era the check does not judge, why: the method
	// is gone from that era, or another check judges it there.
	NotIn map[string]string
}

// Judges reports whether the check judges era e.
func (c Check) Judges(e string) bool { return slices.Contains(c.Eras, e) }

const (
	v1 = "2025-11-25"
	v2 = "2026-07-28"
)

// Each era's spec pages, mcpspec.URL's prefix as constants: a clause
// whose fields are all constant is laid out by the compiler, so the
// package's init builds none of them.
const (
	spec1 = mcpspec.Base + v1 + "/"
	spec2 = mcpspec.Base + v2 + "/"
)

// The clauses, each read in the spec repository
// (docs/specification/<version>/…, schema/<version>/schema.ts).
var (
	initResult = &Clause{Version: v1, URL: spec1 + "basic/lifecycle#initialization", Keyword: "MUST", Binds: "server",
		Text: "The server MUST respond with its own capabilities and information"}
	versionNegotiation = &Clause{Version: v1, URL: spec1 + "basic/lifecycle#version-negotiation", Keyword: "MUST", Binds: "server",
		Text: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports."}
	discoverImplemented = &Clause{Version: v2, URL: spec2 + "server/discover", Keyword: "MUST", Binds: "server",
		Text: "`server/discover` lets a client query a server's supported protocol versions, capabilities, and identity before sending any other requests. Servers MUST implement it."}
	discoverServerInfo = &Clause{Version: v2, URL: spec2 + "server/discover#discoverresult", Keyword: "SHOULD", Binds: "server",
		Text: "`_meta['io.modelcontextprotocol/serverInfo']`: Name and version of the server software. Servers SHOULD include this field."}
	resultType = &Clause{Version: v2, URL: spec2 + "basic/index#result-responses", Keyword: "MUST", Binds: "server",
		Text: "The `result` MUST include a `resultType` field to indicate the type of the result."}
	ping = &Clause{Version: v1, URL: spec1 + "basic/utilities/ping#behavior-requirements", Keyword: "MUST", Binds: "server",
		Text: "The receiver MUST respond promptly with an empty response"}
	// No sentence with a keyword says a server that declares a capability
	// must serve its methods: the architecture page says so in lower case,
	// so a declared capability not served is a warn.
	capsLegacy = &Clause{Version: v1, URL: spec1 + "architecture#capability-negotiation", Keyword: "", Binds: "server",
		Text: "Capabilities determine which protocol features and primitives are available during a session. […] Both parties must respect declared capabilities throughout the session"}
	capsModern = &Clause{Version: v2, URL: spec2 + "architecture#capability-negotiation", Keyword: "", Binds: "server",
		Text: "Servers advertise their capabilities in response to server/discover […] Both parties must respect declared capabilities throughout the interaction"}
	inputSchemaLegacy = &Clause{Version: v1, URL: spec1 + "server/tools#tool", Keyword: "MUST", Binds: "server",
		Text: "`inputSchema`: JSON Schema defining expected parameters […] MUST be a valid JSON Schema object (not `null`); schema.ts: `inputSchema: { $schema?: string; type: \"object\"; … }`"}
	inputSchemaModern = &Clause{Version: v2, URL: spec2 + "server/tools#tool", Keyword: "MUST", Binds: "server",
		Text: "`inputSchema`: JSON Schema defining expected parameters […] MUST be a valid JSON Schema object (not `null`); schema.ts: `inputSchema: { $schema?: string; type: \"object\"; … }`"}
	completionLegacy = &Clause{Version: v1, URL: spec1 + "server/utilities/completion#error-handling", Keyword: "SHOULD", Binds: "server",
		Text: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Method not found: `-32601` (Capability not supported)"}
	completionModern = &Clause{Version: v2, URL: spec2 + "server/utilities/completion#error-handling", Keyword: "SHOULD", Binds: "server",
		Text: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Method not found: `-32601` (Capability not supported)"}
	subscribeClause = &Clause{Version: v1, URL: spec1 + "server/resources#subscriptions", Keyword: "", Binds: "server",
		Text: "`subscribe`: whether the client can subscribe to be notified of changes to individual resources. […] Clients can subscribe to specific resources and receive notifications when they change"}
)

// Check ids. They are stable: a baseline file and the side-by-side table
// with the official suite name them.
const (
	IDInitializeResult  = "lifecycle.initialize-result"
	IDVersionNegotiated = "lifecycle.version-negotiation"
	IDDiscover          = "lifecycle.discover-result"
	IDDiscoverInfo      = "lifecycle.discover-server-info"
	IDResultType        = "lifecycle.result-type"
	IDPing              = "ping.empty-result"
	IDToolsList         = "tools.list-served"
	IDInputSchema       = "tools.input-schema-object"
	IDPromptsList       = "prompts.list-served"
	IDResourcesList     = "resources.list-served"
	IDSetLevel          = "logging.set-level-served"
	IDComplete          = "completion.complete-served"
	IDSubscribe         = "resources.subscribe-served"
	IDUnsubscribe       = "resources.unsubscribe-served"
)

var both = []string{Legacy, Modern}

const (
	noInitialize = "2026-07-28 has no initialize: lifecycle.discover-result judges its server/discover"
	noDiscover   = "server/discover is new in 2026-07-28: lifecycle.initialize-result judges the legacy handshake"
	noSubscribe  = "resources/subscribe and unsubscribe are gone in 2026-07-28 (subscriptions/listen replaces them)"
)

var anyTransport = []string{Stdio, HTTP}

// coreChecks are the base protocol's checks, first in the registry.
func coreChecks() []Check {
	return []Check{
		{ID: IDInitializeResult, Title: "initialize answers protocolVersion, capabilities and serverInfo", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: initResult}, NotIn: map[string]string{Modern: noInitialize}},
		{ID: IDVersionNegotiated, Title: "initialize answers the version asked for, or another one the server supports", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: versionNegotiation}, NotIn: map[string]string{Modern: noInitialize}},
		{ID: IDDiscover, Title: "server/discover answers supportedVersions and capabilities", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: discoverImplemented}, NotIn: map[string]string{Legacy: noDiscover}},
		{ID: IDDiscoverInfo, Title: "server/discover names the server in _meta serverInfo", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: discoverServerInfo}, NotIn: map[string]string{Legacy: noDiscover}},
		{ID: IDResultType, Title: "every result carries resultType", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: resultType}, NotIn: map[string]string{Legacy: "resultType is new in 2026-07-28; legacy results have none"}},
		{ID: IDPing, Title: "ping is answered with an empty result", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: ping}, NotIn: map[string]string{Modern: "ping is gone in 2026-07-28"}},
		{ID: IDToolsList, Title: "tools/list is served when tools is declared", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: capsLegacy, Modern: capsModern}},
		{ID: IDInputSchema, Title: "every inputSchema is a JSON Schema object of type \"object\"", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: inputSchemaLegacy, Modern: inputSchemaModern}},
		{ID: IDPromptsList, Title: "prompts/list is served when prompts is declared", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: capsLegacy, Modern: capsModern}},
		{ID: IDResourcesList, Title: "resources/list is served when resources is declared", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: capsLegacy, Modern: capsModern}},
		{ID: IDSetLevel, Title: "logging/setLevel is served when logging is declared", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: capsLegacy}, NotIn: map[string]string{Modern: "logging/setLevel is gone in 2026-07-28: the log level travels per request in _meta"}},
		{ID: IDComplete, Title: "completion/complete is served when completions is declared", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: completionLegacy, Modern: completionModern}},
		{ID: IDSubscribe, Title: "resources/subscribe is served when resources.subscribe is declared", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: subscribeClause}, NotIn: map[string]string{Modern: noSubscribe}},
		{ID: IDUnsubscribe, Title: "resources/unsubscribe is served when resources.subscribe is declared", Eras: []string{Legacy}, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: subscribeClause}, NotIn: map[string]string{Modern: noSubscribe}},
		{ID: IDCallResult, Title: "a read-only tool's result has the shape the schema gives it (content blocks with their required fields)", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: toolResultLegacy, Modern: toolResultModern}},
		{ID: IDStructured, Title: "structuredContent conforms to the tool's outputSchema, and is there when one is declared", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: outputSchemaLegacy, Modern: outputSchemaModern}},
		{ID: IDReadResult, Title: "resources/read of a listed resource answers contents with uri and text or blob", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: readResultLegacy, Modern: readResultModern}},
		{ID: IDPromptResult, Title: "prompts/get of a listed prompt answers messages with a role and a content block", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: promptResultLegacy, Modern: promptResultModern}},
		{ID: IDMcpHeader, Title: "every x-mcp-header is a unique token on a string, integer or boolean property", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: mcpHeader}, NotIn: map[string]string{Legacy: "x-mcp-header is new in 2026-07-28"}},
	}
}

// MalformedChecks are the ids malformed's cases are reported under: the
// case's name without its property, as "malformed.wrong-type". Their
// clauses are malformed's own, per case and version.
var MalformedChecks = []string{
	"malformed.wrong-type", "malformed.missing-required", "malformed.out-of-range",
	"malformed.wrong-case-enum", "malformed.fractional-integer", "malformed.unknown-property",
	"malformed.arguments-null", "malformed.unknown-tool", "malformed.invalid-json", "malformed.missing-method",
	"malformed.unknown-method", "malformed.bad-cursor", "malformed.cancel-an-unknown-id", "malformed.batch",
	"malformed.second-initialize", "malformed.request-before-initialize", "malformed.1-mb-string",
	"malformed.100-deep-nesting",
	// the malformed run could not be made (no session, no tools list)
	"malformed.run",
}

// IDs lists every check id, the protocol's then malformed's: what a
// baseline file may name.
func IDs() []string {
	var out []string
	for _, c := range Registry() {
		out = append(out, c.ID)
	}
	return append(out, MalformedChecks...)
}

// Lookup finds a check of the registry by id.
func Lookup(id string) (Check, bool) {
	for _, c := range Registry() {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// Registry lists every check of the protocol, in the order verdicts are
// shown: this file's, then each file's own in the order the files are
// named (the order their init functions once appended them, kept so ids
// and columns do not move; a new file's checks are added here). The
// malformed checks follow (MalformedChecks). It is built on first use:
// its maps cost the init of every command, most of which never list a
// check.
var Registry = sync.OnceValue(func() []Check {
	return slices.Concat(coreChecks(),
		HTTPChecks(),           // http.go
		modernRegistry(),       // modern.go
		declaredInputsChecks(), // mrtrinputs.go
		readUnknownChecks(),    // readunknown.go
		CardChecks(),           // cards.go and events.go, appended once by registry.go's init
		EventsChecks(),
		requiredPlacesChecks(), // requiredplaces.go
		SecureChecks(),         // secureparams.go
		serverRequestChecks(),  // serverrequests.go
		skillsRegistry(),       // skills.go
	)
})
