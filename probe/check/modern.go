package check

// The 2026-07-28 era's own checks (caching hints, -32022, input-required
// round trips, the tasks extension, subscriptions/listen, the log level
// per request) and the deterministic tools/list of both eras: their
// clauses, ids and judges. modern_run.go makes their exchanges.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// The clauses, each read in docs/specification/2026-07-28/ (and the
// tasks extension's specification/2026-07-28/tasks.md).
var (
	deterministicModern = &Clause{Version: v2, URL: spec2 + "server/tools#capabilities", Keyword: "SHOULD", Binds: "server",
		Text: "Servers SHOULD return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed)."}
	// 2025-11-25 has no sentence on the order: a legacy verdict is
	// observed, citing the page that is silent.
	deterministicLegacy = &Clause{Version: v1, URL: spec1 + "server/tools#listing-tools", Keyword: "", Binds: "server",
		Text: "(no sentence on the order tools/list returns tools in; 2026-07-28 adds a SHOULD)"}
	cachingHints = &Clause{Version: v2, URL: spec2 + "server/utilities/caching#cacheable-results", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: server/discover, tools/list, prompts/list, resources/list, resources/templates/list, resources/read"}
	cachingTTL = &Clause{Version: v2, URL: spec2 + "server/utilities/caching#time-to-live-ttl-field", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST provide a `ttlMs` value that is `>= 0`."}
	cachingPages = &Clause{Version: v2, URL: spec2 + "server/utilities/caching#interaction-with-pagination", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST apply the same `cacheScope` to all response pages for a given list request."}
	cachingScope = &Clause{Version: v2, URL: spec2 + "server/utilities/caching#cache-scope-field", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST include caching hints […] `cacheScope`, indicates the intended scope of the cached response, either `\"public\"` or `\"private\"`."}
	unsupportedVersion = &Clause{Version: v2, URL: spec2 + "basic/versioning#protocol-version-negotiation", Keyword: "MUST", Binds: "server",
		Text: "If the server does not implement the requested version […], it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support; schema.ts: `data: { supported: string[]; requested: string }`"}
	mrtrShape = &Clause{Version: v2, URL: spec2 + "basic/patterns/mrtr#server-requirements-basic-workflow", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST include at least one of `inputRequests` or `requestState` in every `InputRequiredResult` response. […] `inputRequests` values are request objects that MUST be one of ElicitRequest, CreateMessageRequest, or ListRootsRequest"}
	mrtrRetry = &Clause{Version: v2, URL: spec2 + "basic/patterns/mrtr#error-handling", Keyword: "SHOULD", Binds: "server",
		Text: "If the client fails to send all the information requested in a previous `InputRequests`, and the missing information is necessary for the server to process the request, the server SHOULD respond with a new `InputRequiredResult` requesting the missing information again, rather than returning an error."}
	mrtrState = &Clause{Version: v2, URL: spec2 + "basic/patterns/mrtr#server-requirements-basic-workflow", Keyword: "MUST", Binds: "server",
		Text: "If `requestState` influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification. Integrity protection MAY be omitted only when tampering can cause nothing worse than request failure."}
	tasksShape = &Clause{Version: v2, URL: "https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/2026-07-28/tasks.md#task-polling", Keyword: "MUST", Binds: "server",
		Text: "Servers MUST set `resultType` to `\"task\"` when returning a `CreateTaskResult` […] A server MUST NOT return `CreateTaskResult` to a client that did not include the extension capability on its request […] (tasks/get) The `resultType` field MUST be set to `\"complete\"`; the server MUST return a `Task` object with status […]"}
	listenAck = &Clause{Version: v2, URL: spec2 + "basic/patterns/subscriptions#acknowledgment", Keyword: "MUST", Binds: "server",
		Text: "The server MUST send `notifications/subscriptions/acknowledged` as the first message carrying the subscription's ID in `_meta` under `io.modelcontextprotocol/subscriptionId`, and MUST NOT send any notification on the subscription before it."}
	logLevel = &Clause{Version: v2, URL: spec2 + "server/utilities/logging#per-request-log-level", Keyword: "MUST", Binds: "server",
		Text: "The server MUST NOT emit `notifications/message` for a request that does not include this field. When the field is present, the server MAY send `notifications/message` notifications at or above the requested level"}
)

// The ids of this file's checks.
const (
	IDToolsDeterministic = "tools.list-deterministic"
	IDCacheTTL           = "caching.ttl-ms"
	IDCacheScope         = "caching.cache-scope"
	IDUnsupportedVersion = "versioning.unsupported-version"
	IDRoundTrip          = "mrtr.round-trip"
	IDTamperedState      = "mrtr.tampered-state"
	IDTasksShape         = "tasks.extension-shape"
	IDListen             = "subscriptions.listen"
	IDLogLevel           = "logging.per-request-level"
)

const modernOnly = "new in 2026-07-28"

var modernRegistry = sync.OnceValue(func() []Check {
	return []Check{
		{ID: IDToolsDeterministic, Title: "tools/list is byte-identical across two calls and across two starts", Eras: both, Transports: anyTransport,
			Clauses: map[string]*Clause{Legacy: deterministicLegacy, Modern: deterministicModern}},
		{ID: IDCacheTTL, Title: "list and read results carry ttlMs, an integer >= 0", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: cachingTTL}, NotIn: map[string]string{Legacy: "ttlMs is " + modernOnly}},
		{ID: IDCacheScope, Title: "list and read results carry cacheScope, \"public\" or \"private\"", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: cachingScope}, NotIn: map[string]string{Legacy: "cacheScope is " + modernOnly}},
		{ID: IDUnsupportedVersion, Title: "an unsupported protocol version gets -32022 with the supported list", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: unsupportedVersion}, NotIn: map[string]string{Legacy: "legacy versions are negotiated by initialize (lifecycle.version-negotiation)"}},
		{ID: IDRoundTrip, Title: "an input_required tool result is well formed and a retry with the inputs asked for completes", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: mrtrShape}, NotIn: map[string]string{Legacy: "input_required results are " + modernOnly + " (legacy servers send requests)"}},
		{ID: IDTamperedState, Title: "a retry with a tampered requestState is rejected", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: mrtrState}, NotIn: map[string]string{Legacy: "requestState is " + modernOnly}},
		{ID: IDTasksShape, Title: "the tasks extension: a task only when asked, resultType \"task\", tasks/get a Task with resultType \"complete\"", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: tasksShape}, NotIn: map[string]string{Legacy: "the io.modelcontextprotocol/tasks extension is " + modernOnly + " (legacy tasks are another shape)"}},
		{ID: IDListen, Title: "subscriptions/listen is acknowledged with the subscription's id", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: listenAck}, NotIn: map[string]string{Legacy: "subscriptions/listen is " + modernOnly + " (resources.subscribe-served judges legacy subscriptions)"}},
		{ID: IDLogLevel, Title: "notifications/message only for a request that sets a log level, at or above it", Eras: []string{Modern}, Transports: anyTransport,
			Clauses: map[string]*Clause{Modern: logLevel}, NotIn: map[string]string{Legacy: "legacy logging is set by logging/setLevel (logging.set-level-served)"}},
	}
})

func toolNames(result []byte) []string {
	var out []string
	for _, t := range gjson.GetBytes(result, "tools").Array() {
		out = append(out, t.Get("name").String())
	}
	return out
}

// Listing is one tools/list answer the deterministic check compares.
type Listing struct {
	What string // "call 2 in the same session", "call 1 after a second start"
	X    Exchange
}

// JudgeDeterministic compares the first tools/list page against later
// ones: same bytes pass; the same tools in another order break the
// 2026-07-28 SHOULD (observed in legacy, which says nothing); other byte
// differences (a changed set, changed text, a _meta that varies) are
// observed, with the first differing byte shown.
func JudgeDeterministic(era string, caps []byte, first Exchange, later []Listing) Verdict {
	const id = IDToolsDeterministic
	c := deterministicModern
	if era == Legacy {
		c = deterministicLegacy
	}
	listed := func(x Exchange) bool {
		return x.Err == nil && x.NoReply == "" && gjson.GetBytes(x.Result, "tools").IsArray()
	}
	switch {
	case !declared(caps, "tools"):
		return notApplicable(id, era, "the server does not declare the tools capability")
	case !listed(first):
		return inconclusive(id, era, c, "tools/list did not answer a list, so there is nothing to compare")
	}
	var compared []string
	for _, l := range later {
		if !listed(l.X) {
			return verdict(id, era, c, Inconclusive, l.X, l.What+" did not answer a list: "+l.X.got())
		}
		at, was, now := probe.FirstDifference(first.Result, l.X.Result)
		if at < 0 {
			compared = append(compared, l.What)
			continue
		}
		a, b := toolNames(first.Result), toolNames(l.X.Result)
		got := fmt.Sprintf("result bytes differ from call 1 at byte %d: %s (call 1) vs %s (%s)", at, was, now, l.What)
		v := Verdict{ID: id, Era: era, Clause: c, Sent: "tools/list ×2 in one session, and once after a second start", Got: bound(got)}
		sa, sb := slices.Clone(a), slices.Clone(b)
		slices.Sort(sa)
		slices.Sort(sb)
		switch {
		case slices.Equal(sa, sb) && !slices.Equal(a, b):
			v.Outcome, v.Why = Warn, fmt.Sprintf("the same %d tools in another order (%s): %s vs %s", len(a), l.What, names3(a), names3(b))
			if era == Legacy {
				v.Outcome = Observed
				v.Why += "; 2025-11-25 says nothing of the order, so observed (2026-07-28 asks for a deterministic order)"
			}
		case !slices.Equal(sa, sb):
			v.Outcome, v.Why = Observed, fmt.Sprintf("another set of tools (%s): %d vs %d; the list may have changed", l.What, len(a), len(b))
		default:
			v.Outcome, v.Why = Observed, fmt.Sprintf("the same tools in the same order, other bytes (%s) at byte %d: a prompt cache keyed on the bytes misses", l.What, at)
		}
		return v
	}
	return Verdict{ID: id, Era: era, Clause: c, Outcome: Pass, Sent: "tools/list ×2 in one session, and once after a second start",
		Why: fmt.Sprintf("the first page is byte-identical (%d bytes) in %s", len(first.Result), strings.Join(compared, " and "))}
}

// names3 shows an order by its first three names.
func names3(ns []string) string {
	if len(ns) > 3 {
		return "[" + strings.Join(ns[:3], ", ") + ", …]"
	}
	return "[" + strings.Join(ns, ", ") + "]"
}

// cacheable: the methods whose complete results carry caching hints.
var cacheable = []string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}

// JudgeCaching judges ttlMs and cacheScope on every complete result of a
// cacheable method: absent, or a ttlMs that is not a number >= 0, breaks
// the MUST; a fraction, or a cacheScope outside the schema's two values,
// departs from the schema (no keyword on the values), a warning.
func JudgeCaching(xs []Exchange) []Verdict {
	var judged []Exchange
	for _, x := range xs {
		if x.Result != nil && slices.Contains(cacheable, x.Method) && gjson.GetBytes(x.Result, "resultType").String() == "complete" {
			judged = append(judged, x)
		}
	}
	methods := func() string {
		var ms []string
		for _, x := range judged {
			if !slices.Contains(ms, x.Method) {
				ms = append(ms, x.Method)
			}
		}
		return strings.Join(ms, ", ")
	}
	if len(judged) == 0 {
		why := "no cacheable request (server/discover, the lists, resources/read) got a result with resultType \"complete\""
		return []Verdict{inconclusive(IDCacheTTL, Modern, cachingTTL, why), inconclusive(IDCacheScope, Modern, cachingScope, why)}
	}
	ttl := Verdict{ID: IDCacheTTL, Era: Modern, Clause: cachingTTL, Outcome: Pass, Why: fmt.Sprintf("each of the %d cacheable results (%s) has an integer ttlMs >= 0", len(judged), methods())}
	scope := Verdict{ID: IDCacheScope, Era: Modern, Clause: cachingScope, Outcome: Pass, Why: fmt.Sprintf("each of the %d cacheable results (%s) has cacheScope \"public\" or \"private\"", len(judged), methods())}
	for _, x := range judged {
		t := gjson.GetBytes(x.Result, "ttlMs")
		switch {
		case ttl.Outcome == Fail:
		case !t.Exists():
			ttl = verdict(IDCacheTTL, Modern, cachingHints, Fail, x, "the result of "+x.Method+" has no ttlMs")
		case t.Type != gjson.Number || t.Float() < 0:
			ttl = verdict(IDCacheTTL, Modern, cachingTTL, Fail, x, fmt.Sprintf("the result of %s has ttlMs %s, not a number >= 0", x.Method, t.Raw))
		case ttl.Outcome == Pass && t.Float() != math.Trunc(t.Float()):
			ttl = verdict(IDCacheTTL, Modern, cachingTTL, Warn, x, fmt.Sprintf("the result of %s has ttlMs %s, not an integer number of milliseconds (the text says integer, no keyword)", x.Method, t.Raw))
		}
		s := gjson.GetBytes(x.Result, "cacheScope")
		switch {
		case scope.Outcome == Fail:
		case !s.Exists():
			scope = verdict(IDCacheScope, Modern, cachingHints, Fail, x, "the result of "+x.Method+" has no cacheScope")
		case scope.Outcome == Pass && (s.Type != gjson.String || (s.String() != "public" && s.String() != "private")):
			scope = verdict(IDCacheScope, Modern, cachingScope, Warn, x, fmt.Sprintf("the result of %s has cacheScope %s; the schema allows \"public\" or \"private\" (no keyword on the values)", x.Method, s.Raw))
		}
	}
	if scope.Outcome == Pass {
		first := map[string]gjson.Result{}
		for _, x := range judged {
			if !strings.HasSuffix(x.Method, "/list") {
				continue
			}
			s := gjson.GetBytes(x.Result, "cacheScope")
			if f, ok := first[x.Method]; !ok {
				first[x.Method] = s
			} else if f.String() != s.String() {
				scope = verdict(IDCacheScope, Modern, cachingPages, Fail, x, fmt.Sprintf("the pages of %s carry cacheScope %s and %s: every page of a list MUST carry the same", x.Method, f.Raw, s.Raw))
				break
			}
		}
	}
	return []Verdict{ttl, scope}
}

// bogusVersion is the version the -32022 check asks for: a date no
// revision will have, later than every one, so that a dual-era server
// cannot read the request as a legacy one (a past date, as the text's
// example 1900-01-01, falls to legacy handling in the SDKs read here).
const bogusVersion = "2099-12-31"

// JudgeUnsupportedVersion judges the answer to a request asking for
// bogusVersion: -32022 with data.supported, a non-empty list of strings.
func JudgeUnsupportedVersion(x Exchange) Verdict {
	const id = IDUnsupportedVersion
	c := unsupportedVersion
	switch {
	case x.NoReply != "":
		return noReply(id, Modern, x)
	case x.Err == nil:
		return verdict(id, Modern, c, Fail, x, "asked for protocol version "+bogusVersion+" and got a result: an unsupported version MUST get UnsupportedProtocolVersionError (-32022)")
	case x.Err.Code != -32022:
		return verdict(id, Modern, c, Fail, x, fmt.Sprintf("asked for protocol version %s and got error %d, not UnsupportedProtocolVersionError (-32022)", bogusVersion, x.Err.Code))
	}
	sup := gjson.GetBytes(x.Err.Data, "supported")
	ok := sup.IsArray() && len(sup.Array()) > 0
	for _, v := range sup.Array() {
		ok = ok && v.Type == gjson.String
	}
	if !ok {
		return verdict(id, Modern, c, Fail, x, "-32022 without data.supported, a non-empty list of version strings: the error MUST list the versions the server supports")
	}
	if gjson.GetBytes(x.Err.Data, "requested").String() != bogusVersion {
		return verdict(id, Modern, c, Warn, x, "-32022 lists the supported versions but data.requested is not "+bogusVersion+", which the schema's UnsupportedProtocolVersionError requires (no keyword)")
	}
	return verdict(id, Modern, c, Pass, x, fmt.Sprintf("-32022 listing %d supported version(s)", len(sup.Array())))
}

// inputMethods are the requests an inputRequests value may be.
var inputMethods = []string{"elicitation/create", "sampling/createMessage", "roots/list"}

// JudgeInputRequired judges an input_required result's shape (first) and
// the retry made with the inputs it asked for.
func JudgeInputRequired(tool string, first, retry Exchange) Verdict {
	const id = IDRoundTrip
	res := gjson.ParseBytes(first.Result)
	reqs, state := res.Get("inputRequests"), res.Get("requestState")
	if !reqs.IsObject() && state.Type != gjson.String {
		return verdict(id, Modern, mrtrShape, Fail, first, tool+": an input_required result with neither inputRequests nor requestState")
	}
	var bad []string
	reqs.ForEach(func(k, v gjson.Result) bool {
		if !slices.Contains(inputMethods, v.Get("method").String()) {
			bad = append(bad, fmt.Sprintf("%s (%s)", k.String(), v.Get("method").Raw))
		}
		return true
	})
	if len(bad) > 0 {
		return verdict(id, Modern, mrtrShape, Fail, first, tool+": inputRequests that are not elicitation/create, sampling/createMessage or roots/list: "+strings.Join(bad, ", "))
	}
	rt := gjson.GetBytes(retry.Result, "resultType").String()
	switch {
	case retry.NoReply != "":
		return noReply(id, Modern, retry)
	case retry.Err != nil:
		return verdict(id, Modern, mrtrRetry, Warn, retry, fmt.Sprintf("%s: the retry with the inputs asked for (and the requestState echoed) got error %d; a server missing input SHOULD ask again with input_required rather than an error", tool, retry.Err.Code))
	case rt == "input_required":
		return verdict(id, Modern, mrtrShape, Observed, retry, tool+": the retry with the inputs asked for got input_required again, which a server MAY do")
	}
	return verdict(id, Modern, mrtrShape, Pass, retry, fmt.Sprintf("%s: input_required with %d input request(s), and the retry answering them got resultType %q", tool, len(reqs.Map()), rt))
}

// JudgeTampered judges a retry whose requestState was changed: an error,
// an isError result or another input_required rejects it; a complete
// result accepts it. The MUST binds only when the state matters to
// authorization, resource access or business logic, which a client
// cannot see: an accepted state is a warning.
func JudgeTampered(tool string, hasState bool, x Exchange) Verdict {
	const id = IDTamperedState
	if !hasState {
		return notApplicable(id, Modern, tool+": the input_required result carries no requestState to tamper with")
	}
	rt := gjson.GetBytes(x.Result, "resultType").String()
	switch {
	case x.NoReply != "":
		return noReply(id, Modern, x)
	case x.Err != nil:
		return verdict(id, Modern, mrtrState, Pass, x, fmt.Sprintf("%s: the tampered requestState was rejected with error %d", tool, x.Err.Code))
	case rt == "input_required" || gjson.GetBytes(x.Result, "isError").Bool():
		return verdict(id, Modern, mrtrState, Pass, x, tool+": the tampered requestState did not complete the call")
	}
	return verdict(id, Modern, mrtrState, Warn, x, tool+": a retry with a tampered requestState completed; the state must be verified and rejected when it influences authorization, resource access or business logic, which mcpprobe cannot see, so a warning")
}

var taskStatuses = []string{"working", "input_required", "completed", "cancelled", "failed"}

// taskMissing lists what a Task object lacks.
func taskMissing(r gjson.Result) []string {
	var m []string
	if r.Get("taskId").Type != gjson.String {
		m = append(m, "taskId (a string)")
	}
	if !slices.Contains(taskStatuses, r.Get("status").String()) {
		m = append(m, "status (one of "+strings.Join(taskStatuses, ", ")+")")
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if r.Get(k).Type != gjson.String {
			m = append(m, k+" (a string)")
		}
	}
	if t := r.Get("ttlMs"); t.Type != gjson.Number && t.Type != gjson.Null {
		m = append(m, "ttlMs (a number or null)")
	}
	return m
}

// JudgeTasks judges a task-returning tool call: created (the call made
// with the extension declared), unasked (the same call without it, or
// the zero Exchange when not made) and get (tasks/get of its taskId).
func JudgeTasks(caps []byte, tool string, created, unasked, get Exchange) Verdict {
	const id = IDTasksShape
	const ext = `extensions.io\.modelcontextprotocol/tasks`
	switch {
	case !declared(caps, ext) && tool == "":
		return notApplicable(id, Modern, "the server does not declare the io.modelcontextprotocol/tasks extension")
	case tool == "":
		return notApplicable(id, Modern, "no read-only tool called with the tasks extension declared returned resultType \"task\" (the server decides per request; tools not annotated readOnlyHint are not called)")
	case gjson.GetBytes(unasked.Result, "resultType").String() == "task":
		return verdict(id, Modern, tasksShape, Fail, unasked, tool+": a CreateTaskResult to a request that did not declare the tasks extension")
	}
	if m := taskMissing(gjson.ParseBytes(created.Result)); len(m) > 0 {
		return verdict(id, Modern, tasksShape, Warn, created, tool+": the CreateTaskResult lacks "+strings.Join(m, ", ")+", which the extension's Task requires (no keyword)")
	}
	g := gjson.ParseBytes(get.Result)
	switch {
	case get.NoReply != "":
		return noReply(id, Modern, get)
	case get.Err != nil:
		return verdict(id, Modern, tasksShape, Fail, get, fmt.Sprintf("%s: tasks/get of the task just created answered error %d; a CreateTaskResult MUST NOT come before tasks/get resolves", tool, get.Err.Code))
	case g.Get("resultType").String() != "complete":
		return verdict(id, Modern, tasksShape, Fail, get, fmt.Sprintf("%s: tasks/get answered resultType %s; it MUST be \"complete\"", tool, orAbsent(g.Get("resultType"))))
	}
	if m := taskMissing(g); len(m) > 0 {
		return verdict(id, Modern, tasksShape, Fail, get, tool+": tasks/get MUST return a Task object; it lacks "+strings.Join(m, ", "))
	}
	if g.Get("status").String() == "completed" && !g.Get("result").IsObject() {
		return verdict(id, Modern, tasksShape, Fail, get, tool+": a completed task MUST carry its result")
	}
	return verdict(id, Modern, tasksShape, Pass, get, fmt.Sprintf("%s: resultType \"task\" only when asked, and tasks/get answered a %s Task", tool, g.Get("status").String()))
}

// listenDeclared: the change notifications subscriptions/listen carries.
func listenFilter(caps []byte) string {
	var f []string
	for _, k := range []struct{ cap, field string }{{"tools.listChanged", "toolsListChanged"}, {"prompts.listChanged", "promptsListChanged"}, {"resources.listChanged", "resourcesListChanged"}} {
		if declared(caps, k.cap) {
			f = append(f, `"`+k.field+`":true`)
		}
	}
	return strings.Join(f, ",")
}

// JudgeListen judges a subscriptions/listen request by id: ack is the
// first notification that names it (nil if none came), x the request's
// answer if it answered.
func JudgeListen(caps []byte, id int64, x Exchange, ack []byte) Verdict {
	const cid = IDListen
	filter := listenFilter(caps)
	switch {
	case filter == "":
		return notApplicable(cid, Modern, "the server declares no listChanged capability: there is nothing to listen for")
	case ack != nil && gjson.GetBytes(ack, "method").String() != "notifications/subscriptions/acknowledged":
		return verdict(cid, Modern, listenAck, Fail, Exchange{Method: x.Method, Params: x.Params, Raw: ack}, "the first notification of the subscription is "+gjson.GetBytes(ack, "method").String()+", not notifications/subscriptions/acknowledged")
	case ack != nil:
		if !gjson.GetBytes(ack, "params.notifications").IsObject() {
			return verdict(cid, Modern, listenAck, Warn, Exchange{Method: x.Method, Params: x.Params, Raw: ack}, "the acknowledgment has no notifications object, which the schema requires (no keyword)")
		}
		return verdict(cid, Modern, listenAck, Pass, Exchange{Method: x.Method, Params: x.Params, Raw: ack}, fmt.Sprintf("acknowledged with subscriptionId %d", id))
	case x.Err != nil:
		return verdict(cid, Modern, capsModern, Warn, x, served("listChanged", "subscriptions/listen", x.Err))
	case x.Raw != nil:
		return verdict(cid, Modern, listenAck, Fail, x, "the request was answered without a notifications/subscriptions/acknowledged naming it first")
	}
	return verdict(cid, Modern, listenAck, Fail, x, "no notifications/subscriptions/acknowledged naming the subscription within --timeout")
}

// Logged is one notifications/message the server sent, and the log
// level of the request it came during ("" for none).
type Logged struct {
	Raw   []byte
	Asked string
}

var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// JudgeLogLevel judges the notifications/message of a modern session:
// any during a request without a log level breaks the MUST NOT; one
// below the level asked for is observed (the text permits those at or
// above, and forbids nothing else by keyword). asked is the level of the
// one request that set one ("" if none was made).
func JudgeLogLevel(caps []byte, asked string, logs []Logged) Verdict {
	const id = IDLogLevel
	if !declared(caps, "logging") && len(logs) == 0 {
		return notApplicable(id, Modern, "the server does not declare logging and sent no notifications/message")
	}
	for _, l := range logs {
		if l.Asked == "" {
			return verdict(id, Modern, logLevel, Fail, Exchange{Raw: l.Raw}, "a notifications/message during a request that set no io.modelcontextprotocol/logLevel")
		}
	}
	for _, l := range logs {
		if lv := gjson.GetBytes(l.Raw, "params.level").String(); slices.Index(levels, lv) < slices.Index(levels, l.Asked) {
			return verdict(id, Modern, logLevel, Observed, Exchange{Raw: l.Raw}, fmt.Sprintf("a %s message for a request that asked for %s and above: the text permits those at or above, and forbids nothing else by keyword", lv, l.Asked))
		}
	}
	if asked == "" {
		return Verdict{ID: id, Era: Modern, Clause: logLevel, Outcome: Pass, Why: "no notifications/message during requests without a log level"}
	}
	return Verdict{ID: id, Era: Modern, Clause: logLevel, Outcome: Pass, Sent: "a read-only tools/call with _meta logLevel " + asked,
		Why: fmt.Sprintf("no notifications/message without a log level; %d at or above %s for the request that set it", len(logs), asked)}
}
