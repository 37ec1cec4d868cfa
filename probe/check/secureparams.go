package check

// The Secure Parameters extension's checks (SEP-3221,
// io.modelcontextprotocol/secure-params, issue 39): their clauses, ids and
// judges. secureparams_run.go makes their exchanges.
//
// No dated revision of the spec has the extension: every clause quotes
// the SEP as its pull request's head commit has it (secparams.URL; a
// draft of 2026-08-10). The official suite's traceability file, as read
// (c321dd3, 2026-08-07), has no entry for it.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/secparams"
	"github.com/tidwall/gjson"
)

// Check ids.
const (
	IDSecureShape     = "secure-params.schema-object"
	IDSecureOverlap   = "secure-params.no-overlap"
	IDSecureOmit      = "secure-params.omit-unnegotiated"
	IDSecureUnneg     = "secure-params.call-unnegotiated"
	IDSecureCollision = "secure-params.collision"
	IDSecureNoEcho    = "secure-params.no-echo"
)

// SecureIDs are the extension's checks, in the order verdicts show them.
var SecureIDs = []string{IDSecureShape, IDSecureOverlap, IDSecureOmit, IDSecureUnneg, IDSecureCollision, IDSecureNoEcho}

var (
	secureShape = &Clause{Version: secparams.SEP, Section: "3. Tool Manifests", URL: secparams.URL + "#3-tool-manifests-toolslist", Keyword: "MUST", Binds: "server",
		Text: "`secureInputSchema` MUST be a valid JSON Schema (Draft 2020-12) object with top-level `\"type\": \"object\"`"}
	secureOverlap = &Clause{Version: secparams.SEP, Section: "3. Tool Manifests", URL: secparams.URL + "#3-tool-manifests-toolslist", Keyword: "MUST NOT", Binds: "server",
		Text: "Parameter property names defined in `secureInputSchema` MUST NOT appear in `inputSchema` for the same tool."}
	// The only sentence on un-negotiated lists carries no keyword.
	secureOmit = &Clause{Version: secparams.SEP, Section: "Backward Compatibility", URL: secparams.URL + "#backward-compatibility", Keyword: "", Binds: "server",
		Text: "Graceful Fallback: Servers omit tools requiring mandatory secure parameters when serving un-negotiated clients, ensuring incompatible clients never receive schemas they cannot fulfill."}
	secureExclusive = &Clause{Version: secparams.SEP, Section: "5. Argument Precedence & Injection Defense", URL: secparams.URL + "#5-argument-precedence--injection-defense-normative-rule", Keyword: "MUST", Binds: "server",
		Text: "The server MUST validate that all parameters declared in `secureInputSchema` are provided exclusively via `params.secureArguments`."}
	// The table gives codes without a keyword.
	secureCodes = &Clause{Version: secparams.SEP, Section: "7. Error Handling & HTTP Status Code Mapping", URL: secparams.URL + "#7-error-handling--http-status-code-mapping", Keyword: "", Binds: "server",
		Text: "Missing Client Extension Capability: `-32021` (MissingRequiredClientCapabilityError); Direct Invocation on Unlisted Tool: `-32601`"}
	secureCollision = &Clause{Version: secparams.SEP, Section: "5. Argument Precedence & Injection Defense", URL: secparams.URL + "#5-argument-precedence--injection-defense-normative-rule", Keyword: "MUST", Binds: "server",
		Text: "If a client or model supplies a property in `arguments` whose name matches a property declared in `secureInputSchema`, the server MUST reject the invocation with JSON-RPC error code `-32602` (`INVALID_PARAMS`)"}
	secureNoEcho = &Clause{Version: secparams.SEP, Section: "6. Protocol Interactions: Asynchronous Tasks", URL: secparams.URL + "#asynchronous-tasks-iomodelcontextprotocoltasks", Keyword: "MUST NOT", Binds: "server",
		Text: "`secureArguments` are consumed at task creation time. Servers MUST NOT echo `secureArguments` in task inspection responses (`tasks/get`, `tasks/update`)."}
)

func bothEras(c *Clause) map[string]*Clause { return map[string]*Clause{Legacy: c, Modern: c} }

// SecureChecks are the registry's entries for the extension. The SEP
// applies to both lifecycles (§2: initialize capabilities in 2025-11-25,
// per-request capabilities from 2026-07-28).
var SecureChecks = sync.OnceValue(func() []Check {
	return []Check{
		{ID: IDSecureShape, Title: "every secureInputSchema is a JSON Schema object with top-level \"type\": \"object\" (Secure Parameters)", Eras: both, Transports: anyTransport, Clauses: bothEras(secureShape)},
		{ID: IDSecureOverlap, Title: "no property name is in both inputSchema and secureInputSchema (Secure Parameters)", Eras: both, Transports: anyTransport, Clauses: bothEras(secureOverlap)},
		{ID: IDSecureOmit, Title: "a client that does not declare the extension is not listed tools with required secure parameters (Secure Parameters)", Eras: both, Transports: anyTransport, Clauses: bothEras(secureOmit)},
		{ID: IDSecureUnneg, Title: "a call of a tool with required secure parameters from a client that did not declare the extension is refused (-32021) (Secure Parameters)", Eras: both, Transports: anyTransport, Clauses: bothEras(secureExclusive)},
		{ID: IDSecureCollision, Title: "a secure parameter's name in arguments is refused with -32602 (Secure Parameters)", Eras: both, Transports: anyTransport, Clauses: bothEras(secureCollision)},
		{ID: IDSecureNoEcho, Title: "tasks/get does not echo secureArguments (Secure Parameters)", Eras: both, Transports: anyTransport, Clauses: bothEras(secureNoEcho)},
	}
})

// secureAll is one verdict per check, all alike: the extension is not
// declared, or the run could not get as far as judging it.
func secureAll(era, outcome, why string) []Verdict {
	var out []Verdict
	for _, c := range SecureChecks() {
		v := Verdict{ID: c.ID, Era: era, Outcome: outcome, Why: why}
		if outcome != NotApplicable {
			v.Clause = c.Clauses[era]
		}
		out = append(out, v)
	}
	return out
}

// secureTools are the definitions that carry a secureInputSchema.
func secureTools(tools [][]byte) [][]byte {
	var out [][]byte
	for _, t := range tools {
		if secparams.Read(t).Has {
			out = append(out, t)
		}
	}
	return out
}

func toolName(raw []byte) string { return gjson.GetBytes(raw, "name").String() }

// quoted names a server's names, escaped, ten at most.
func quoted(names []string) string {
	q := make([]string, 0, len(names))
	for i, n := range names {
		if i == 10 {
			q = append(q, fmt.Sprintf("and %d more", len(names)-10))
			break
		}
		q = append(q, fmt.Sprintf("%q", bound(n)))
	}
	return strings.Join(q, ", ")
}

// JudgeSecureShape judges the secureInputSchema of each tool listed to a
// client that declared the extension.
func JudgeSecureShape(era string, tools [][]byte) Verdict {
	st := secureTools(tools)
	if len(st) == 0 {
		return notApplicable(IDSecureShape, era, "no tool listed to a client declaring the extension has a secureInputSchema")
	}
	for _, t := range st {
		if why := secparams.Read(t).Shape; why != "" {
			return Verdict{ID: IDSecureShape, Era: era, Clause: secureShape, Outcome: Fail, Got: bound(gjson.GetBytes(t, "secureInputSchema").Raw),
				Why: fmt.Sprintf("tool %q: %s", bound(toolName(t)), why)}
		}
	}
	return Verdict{ID: IDSecureShape, Era: era, Clause: secureShape, Outcome: Pass, Why: fmt.Sprintf("each of the %d secureInputSchema is an object schema of type \"object\"", len(st))}
}

// JudgeSecureOverlap judges the property names of both schemas of each
// tool listed to a client that declared the extension.
func JudgeSecureOverlap(era string, tools [][]byte) Verdict {
	st := secureTools(tools)
	if len(st) == 0 {
		return notApplicable(IDSecureOverlap, era, "no tool listed to a client declaring the extension has a secureInputSchema")
	}
	for _, t := range st {
		if o := secparams.Read(t).Overlap; len(o) > 0 {
			return Verdict{ID: IDSecureOverlap, Era: era, Clause: secureOverlap, Outcome: Fail, Got: bound(string(t)),
				Why: fmt.Sprintf("tool %q has %s in both inputSchema and secureInputSchema; a client MUST exclude such a tool (§3.4)", bound(toolName(t)), quoted(o))}
		}
	}
	return Verdict{ID: IDSecureOverlap, Era: era, Clause: secureOverlap, Outcome: Pass, Why: fmt.Sprintf("no property name of the %d secureInputSchema is in its tool's inputSchema", len(st))}
}

// requiring are the names of the tools with required secure parameters.
func requiring(tools [][]byte) []string {
	var out []string
	for _, t := range tools {
		if secparams.Read(t).RequiresSecure() {
			out = append(out, toolName(t))
		}
	}
	return out
}

// JudgeSecureOmit judges the list answered to a client that did not
// declare the extension (plain) against the one answered to a client
// that did (negotiated). The sentence has no keyword: a tool listed
// anyway is a warning.
func JudgeSecureOmit(era string, negotiated, plain [][]byte) Verdict {
	listed := requiring(plain)
	if len(listed) > 0 {
		return Verdict{ID: IDSecureOmit, Era: era, Clause: secureOmit, Outcome: Warn, Sent: "tools/list (no extension declared)",
			Why: fmt.Sprintf("tools with required secure parameters listed to a client that did not declare %s: %s; such a client can never call them", secparams.Extension, quoted(listed))}
	}
	need := requiring(negotiated)
	if len(need) == 0 {
		return notApplicable(IDSecureOmit, era, "no tool has required secure parameters")
	}
	return Verdict{ID: IDSecureOmit, Era: era, Clause: secureOmit, Outcome: Pass, Sent: "tools/list (no extension declared)",
		Why: fmt.Sprintf("the %d tools with required secure parameters (%s) are left out of the list answered to a client that did not declare the extension", len(need), quoted(need))}
}

// JudgeSecureUnnegotiated judges a call, from a client that did not
// declare the extension, of a tool with required secure parameters, made
// without them. Running it breaks §5's MUST; refusing it with another
// code than the table's is a warning (the table has no keyword). unlisted
// says the tool was left out of that client's list, where the table's
// code for a direct invocation is -32601.
func JudgeSecureUnnegotiated(era, tool string, unlisted bool, x Exchange) Verdict {
	if x.NoReply != "" {
		return noReply(IDSecureUnneg, era, x)
	}
	v := verdict(IDSecureUnneg, era, secureCodes, Pass, x, "")
	switch {
	case x.Err == nil:
		v.Outcome, v.Clause = Fail, secureExclusive
		v.Why = fmt.Sprintf("tool %q was run without its required secure parameters for a client that did not declare %s: the call was answered with a result, not refused", bound(tool), secparams.Extension)
	case x.Err.Code == -32021:
		v.Why = "refused with -32021, Missing required client capability"
	case x.Err.Code == -32601 && unlisted:
		v.Why = "refused with -32601: the tool is not listed to this client, and the table's code for a direct invocation of an unlisted tool is -32601"
	default:
		v.Outcome = Warn
		v.Why = fmt.Sprintf("refused with error %d; the table gives -32021 for a client that did not declare the extension", x.Err.Code)
		if unlisted {
			v.Why += " (or -32601, the tool being unlisted to it)"
		}
	}
	return v
}

// succeeded: answered with a result that is not a tool error.
func succeeded(x Exchange) bool {
	return x.NoReply == "" && x.Err == nil && gjson.GetBytes(x.Result, "isError").Type != gjson.True
}

// JudgeSecureCollision judges a call with a secure parameter's name in
// arguments (x), against a control call with the same arguments less
// that name (control). A result is a fail whatever the control got; a
// refusal is only told from a refusal of the arguments made from the
// schema when the control succeeded.
func JudgeSecureCollision(era, tool, prop string, control, x Exchange) Verdict {
	if x.NoReply != "" {
		return noReply(IDSecureCollision, era, x)
	}
	v := verdict(IDSecureCollision, era, secureCollision, Pass, x, "")
	switch {
	case x.Err == nil:
		v.Outcome = Fail
		v.Why = fmt.Sprintf("tool %q accepted secure parameter %q in arguments: the call was answered with a result, not -32602", bound(tool), bound(prop))
	case !succeeded(control):
		v.Outcome = Inconclusive
		v.Why = fmt.Sprintf("the same call without the colliding name was not answered with a successful result (%s), so error %d cannot be told from a refusal of the arguments made from the schema", bound(control.got()), x.Err.Code)
	case x.Err.Code == -32602:
		v.Why = fmt.Sprintf("secure parameter %q in arguments refused with -32602; the same call without it succeeded", bound(prop))
	default:
		v.Outcome = Fail
		v.Why = fmt.Sprintf("secure parameter %q in arguments refused with error %d, not -32602", bound(prop), x.Err.Code)
	}
	return v
}

// taskID is the task a tools/call answer created: the 2026-07-28
// extension's CreateTaskResult carries it at the top ("resultType":
// "task"), 2025-11-25's under "task".
func taskID(x Exchange) string {
	if x.Err != nil || x.NoReply != "" {
		return ""
	}
	for _, p := range []string{"taskId", "task.taskId"} {
		if v := gjson.GetBytes(x.Result, p); v.Type == gjson.String && v.String() != "" {
			return v.String()
		}
	}
	return ""
}

// JudgeSecureNoEcho judges the tasks/get answer (get) of a task created
// by a call (create) that sent secure arguments with the given values.
func JudgeSecureNoEcho(era, tool string, values []string, create, get Exchange) Verdict {
	if create.NoReply != "" || create.Err != nil {
		return verdict(IDSecureNoEcho, era, secureNoEcho, Inconclusive, create, "the call meant to create a task was not answered with a result")
	}
	if taskID(create) == "" {
		return verdict(IDSecureNoEcho, era, secureNoEcho, Inconclusive, create, "the call was answered without a task (a server decides when to create one): no task to inspect")
	}
	if get.NoReply != "" || get.Err != nil {
		return verdict(IDSecureNoEcho, era, secureNoEcho, Inconclusive, get, "tasks/get was not answered with a result")
	}
	raw := string(get.Result)
	if strings.Contains(raw, `"secureArguments"`) {
		return verdict(IDSecureNoEcho, era, secureNoEcho, Fail, get, fmt.Sprintf("tasks/get of tool %q's task answered a secureArguments member", bound(tool)))
	}
	for _, s := range values {
		if strings.Contains(raw, s) {
			return verdict(IDSecureNoEcho, era, secureNoEcho, Fail, get, fmt.Sprintf("tasks/get of tool %q's task answered the value %q sent in secureArguments", bound(tool), bound(s)))
		}
	}
	return verdict(IDSecureNoEcho, era, secureNoEcho, Pass, get, fmt.Sprintf("tasks/get of tool %q's task carries neither secureArguments nor any value sent in it", bound(tool)))
}
