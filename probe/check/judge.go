package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// declared reports whether the capabilities object declares path
// ("tools", "resources.subscribe"): present and neither null nor false.
func declared(caps []byte, path string) bool {
	v := gjson.GetBytes(caps, path)
	return v.Exists() && v.Type != gjson.Null && v.Type != gjson.False
}

func capsClause(era string) *Clause {
	if era == Modern {
		return capsModern
	}
	return capsLegacy
}

func era2version(era string) string {
	if era == Modern {
		return v2
	}
	return v1
}

// JudgeInitialize judges the legacy handshake: the initialize result's
// members, and the version it answered to the one asked for.
func JudgeInitialize(requested string, x Exchange) []Verdict {
	res := gjson.ParseBytes(x.Result)
	var missing []string
	if !res.Get("capabilities").IsObject() {
		missing = append(missing, "capabilities (an object)")
	}
	if !res.Get("serverInfo").IsObject() {
		missing = append(missing, "serverInfo (an object)")
	}
	shape := verdict(IDInitializeResult, Legacy, initResult, Pass, x, "the result has protocolVersion, capabilities and serverInfo")
	switch {
	case len(missing) > 0:
		shape.Outcome, shape.Why = Fail, "the result lacks "+strings.Join(missing, " and ")
	case gjson.Get(res.Get("serverInfo").Raw, "name").Type != gjson.String || gjson.Get(res.Get("serverInfo").Raw, "version").Type != gjson.String:
		shape.Outcome, shape.Why = Warn, "serverInfo lacks a string name or version, which the schema's Implementation requires (no keyword)"
	}
	neg := verdict(IDVersionNegotiated, Legacy, versionNegotiation, Pass, x, "answered the version asked for, "+requested)
	got := res.Get("protocolVersion")
	switch {
	case got.Type != gjson.String || got.String() == "":
		neg.Outcome, neg.Why = Fail, "the result has no protocolVersion string: the server MUST answer a version"
	case got.String() == requested:
	case !probe.KnownVersion(got.String()):
		neg.Outcome, neg.Why = Observed, fmt.Sprintf("asked for %s, answered %q, a version mcpprobe does not know: allowed if it is one the server supports", requested, got.String())
	default:
		neg.Outcome, neg.Why = Observed, fmt.Sprintf("asked for %s, answered %s: allowed when the server does not support %s", requested, got.String(), requested)
	}
	return []Verdict{shape, neg}
}

// JudgeDiscover judges the modern handshake: server/discover's result.
func JudgeDiscover(x Exchange) []Verdict {
	res := gjson.ParseBytes(x.Result)
	shape := verdict(IDDiscover, Modern, discoverImplemented, Pass, x, "the result has supportedVersions and capabilities")
	var missing []string
	sv := res.Get("supportedVersions")
	ok := sv.IsArray() && len(sv.Array()) > 0
	for _, v := range sv.Array() {
		ok = ok && v.Type == gjson.String
	}
	if !ok {
		missing = append(missing, "supportedVersions (a non-empty array of strings)")
	}
	if !res.Get("capabilities").IsObject() {
		missing = append(missing, "capabilities (an object)")
	}
	if len(missing) > 0 {
		shape.Outcome, shape.Why = Warn, "the result lacks "+strings.Join(missing, " and ")+", which the schema's DiscoverResult requires (no keyword)"
	}
	info := verdict(IDDiscoverInfo, Modern, discoverServerInfo, Pass, x, "_meta names the server")
	if !res.Get(`_meta.io\.modelcontextprotocol/serverInfo`).IsObject() {
		info.Outcome, info.Why = Warn, "the result has no _meta[\"io.modelcontextprotocol/serverInfo\"] object"
	}
	return []Verdict{shape, info}
}

// JudgeResultTypes judges every result of a modern session: each carries
// resultType.
func JudgeResultTypes(xs []Exchange) Verdict {
	n := 0
	for _, x := range xs {
		if x.Result == nil {
			continue
		}
		n++
		if gjson.GetBytes(x.Result, "resultType").Type != gjson.String {
			return verdict(IDResultType, Modern, resultType, Fail, x, "the result of "+x.Method+" has no resultType string")
		}
	}
	if n == 0 {
		return inconclusive(IDResultType, Modern, resultType, "no request of the session got a result")
	}
	return Verdict{ID: IDResultType, Era: Modern, Clause: resultType, Outcome: Pass, Why: fmt.Sprintf("each of the %d results of the session has resultType", n)}
}

// JudgePing: an empty result (nothing, or only _meta, which every result
// may carry) passes; anything else, an error included, breaks the MUST.
func JudgePing(x Exchange) Verdict {
	const id = IDPing
	switch {
	case x.NoReply != "":
		return noReply(id, Legacy, x)
	case x.Err != nil:
		return verdict(id, Legacy, ping, Fail, x, fmt.Sprintf("answered with error %d: an error is not the empty response the receiver MUST send", x.Err.Code))
	}
	res := gjson.ParseBytes(x.Result)
	if !res.IsObject() {
		return verdict(id, Legacy, ping, Fail, x, "the result is not an object")
	}
	var extra []string
	res.ForEach(func(k, _ gjson.Result) bool {
		if k.String() != "_meta" {
			extra = append(extra, k.String())
		}
		return true
	})
	if len(extra) > 0 {
		return verdict(id, Legacy, ping, Fail, x, "the result is not empty: it has "+strings.Join(extra, ", "))
	}
	return verdict(id, Legacy, ping, Pass, x, "answered with an empty result")
}

// list names a list method's check, capability and result member.
type list struct {
	id, capability, method, member string
}

var (
	toolsList     = list{IDToolsList, "tools", "tools/list", "tools"}
	promptsList   = list{IDPromptsList, "prompts", "prompts/list", "prompts"}
	resourcesList = list{IDResourcesList, "resources", "resources/list", "resources"}
)

// JudgeList judges a list method of a capability the server may declare.
func JudgeList(era string, l list, caps []byte, x Exchange) Verdict {
	c := capsClause(era)
	switch {
	case !declared(caps, l.capability):
		return notApplicable(l.id, era, fmt.Sprintf("the server does not declare the %s capability", l.capability))
	case x.NoReply != "":
		return noReply(l.id, era, x)
	case x.Err != nil:
		return verdict(l.id, era, c, Warn, x, served(l.capability, l.method, x.Err))
	case !gjson.GetBytes(x.Result, l.member).IsArray():
		return verdict(l.id, era, c, Warn, x, fmt.Sprintf("the result has no %s array, which the schema requires (no keyword)", l.member))
	}
	n := len(gjson.GetBytes(x.Result, l.member).Array())
	return verdict(l.id, era, c, Pass, x, fmt.Sprintf("declared and served: %d %s on the first page", n, l.member))
}

// served says what an error to a declared capability's method means.
func served(capability, method string, e *probe.RPCError) string {
	if e.Code == -32601 {
		return fmt.Sprintf("declares %s and answers %s -32601 (method not found); the text that says a declared capability is served has no keyword (\"must\" in lower case), so a warning", capability, method)
	}
	return fmt.Sprintf("declares %s and answers %s with error %d; the text that says a declared capability is served has no keyword, so a warning", capability, method, e.Code)
}

// JudgeInputSchemas judges every listed tool's inputSchema: null, absent
// or not an object breaks the MUST; an object without type "object"
// departs from the schema's type (no keyword).
func JudgeInputSchemas(era string, caps []byte, listed bool, tools [][]byte) Verdict {
	const id = IDInputSchema
	c := inputSchemaLegacy
	if era == Modern {
		c = inputSchemaModern
	}
	switch {
	case !declared(caps, "tools"):
		return notApplicable(id, era, "the server does not declare the tools capability")
	case !listed:
		return inconclusive(id, era, c, "tools/list did not answer a list, so there is no schema to judge")
	case len(tools) == 0:
		return notApplicable(id, era, "the server lists no tools")
	}
	var bad, untyped []string
	var got string
	for _, t := range tools {
		name := gjson.GetBytes(t, "name").String()
		s := gjson.GetBytes(t, "inputSchema")
		switch {
		case !s.IsObject():
			bad = append(bad, name)
			if got == "" {
				got = bound(fmt.Sprintf("%s: inputSchema %s", name, orAbsent(s)))
			}
		case s.Get("type").String() != "object" || s.Get("type").Type != gjson.String:
			untyped = append(untyped, name)
			if got == "" {
				got = bound(fmt.Sprintf("%s: inputSchema %s", name, s.Raw))
			}
		}
	}
	sent := "tools/list"
	switch {
	case len(bad) > 0:
		return Verdict{ID: id, Era: era, Clause: c, Outcome: Fail, Sent: sent, Got: got,
			Why: fmt.Sprintf("%d of %d tools have an inputSchema that is absent, null or not an object: %s", len(bad), len(tools), names(bad))}
	case len(untyped) > 0:
		return Verdict{ID: id, Era: era, Clause: c, Outcome: Warn, Sent: sent, Got: got,
			Why: fmt.Sprintf("%d of %d tools have an inputSchema object without type \"object\", which the schema's Tool type asks for (no keyword): %s", len(untyped), len(tools), names(untyped))}
	}
	return Verdict{ID: id, Era: era, Clause: c, Outcome: Pass, Sent: sent, Why: fmt.Sprintf("each of the %d tools has an inputSchema object of type \"object\"", len(tools))}
}

func orAbsent(r gjson.Result) string {
	if !r.Exists() {
		return "absent"
	}
	return r.Raw
}

// names lists up to five names, sorted, and how many more.
func names(ns []string) string {
	ns = append([]string(nil), ns...)
	sort.Strings(ns)
	if len(ns) > 5 {
		return strings.Join(ns[:5], ", ") + fmt.Sprintf(" and %d more", len(ns)-5)
	}
	return strings.Join(ns, ", ")
}

// JudgeSetLevel judges logging/setLevel on a server declaring logging.
func JudgeSetLevel(caps []byte, x Exchange) Verdict {
	const id = IDSetLevel
	switch {
	case !declared(caps, "logging"):
		return notApplicable(id, Legacy, "the server does not declare the logging capability")
	case x.NoReply != "":
		return noReply(id, Legacy, x)
	case x.Err != nil:
		return verdict(id, Legacy, capsLegacy, Warn, x, served("logging", "logging/setLevel", x.Err))
	}
	return verdict(id, Legacy, capsLegacy, Pass, x, "declared and served")
}

// JudgeComplete judges completion/complete on a server declaring
// completions, for ref (a prompt argument or template variable; "" when
// the server has none to complete).
func JudgeComplete(era string, caps []byte, ref string, x Exchange) Verdict {
	const id = IDComplete
	c := completionLegacy
	if era == Modern {
		c = completionModern
	}
	switch {
	case !declared(caps, "completions"):
		return notApplicable(id, era, "the server does not declare the completions capability")
	case ref == "":
		return notApplicable(id, era, "the server lists no prompt with an argument and no resource template with a variable: completion/complete needs one to refer to")
	case x.NoReply != "":
		return noReply(id, era, x)
	case x.Err != nil && x.Err.Code == -32601:
		return verdict(id, era, c, Warn, x, "declares completions and answers -32601, which this text gives as \"Capability not supported\"")
	case x.Err != nil:
		return verdict(id, era, c, Observed, x, fmt.Sprintf("refused to complete %s with error %d: which references a server completes the text leaves to it", ref, x.Err.Code))
	case !gjson.GetBytes(x.Result, "completion.values").IsArray():
		return verdict(id, era, c, Warn, x, "the result has no completion.values array, which the schema's CompleteResult requires (no keyword)")
	}
	return verdict(id, era, c, Pass, x, "declared and served for "+ref)
}

// JudgeSubscribe judges resources/subscribe or unsubscribe (id says
// which) on a server declaring resources.subscribe, for uri ("" when the
// server lists no resource).
func JudgeSubscribe(id string, caps []byte, uri string, x Exchange) Verdict {
	switch {
	case !declared(caps, "resources.subscribe"):
		return notApplicable(id, Legacy, "the server does not declare resources.subscribe")
	case uri == "":
		return notApplicable(id, Legacy, "the server lists no resource to subscribe to")
	case x.NoReply != "":
		return noReply(id, Legacy, x)
	case x.Err != nil:
		return verdict(id, Legacy, subscribeClause, Warn, x, served("resources.subscribe", x.Method, x.Err))
	}
	return verdict(id, Legacy, subscribeClause, Pass, x, "declared and served for "+uri)
}
