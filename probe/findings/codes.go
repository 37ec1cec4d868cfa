package findings

import (
	"fmt"
	"sync"
)

// This file is the registry: every finding code mcpprobe emits is defined
// here once, as a constant and a row of defs. The README's tables of codes
// are generated from defs (go test ./probe/findings -update), and the
// plain test fails when they are stale.

// Code is a kind of finding. It is a number, not a string, so that no
// string literal can pass for one: a call site names a constant of this
// file or does not compile. Its name (String, MarshalText) is what the
// output prints and what anchors the README row that explains it.
type Code int

// Origin is the analysis that emits a code. The README keeps one table per
// section, and the lint gates count only lint findings.
type Origin string

const (
	OriginWire      Origin = "wire"      // the probe: transport, handshake, lists, shutdown
	OriginBudget    Origin = "budget"    // host budgets: cuts, schema drops, instructions
	OriginLint      Origin = "lint"      // lint of what is delivered
	OriginFaults    Origin = "faults"    // faults: shutdown signals, restarts
	OriginBench     Origin = "bench"     // bench: startup and call latency as a host feels it
	OriginMalformed Origin = "malformed" // malformed: how calls a server should refuse are answered
	OriginCall      Origin = "call"      // call, read, prompt: a result, what hosts deliver of it, long calls
	OriginCheck     Origin = "check"     // check: the conformance verdict, per check and era
	OriginAuth      Origin = "auth"      // auth: the authorization audit of a remote server
	OriginLoad      Origin = "load"      // load: many sessions at a rate, replicas
)

// Origins lists every origin, in the order of the README's sections.
var Origins = []Origin{OriginWire, OriginBudget, OriginLint, OriginBench, OriginFaults, OriginMalformed, OriginCall, OriginCheck, OriginAuth, OriginLoad}

// Def is what the registry knows of a code.
type Def struct {
	Code     Code
	Name     string // as printed: "stdout-noise"
	Severity Severity
	// Also lists other severities a call site may give the code with
	// NewAt; the title says when.
	Also   []Severity
	Origin Origin
	// Title says in one line what the finding means. It is markdown (code
	// in backticks) and becomes a README table cell, so it has no "|".
	Title string
	// More is the README anchor (without "#") of a section that explains
	// the finding beyond its row, or "".
	More string
}

// Anchor is the README anchor (without "#") of the code's row.
func (d Def) Anchor() string { return "finding-" + d.Name }

// The codes. Their names are in defs; the order here is free.
const (
	_ Code = iota // the zero Code is none, so that a Finding{} is not a finding

	// wire
	StdoutNoise
	PartialWrite
	InvalidUTF8
	LineTooLong
	CursorLoop
	TooManyPages
	DuplicateTool
	DuplicatePrompt
	DuplicateResource
	DuplicateResourceTemplate
	MalformedList
	DeepNesting
	ListTimeout
	ListFailed
	ListHTTPError
	NoCapabilities
	NoProtocolVersion
	InitializedNotSent
	InvalidMessage
	NeedsSigkill
	EscapedProcesses
	MaxBytes

	UnknownID
	ToolsUnstable
	MethodNotFound
	ListError
	SessionExpired
	InitializeRejected
	UnknownProtocolVersion
	VersionNotPinned
	NoServerInfo
	NoResultType
	LegacyShapedResult
	InputRequiredRounds
	InstructionsNotString
	Batch
	NoFinalNewline
	StderrFlood
	ExitedEarly
	IgnoresStdinClose
	LeftoverProcesses
	CaptureCapped

	DiscoverSilent
	Notification
	ServerRequest
	LateReply
	TraceCapped
	HTTP
	HTTPNotificationAnswer
	NonstandardErrorCode

	// budget
	Cut
	BlockPastCut
	InstructionsCut
	SchemaDrop
	InstructionsNotDelivered
	InstructionsPrepended
	OutputSchemaUndelivered
	ToolNameCollision
	ToolNameOverLimit
	ToolSearchDeferral
	ConfigServerFailed
	ToolShadowing

	// lint
	HiddenChars
	Injection
	BadName
	DuplicateName
	ParamNoDescription
	SDKBounds
	CredentialParam
	EmptyDescription
	ModelInstruction
	TitleMismatch

	// faults
	IgnoresSigterm
	RestartFailed

	// bench
	ColdStart
	CallTimeout
	CallErrors
	StartupOverDeadline

	// malformed
	MalformedCrash
	MalformedUnanswered
	MalformedChannel
	MalformedInconclusive

	// check (the conformance verdict, probe/check)
	CheckFail
	CheckWarn
	CheckKnownFail

	// call (result analysis and long calls, probe/result)
	ResultMalformed
	InvalidBase64
	MIMEMismatch
	StructuredInvalid
	StructuredMissing
	StructuredNotInText
	StructuredUnchecked
	ResultCut
	ProgressNotMonotonic
	ProgressInvalid
	ProgressAfterResponse
	ProgressUnknownToken
	ProgressGap
	WouldTimeOut

	// call (the call engine, probe/call)
	CallUnanswered
	CallRPCError
	CancelResultAfter
	CancelProgressGoesOn
	CancelSessionUnusable
	TaskRequiredWithoutTask
	TaskNotSupported
	TaskNotTerminal
	TaskForbiddenTransition
	TaskMalformed
	// wire's second tools/list: the bytes a prompt cache keys on (issue 28)
	ToolsNotByteIdentical

	// auth (the authorization audit, probe/authz)
	AuthFail
	AuthWarn
	AuthHostFails

	// load
	ReplicaDependent
	LoadErrors

	// budget: what a cut hides (issue 28)
	LostAfterCut

	// budget: a host's tool-count ceiling (issue 37)
	ToolCountOverLimit

	// secure parameters (SEP-3221, issue 39): lint of the definition, and
	// what a host delivers of it
	SecureSchemaShape
	SecureOverlap
	SecureRequired
	SecureSchemaDelivery
	// wire: -32022 after the handshake (issue 38)
	VersionRetried
	// read --skill: a skill file that fails verification against its
	// listing (SEP-2640)
	SkillRefused
)

// README sections that say more than a row can.
const (
	moreProbe     = "how-the-probe-talks-to-a-server"
	moreHTTP      = "over-http"
	moreSnapshot  = "snapshot"
	moreReports   = "what-it-reports"
	moreTrace     = "--trace-file"
	moreBench     = "what-it-measures"
	moreLoad      = "mcpprobe-load"
	moreMalformed = "malformed"
	// the malformed section's verdicts and the error-code rules
	moreVerdicts   = "verdicts"
	moreErrorCodes = "error-codes"
	moreFaults     = "faults"
	moreResults    = "results-and-long-calls-host-rules"
	moreCall       = "mcpprobe-call-read-and-prompt"
	// budget --config FILE --all
	moreWholeConfig = "a-whole-host-config"
	// the hidden-content lint (probe/hidden)
	moreHidden = "hidden-content"
	// budget: what a cut hides
	moreLostAfterCut = "what-a-cut-hides"
)

// defs is the registry, in the order of the README's tables.
var defs = []Def{
	{Code: StdoutNoise, Name: "stdout-noise", Severity: Error, Origin: OriginWire, Title: "a stdout line that is not a JSON-RPC message: a banner, a `console.log`, a structured log line without `jsonrpc`"},
	{Code: PartialWrite, Name: "partial-write", Severity: Error, Origin: OriginWire, Title: "stdout text without a newline glued to the next message. mcpprobe cuts the message out (and says so); most clients lose it"},
	{Code: InvalidUTF8, Name: "invalid-utf8", Severity: Error, Origin: OriginWire, Title: "a stdout line that is not valid UTF-8"},
	{Code: LineTooLong, Name: "line-too-long", Severity: Error, Origin: OriginWire, Title: "a line over `--max-line`; the requests waiting fail at once with a clear message", More: moreProbe},
	{Code: CursorLoop, Name: "cursor-loop", Severity: Error, Origin: OriginWire, Title: "pagination that never ends: a `nextCursor` that an earlier page had already returned", More: moreProbe},
	{Code: TooManyPages, Name: "too-many-pages", Severity: Error, Origin: OriginWire, Title: "pagination that does not end: still a `nextCursor` after `--max-pages` pages", More: moreProbe},
	{Code: DuplicateTool, Name: "duplicate-tool", Severity: Error, Origin: OriginWire, Title: "the same tool name listed twice"},
	{Code: DuplicatePrompt, Name: "duplicate-prompt", Severity: Error, Origin: OriginWire, Title: "the same prompt name listed twice"},
	{Code: DuplicateResource, Name: "duplicate-resource", Severity: Error, Origin: OriginWire, Title: "the same resource URI listed twice"},
	{Code: DuplicateResourceTemplate, Name: "duplicate-resource-template", Severity: Error, Origin: OriginWire, Title: "the same resource template URI listed twice"},
	{Code: MalformedList, Name: "malformed-list", Severity: Error, Origin: OriginWire, Title: "a list result without its array (`tools`, `prompts`, …)"},
	{Code: DeepNesting, Name: "deep-nesting", Severity: Error, Origin: OriginWire, Title: "a definition nested past 1,000 levels (or too costly to walk level by level): hosts' parsers refuse it or run out of stack; mcpprobe's budget and lint leave its schema out", More: moreProbe},
	{Code: ListTimeout, Name: "list-timeout", Severity: Error, Origin: OriginWire, Title: "a list page never came back within `--timeout`"},
	{Code: ListFailed, Name: "list-failed", Severity: Error, Origin: OriginWire, Title: "a list page failed otherwise, such as the stream ending first"},
	{Code: ListHTTPError, Name: "list-http-error", Severity: Error, Origin: OriginWire, Title: "HTTP: a list page answered with an HTTP error", More: moreHTTP},
	{Code: NoCapabilities, Name: "no-capabilities", Severity: Error, Origin: OriginWire, Title: "an `initialize` or `server/discover` result without `capabilities`"},
	{Code: NoProtocolVersion, Name: "no-protocol-version", Severity: Error, Origin: OriginWire, Title: "an `initialize` result without `protocolVersion`"},
	{Code: InitializedNotSent, Name: "initialized-not-sent", Severity: Error, Origin: OriginWire, Title: "`notifications/initialized` could not be delivered"},
	{Code: InvalidMessage, Name: "invalid-message", Severity: Error, Origin: OriginWire, Title: "a message that is not valid JSON-RPC"},
	{Code: NeedsSigkill, Name: "needs-sigkill", Severity: Error, Origin: OriginWire, Title: "the server ignored stdin closing and SIGTERM", More: moreProbe},
	{Code: EscapedProcesses, Name: "escaped-processes", Severity: Error, Origin: OriginWire, Title: "processes the server started left its process group (`setsid`) and outlived it, where no host's shutdown reaches them; mcpprobe found them as its own descendants and killed them", More: moreProbe},
	{Code: MaxBytes, Name: "max-bytes", Severity: Error, Origin: OriginWire, Title: "the server sent more than `--max-bytes` in one connection; mcpprobe stopped it there and reports what came before", More: moreProbe},

	{Code: UnknownID, Name: "unknown-id", Severity: Warning, Origin: OriginWire, Title: "a response to a request nobody sent"},
	{Code: ToolsUnstable, Name: "tools-unstable", Severity: Warning, Origin: OriginWire, Title: "a second `tools/list` in the same session answered differently", More: moreSnapshot},
	{Code: MethodNotFound, Name: "method-not-found", Severity: Warning, Origin: OriginWire, Title: "an advertised list answered `-32601` (method not found)"},
	{Code: ListError, Name: "list-error", Severity: Warning, Origin: OriginWire, Title: "an advertised list answered with another JSON-RPC error"},
	{Code: SessionExpired, Name: "session-expired", Severity: Warning, Origin: OriginWire, Title: "HTTP: a `404` on a live session; mcpprobe started a new one", More: moreHTTP},
	{Code: InitializeRejected, Name: "initialize-rejected", Severity: Warning, Origin: OriginWire, Title: "`initialize` was refused for a version, and an older one was tried", More: moreProbe},
	{Code: UnknownProtocolVersion, Name: "unknown-protocol-version", Severity: Warning, Origin: OriginWire, Title: "the server answered a protocol version mcpprobe does not know"},
	{Code: VersionNotPinned, Name: "version-not-pinned", Severity: Warning, Origin: OriginWire, Title: "the server answered another version than the one `--protocol` pinned"},
	{Code: NoServerInfo, Name: "no-server-info", Severity: Warning, Origin: OriginWire, Title: "an `initialize` result without `serverInfo`"},
	{Code: NoResultType, Name: "no-result-type", Severity: Warning, Origin: OriginWire, Title: "a `server/discover` result without `resultType`"},
	{Code: LegacyShapedResult, Name: "legacy-shaped-result", Severity: Warning, Origin: OriginWire, Title: "a result of a 2026-07-28 connection in the 2025 shape: no `resultType`, or a list or read result without `ttlMs` and `cacheScope`", More: moreProbe},
	{Code: InputRequiredRounds, Name: "input-required-rounds", Severity: Warning, Origin: OriginWire, Title: "a request still answered `input_required` after 8 rounds answered (2026-07-28 multi round-trip requests); mcpprobe stopped there", More: moreProbe},
	{Code: InstructionsNotString, Name: "instructions-not-string", Severity: Warning, Origin: OriginWire, Title: "`instructions` that is not a string"},
	{Code: Batch, Name: "batch", Severity: Warning, Origin: OriginWire, Title: "a JSON-RPC batch (removed in 2025-06-18)"},
	{Code: NoFinalNewline, Name: "no-final-newline", Severity: Warning, Origin: OriginWire, Title: "stdout ended without a newline"},
	{Code: StderrFlood, Name: "stderr-flood", Severity: Warning, Origin: OriginWire, Title: "more than 1,000 lines or 1 MiB on stderr"},
	{Code: ExitedEarly, Name: "exited-early", Severity: Warning, Origin: OriginWire, Title: "the server exited on its own during the probe"},
	{Code: IgnoresStdinClose, Name: "ignores-stdin-close", Severity: Warning, Origin: OriginWire, Title: "the server needed SIGTERM to exit", More: moreProbe},
	{Code: LeftoverProcesses, Name: "leftover-processes", Severity: Warning, Origin: OriginWire, Title: "the server exited but left processes of its group running", More: moreProbe},
	{Code: CaptureCapped, Name: "capture-capped", Severity: Warning, Origin: OriginWire, Title: "the server sent more than the 32 MiB a session keeps in memory (pages, events, notifications, noise, stderr): later frames were counted and traced, not kept, and a list stopped there", More: moreProbe},

	{Code: DiscoverSilent, Name: "discover-silent", Severity: Info, Origin: OriginWire, Title: "`server/discover` got no answer within `--discover-timeout` after the server was up, so a dual-era client waits out its own discover timeout on every start", More: moreProbe},
	{Code: Notification, Name: "notification", Severity: Info, Origin: OriginWire, Title: "a notification the server sent during the probe"},
	{Code: ServerRequest, Name: "server-request", Severity: Info, Origin: OriginWire, Title: "a request the server sent during the probe, and what mcpprobe answered", More: moreProbe},
	{Code: LateReply, Name: "late-reply", Severity: Info, Origin: OriginWire, Title: "a response that came after mcpprobe stopped waiting for it"},
	{Code: TraceCapped, Name: "trace-capped", Severity: Info, Origin: OriginWire, Title: "noise or stderr lines past the 4 MiB the trace keeps, counted but not stored", More: moreTrace},
	{Code: HTTP, Name: "http", Severity: Info, Origin: OriginWire, Title: "HTTP: an odd answer beside the messages, such as to the GET stream", More: moreHTTP},
	{Code: HTTPNotificationAnswer, Name: "http-notification-answer", Severity: Error, Origin: OriginWire, Title: "HTTP: a notification POSTed over Streamable HTTP answered with a 2xx other than `202 Accepted` with no body (a `200` with a body, a `204`): if the server accepts a notification it MUST return 202 Accepted with no body (basic/transports, \"Sending Messages to the Server\", 2025-03-26 to 2025-11-25; basic/transports/streamable-http, \"Sending Messages\", 2026-07-28); refusing it with an HTTP error status is the transport's other answer", More: moreHTTP},
	{Code: NonstandardErrorCode, Name: "nonstandard-error-code", Severity: Info, Also: []Severity{Warning, Error}, Origin: OriginWire, Title: "an error reply whose code no client can classify. Info for code 0 or any code outside -32768…-32000 (allowed: JSON-RPC leaves them to the application); warning for an undefined code inside -32768…-32100 (\"reserved for future use\"); error for a code that is not an integer (MUST), and in a 2026-07-28 session for -32002, -32042 or an undefined -32020…-32099 (MUST NOT)", More: moreErrorCodes},

	{Code: Cut, Name: "cut", Severity: Warning, Origin: OriginBudget, Title: "a description loses text on a host; says how much, and where the cut falls", More: moreReports},
	{Code: BlockPastCut, Name: "block-past-cut", Severity: Warning, Origin: OriginBudget, Title: "a description block (RETURNS, WHEN TO USE, WHEN NOT TO USE, QUERY STRATEGY, INTERPRETATION, RELATED TOOLS, FEEDBACK, ALERTS) starts only after the cut. A block is an upper-case heading at the start of a line, followed by `:`"},
	{Code: InstructionsCut, Name: "instructions-cut", Severity: Warning, Origin: OriginBudget, Title: "the server instructions lose text on a host", More: moreReports},
	{Code: SchemaDrop, Name: "schema-drop", Severity: Warning, Origin: OriginBudget, Title: "Codex drops every property description of this tool", More: moreReports},
	{Code: InstructionsNotDelivered, Name: "instructions-not-delivered", Severity: Info, Origin: OriginBudget, Title: "a host delivers no server instructions to the model"},
	{Code: InstructionsPrepended, Name: "instructions-prepended", Severity: Info, Origin: OriginBudget, Title: "a host prepends the server instructions to every tool description, so the model reads them once per tool"},
	{Code: OutputSchemaUndelivered, Name: "output-schema-undelivered", Severity: Info, Origin: OriginBudget, Title: "output-schema descriptions that no host of the set delivers"},
	{Code: ToolNameCollision, Name: "tool-name-collision", Severity: Warning, Origin: OriginBudget, Title: "`--config FILE --all`: two servers of the file list the same tool name, or a host's full names (after its prefix and character replacement) of two tools are the same", More: moreWholeConfig},
	{Code: ToolNameOverLimit, Name: "tool-name-over-limit", Severity: Warning, Also: []Severity{Error}, Origin: OriginBudget, Title: "`--config FILE --all`: a tool's full name on a host (its prefix applied) is over the host's length limit or has characters it refuses; an error where the host leaves the tool out or the request fails, a warning where it shortens the name", More: moreWholeConfig},
	{Code: ToolSearchDeferral, Name: "tool-search-deferral", Severity: Info, Origin: OriginBudget, Title: "`--config FILE --all`: at the file's total size of tool definitions, the host defers the tools behind a tool search (the model sees them only after a search)", More: moreWholeConfig},
	{Code: ConfigServerFailed, Name: "config-server-failed", Severity: Error, Origin: OriginBudget, Title: "`--config FILE --all`: a server of the file could not be probed (or read as written); its row says what happened, what was received and what to try", More: moreWholeConfig},
	{Code: ToolShadowing, Name: "tool-shadowing", Severity: Warning, Origin: OriginBudget, Title: "`--config FILE --all`: tools of two servers whose names a model can mistake for each other (confusable characters such as `read_fi1e` and `read_file`, or one edit apart on short names), or whose descriptions claim the same job (most of their content words shared); names both servers", More: moreWholeConfig},

	{Code: HiddenChars, Name: "hidden-chars", Severity: Error, Origin: OriginLint, Title: "control, bidirectional, zero-width or tag characters, or ANSI sequences, in a name, title, description, property description, prompt or the instructions"},
	{Code: Injection, Name: "injection", Severity: Error, Origin: OriginLint, Title: "text addressing the model to override other tools or hide itself (`<IMPORTANT>`, \"ignore previous instructions\", \"do not tell the user\", …)"},
	{Code: BadName, Name: "bad-name", Severity: Error, Origin: OriginLint, Title: "a tool name outside `[A-Za-z0-9_.-]{1,128}`, or no name at all"},
	{Code: DuplicateName, Name: "duplicate-name", Severity: Error, Origin: OriginLint, Title: "a tool name listed twice"},
	{Code: ParamNoDescription, Name: "param-no-description", Severity: Warning, Origin: OriginLint, Title: "input-schema properties with no description (paths listed)"},
	{Code: SDKBounds, Name: "sdk-bounds", Severity: Warning, Origin: OriginLint, Title: "an integer bounded only by ±9007199254740991 (zod's default), with the documented range if the description gives one"},
	{Code: CredentialParam, Name: "credential-param", Severity: Warning, Origin: OriginLint, Title: "a parameter named like a credential (api key, token, password, secret…)"},
	{Code: EmptyDescription, Name: "empty-description", Severity: Warning, Also: []Severity{Info}, Origin: OriginLint, Title: "a missing or empty description: a warning on a tool, info on a prompt"},
	{Code: ModelInstruction, Name: "model-instruction", Severity: Error, Origin: OriginLint, Title: "an instruction addressed to the model in a description, default, enum value, parameter name or base64 run: to read or pass a secret or a private file (`~/.ssh`, `mcp.json`, `.env`, tokens, keys) with a cue that it must travel, to send data to a URL, to take other tools' place, or a value or name that is a sentence to the model; the finding names the rule and quotes what it matched", More: moreHidden},
	{Code: TitleMismatch, Name: "title-mismatch", Severity: Warning, Origin: OriginLint, Title: "a tool title (what a host shows the user) that shares no content word with its description and name (what the model reads)", More: moreHidden},

	{Code: IgnoresSigterm, Name: "ignores-sigterm", Severity: Warning, Origin: OriginFaults, Title: "sent SIGTERM with its stdin still open, the server outlived `--grace`: only SIGKILL ends it", More: moreFaults},
	{Code: RestartFailed, Name: "restart-failed", Severity: Warning, Origin: OriginFaults, Title: "restarted after its connection dropped (`faults --restart`, `report --faults`), the server did not come back: it would not start again, or not answer its handshake", More: moreFaults},
	{Code: ColdStart, Name: "cold-start", Severity: Warning, Origin: OriginBench, Title: "the first call of a series took over 3× the series' p50 and over 50 ms: a cold start a host will feel (never said of the first exit)", More: moreBench},
	{Code: CallTimeout, Name: "call-timeout", Severity: Warning, Origin: OriginBench, Title: "calls of a series got no answer within `--timeout`; they are counted, and left out of the figures"},
	{Code: CallErrors, Name: "call-errors", Severity: Warning, Origin: OriginBench, Title: "calls of a series failed (a JSON-RPC error, an `isError` result, a start that did not answer): they are timed, so the figures mix in the error path, or time only it when every call failed; the first error is shown", More: moreBench},
	{Code: ReplicaDependent, Name: "replica-dependent", Severity: Warning, Origin: OriginLoad, Title: "`load --replica`: the same request got a different answer (after normalisation: canonical JSON, the result's `_meta` left out) from one replica of a stateless server than from another: a client spread over the replicas sees an answer that depends on where it landed", More: moreLoad},
	{Code: LoadErrors, Name: "load-errors", Severity: Warning, Origin: OriginLoad, Title: "requests of a load step failed, timed out or could not be sent on time: counted in the step's error ratio, which `--max-errors` bounds; the first error is shown", More: moreLoad},
	{Code: StartupOverDeadline, Name: "startup-over-deadline", Severity: Warning, Origin: OriginBench, Title: "the slowest start took longer than a host waits for `initialize`: that host gives up on the server", More: moreBench},

	{Code: MalformedCrash, Name: "malformed-crash", Severity: Error, Also: []Severity{Warning}, Origin: OriginMalformed, Title: "a malformed call ended the server or its session (the health check after it failed): an error where the call was a request the server MUST answer, a warning where the spec leaves the case open or only asks the server to ignore it", More: moreVerdicts},
	{Code: MalformedUnanswered, Name: "malformed-unanswered", Severity: Warning, Also: []Severity{Error}, Origin: OriginMalformed, Title: "a malformed request got no answer within `--timeout`, where the spec asks for one: a client waits out its own timeout (a warning, since no version sets a deadline; an error for a batch in 2025-03-26, which servers MUST accept)", More: moreVerdicts},
	{Code: MalformedChannel, Name: "malformed-channel", Severity: Warning, Also: []Severity{Error, Info}, Origin: OriginMalformed, Title: "a malformed call answered otherwise than the negotiated version asks: an error where the clause says MUST, a warning for SHOULD or a clause without a keyword, info where the spec gives only an example (the finding names the clause)", More: moreVerdicts},
	{Code: MalformedInconclusive, Name: "malformed-inconclusive", Severity: Info, Origin: OriginMalformed, Title: "a tool's valid baseline call failed (`isError`, a JSON-RPC error, no answer), so the cases sent to it were not judged; the finding carries the baseline's answer", More: moreVerdicts},

	{Code: CheckFail, Name: "check-fail", Severity: Error, Origin: OriginCheck, Title: "a conformance check failed: the server broke a MUST of the era's text (the finding names the check id, the era and the clause); the baseline file does not list it", More: "mcpprobe-check"},
	{Code: CheckWarn, Name: "check-warn", Severity: Warning, Origin: OriginCheck, Title: "a conformance check warned: a SHOULD, or a sentence without a keyword, not followed (a declared capability not served is one: no sentence with MUST asks it)", More: "mcpprobe-check"},
	{Code: CheckKnownFail, Name: "check-known-fail", Severity: Info, Origin: OriginCheck, Title: "a conformance check failed that the `--baseline` file lists as known, with its reason", More: "mcpprobe-check"},

	{Code: ResultMalformed, Name: "result-malformed", Severity: Error, Origin: OriginCall, Title: "a result without the shape the schema of the negotiated version gives it: `content`, `contents` or `messages` not an array, a block without `type`, a text block without `text`, a `structuredContent` that is not an object before 2026-07-28"},
	{Code: InvalidBase64, Name: "invalid-base64", Severity: Error, Origin: OriginCall, Title: "an image, audio or blob whose `data`/`blob` is not base64 (standard alphabet, padded), as the schema's `format: byte` asks: a client cannot decode it"},
	{Code: MIMEMismatch, Name: "mime-mismatch", Severity: Warning, Origin: OriginCall, Title: "decoded base64 whose bytes look like another type than the declared `mimeType` (sniffed as Go's net/http does), or an image or audio block with no `mimeType`, which the schema requires"},
	{Code: StructuredInvalid, Name: "structured-invalid", Severity: Error, Origin: OriginCall, Title: "`structuredContent` that does not conform to the tool's `outputSchema`, each violation with its JSON pointer (2025-06-18 and later, server/tools \"Output Schema\": servers MUST provide structured results that conform)", More: moreResults},
	{Code: StructuredMissing, Name: "structured-missing", Severity: Error, Origin: OriginCall, Title: "a tool with an `outputSchema` answered a successful call without `structuredContent` (the same MUST); an `isError` result is exempt", More: moreResults},
	{Code: StructuredNotInText, Name: "structured-not-in-text", Severity: Warning, Origin: OriginCall, Title: "`structuredContent` with no text block holding the same JSON (2025-06-18 and later, server/tools \"Structured Content\": SHOULD, for backwards compatibility): a host that reads only `content` never sees it", More: moreResults},
	{Code: StructuredUnchecked, Name: "structured-unchecked", Severity: Info, Origin: OriginCall, Title: "`structuredContent` was not checked against `outputSchema`: the schema does not compile, refers outside itself, or is past mcpprobe's bounds (size, depth)", More: moreResults},
	{Code: ResultCut, Name: "result-cut", Severity: Warning, Origin: OriginCall, Title: "a host cuts a result, persists it to a file behind a reference, or replaces it with a notice: says how much the model loses, in the host's unit", More: moreResults},
	{Code: ProgressNotMonotonic, Name: "progress-not-monotonic", Severity: Error, Origin: OriginCall, Title: "a `notifications/progress` whose `progress` did not increase (basic/utilities/progress: the value MUST increase with each notification)", More: moreResults},
	{Code: ProgressInvalid, Name: "progress-invalid", Severity: Error, Origin: OriginCall, Title: "a `notifications/progress` whose `progress` (or `total`) is not a number, as the schema's ProgressNotification has it: it cannot be compared, and is left out of the monotonic check", More: moreResults},
	{Code: ProgressAfterResponse, Name: "progress-after-response", Severity: Error, Origin: OriginCall, Title: "a `notifications/progress` for the call after its response (basic/utilities/progress: progress notifications MUST stop after completion)", More: moreResults},
	{Code: ProgressUnknownToken, Name: "progress-unknown-token", Severity: Error, Origin: OriginCall, Title: "a `notifications/progress` without the request's `progressToken`, or with a token no active request carries (basic/utilities/progress: MUST only reference tokens provided in an active request)", More: moreResults},
	{Code: ProgressGap, Name: "progress-gap", Severity: Info, Origin: OriginCall, Title: "a silence between progress notifications (or before the first) longer than the shortest window a known client allows under reset-on-progress: the spec leaves the cadence open, that client gives up", More: moreResults},
	{Code: WouldTimeOut, Name: "would-time-out", Severity: Warning, Origin: OriginCall, Title: "a known client's timeout policy would give up on a call like this one, with this progress cadence: says when and why", More: moreResults},
	{Code: CallUnanswered, Name: "call-unanswered", Severity: Warning, Origin: OriginCall, Title: "the call got no answer within `--timeout` (with `--task`: the task was not followed to its end); the timeline shows what came meanwhile", More: moreCall},
	{Code: CallRPCError, Name: "call-rpc-error", Severity: Info, Origin: OriginCall, Title: "the server answered the call with a JSON-RPC error, which never reaches the model as a result: reported as the call's answer (an unknown resource URI answered `-32002` is the spec's own example)", More: moreCall},
	{Code: CancelResultAfter, Name: "cancel-result-after", Severity: Info, Origin: OriginCall, Title: "the server still answered the call after `notifications/cancelled`: receivers SHOULD NOT send a response for a cancelled request (2025-06-18 basic/utilities/cancellation); the client ignores it, which the spec allows for race conditions", More: moreCall},
	{Code: CancelProgressGoesOn, Name: "cancel-progress-goes-on", Severity: Warning, Origin: OriginCall, Title: "progress for the call kept coming for the whole bounded wait after `notifications/cancelled`: receivers SHOULD stop processing a cancelled request", More: moreCall},
	{Code: CancelSessionUnusable, Name: "cancel-session-unusable", Severity: Error, Origin: OriginCall, Title: "after the cancellation the health call (ping, or `tools/list` in the modern era) failed: the session did not survive a cancelled request", More: moreCall},
	{Code: TaskRequiredWithoutTask, Name: "task-required-without-task", Severity: Info, Also: []Severity{Warning}, Origin: OriginCall, Title: "a tool with `execution.taskSupport: \"required\"` called without `--task`: servers MUST answer `-32601` (2025-11-25 basic/utilities/tasks); info with the answer when it did, a warning when it answered otherwise", More: moreCall},
	{Code: TaskNotSupported, Name: "task-not-supported", Severity: Info, Origin: OriginCall, Title: "`--task` on a server without `tasks.requests.tools.call` or a tool whose `taskSupport` is absent or `forbidden`: clients MUST NOT augment such a call; mcpprobe sends it anyway and reports the answer", More: moreCall},
	{Code: TaskNotTerminal, Name: "task-not-terminal", Severity: Warning, Origin: OriginCall, Title: "the task did not reach a terminal status (`completed`, `failed`, `cancelled`) within `--timeout`; every poll is in the timeline", More: moreCall},
	{Code: TaskForbiddenTransition, Name: "task-forbidden-transition", Severity: Error, Origin: OriginCall, Title: "a task status change the spec forbids: out of a terminal status, or a task that did not begin `working` (2025-11-25 basic/utilities/tasks, Task Status Lifecycle, MUST)", More: moreCall},
	{Code: TaskMalformed, Name: "task-malformed", Severity: Error, Origin: OriginCall, Title: "a task-augmented call answered without a `CreateTaskResult` (`task.taskId` a string, `task.status`), or a `tasks/get` result without `status`", More: moreCall},
	{Code: ToolsNotByteIdentical, Name: "tools-not-byte-identical", Severity: Warning, Origin: OriginWire, Title: "`tools/list` not byte-identical across calls: the same tools in the same order, other bytes (a host's prompt cache keyed on them misses)", More: moreSnapshot},

	{Code: AuthFail, Name: "auth-fail", Severity: Error, Origin: OriginAuth, Title: "an authorization probe failed: the server or its authorization server broke a MUST of the clause the row cites (the finding names the probe, A1 to A25)", More: "mcpprobe-auth"},
	{Code: AuthWarn, Name: "auth-warn", Severity: Warning, Origin: OriginAuth, Title: "an authorization probe warned: a SHOULD of the clause the row cites not followed, or a MUST only an older revision has", More: "mcpprobe-auth"},
	{Code: AuthHostFails, Name: "auth-host-fails", Severity: Info, Origin: OriginAuth, Title: "a host whose discovery a public report describes will fail on this server, though the spec may allow what the server does (the finding names the host, its versions and the source)", More: "mcpprobe-auth"},
	{Code: LostAfterCut, Name: "lost-after-cut", Severity: Warning, Origin: OriginBudget, Title: "a cut hides what the text or the schema marks as important: a required parameter or an enum value named only after the cut, or a lost sentence stating a default, a warning (\"never\", \"do not\", \"must\", \"destructive\", …) or an example; the finding names each with the words matched", More: moreLostAfterCut},
	{Code: ToolCountOverLimit, Name: "tool-count-over-limit", Severity: Warning, Also: []Severity{Error, Info}, Origin: OriginBudget, Title: "more tools than a host offers the model (per request with its own tools, per server, or across its MCP servers; `--config FILE --all` counts the whole file): an error where the host refuses the request or leaves tools out, a warning where it groups them behind virtual tools, info where it only warns or what it does is not known; the finding names the host's limit and its source", More: moreReports},
	{Code: SecureSchemaShape, Name: "secure-schema-shape", Severity: Error, Origin: OriginLint, Title: "a `secureInputSchema` (Secure Parameters, SEP-3221 §3.2: MUST be a JSON Schema object with top-level `\"type\": \"object\"`) that is not one: not an object, no or another `type`, `properties` not an object, `required` not an array of strings"},
	{Code: SecureOverlap, Name: "secure-overlap", Severity: Error, Origin: OriginLint, Title: "a property name in both `inputSchema` and `secureInputSchema` (SEP-3221 §3.3 MUST NOT); a client that follows §3.4 drops the whole tool"},
	{Code: SecureRequired, Name: "secure-required", Severity: Info, Origin: OriginLint, Title: "a tool with required secure parameters (SEP-3221): a host that does not negotiate `io.modelcontextprotocol/secure-params` is not listed the tool, and one that does must supply them in `secureArguments`"},
	{Code: SecureSchemaDelivery, Name: "secure-schema-delivery", Severity: Info, Also: []Severity{Warning}, Origin: OriginBudget, Title: "a tool with a `secureInputSchema`: hosts SHOULD show only `inputSchema` to the model (SEP-3221 §3.5); the finding says, per host, what its sourced profile says it does with `secureInputSchema`, or that it is unknown; a warning where a host is sourced as showing it"},
	{Code: VersionRetried, Name: "version-retried", Severity: Info, Also: []Severity{Warning}, Origin: OriginWire, Title: "a request after the handshake got -32022 (unsupported protocol version): retried once with a version of its `supported` list (info), or not, when the list names none mcpprobe speaks in the connection's era or the connection had its retry already (a warning); the finding quotes the list and names the clause", More: moreProbe},
	{Code: SkillRefused, Name: "skill-refused", Severity: Error, Origin: OriginCall, Title: "`read --skill`: the file served differs from what skills/list publishes of it (its size, its sha256 digest, or a SKILL.md's frontmatter, field by field): SEP-2640 says a host MUST NOT use it, so the skill is not loaded and no further file of it is read; the finding names the file, what differed and the clause", More: moreCall},
}

// index indexes defs by code and by name, on first use (at init it cost
// every command 40 KB, `mcpprobe --version` included).
var index = sync.OnceValues(func() (map[Code]Def, map[string]Code) {
	c, n := make(map[Code]Def, len(defs)), make(map[string]Code, len(defs))
	for _, d := range defs {
		c[d.Code], n[d.Name] = d, d.Code
	}
	return c, n
})

func byCode() map[Code]Def { c, _ := index(); return c }

func byName() map[string]Code { _, n := index(); return n }

// Lookup returns the registry's definition of a code.
func Lookup(c Code) (Def, bool) {
	d, ok := byCode()[c]
	return d, ok
}

// All returns every definition, in the order of the README's tables.
func All() []Def {
	out := make([]Def, len(defs))
	for i, d := range defs {
		d.Also = append([]Severity(nil), d.Also...)
		out[i] = d
	}
	return out
}

// ParseCode finds a code by its printed name.
func ParseCode(name string) (Code, bool) {
	c, ok := byName()[name]
	return c, ok
}

// String is the code's printed name, or "Code(n)" for an unregistered one.
func (c Code) String() string {
	if d, ok := byCode()[c]; ok {
		return d.Name
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Anchor is the README anchor (without "#") of the code's row.
func (c Code) Anchor() string { return "finding-" + c.String() }

// MarshalText prints the code's name, so JSON shows "stdout-noise".
func (c Code) MarshalText() ([]byte, error) {
	if _, ok := byCode()[c]; !ok {
		return nil, fmt.Errorf("findings: unregistered code %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads a code's name.
func (c *Code) UnmarshalText(b []byte) error {
	v, ok := ParseCode(string(b))
	if !ok {
		return fmt.Errorf("findings: unknown code %q", b)
	}
	*c = v
	return nil
}
