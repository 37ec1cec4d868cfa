package check

import (
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/result"
	"github.com/tidwall/gjson"
)

// The results checks read what the server answers on its own tools,
// resources and prompts: no fixture tool is called. A tool is called only
// when the consent rule allows it (args.Choose: readOnlyHint true, no
// destructiveHint, every hint a plain boolean; or named with --call), so a
// check run never writes to the server's world on a hint it cannot trust;
// a read of a resource and a prompts/get change nothing by the spec's own
// model.

// maxCalled bounds how many read-only tools one era's run calls.
const maxCalled = 3

var (
	toolResultLegacy = &Clause{Version: v1, URL: spec1 + "server/tools#tool-result", Keyword: "", Binds: "server",
		Text: "This specification defines the authoritative protocol requirements, based on the TypeScript schema in schema.ts; schema.ts: `CallToolResult { content: ContentBlock[]; … }`, `TextContent { type: \"text\"; text: string }`, `ImageContent { data: string /* @format byte */; mimeType: string }`"}
	toolResultModern = &Clause{Version: v2, URL: spec2 + "server/tools#tool-result", Keyword: "", Binds: "server",
		Text: "This specification defines the authoritative protocol requirements, based on the TypeScript schema in schema.ts; schema.ts: `CallToolResult { content: ContentBlock[]; … }`, `TextContent { type: \"text\"; text: string }`, `ImageContent { data: string /* @format byte */; mimeType: string }`"}
	outputSchemaLegacy = &Clause{Version: v1, URL: spec1 + "server/tools#output-schema", Keyword: "MUST", Binds: "server",
		Text: "Tools may also provide an output schema for validation of structured results. If an output schema is provided: Servers MUST provide structured results that conform to this schema."}
	outputSchemaModern = &Clause{Version: v2, URL: spec2 + "server/tools#output-schema", Keyword: "MUST", Binds: "server",
		Text: "Tools may also provide an output schema for validation of structured results. If an output schema is provided: Servers MUST provide structured results that conform to this schema."}
	readResultLegacy = &Clause{Version: v1, URL: spec1 + "server/resources#reading-resources", Keyword: "", Binds: "server",
		Text: "schema.ts: `ReadResourceResult { contents: (TextResourceContents | BlobResourceContents)[] }`, each with `uri: string` and `text: string` or `blob: string /* @format byte */`"}
	readResultModern = &Clause{Version: v2, URL: spec2 + "server/resources#reading-resources", Keyword: "", Binds: "server",
		Text: "schema.ts: `ReadResourceResult { contents: (TextResourceContents | BlobResourceContents)[] }`, each with `uri: string` and `text: string` or `blob: string /* @format byte */`"}
	promptResultLegacy = &Clause{Version: v1, URL: spec1 + "server/prompts#getting-a-prompt", Keyword: "", Binds: "server",
		Text: "schema.ts: `GetPromptResult { messages: PromptMessage[] }`, `PromptMessage { role: Role; content: ContentBlock }`, `Role = \"user\" | \"assistant\"`"}
	promptResultModern = &Clause{Version: v2, URL: spec2 + "server/prompts#getting-a-prompt", Keyword: "", Binds: "server",
		Text: "schema.ts: `GetPromptResult { messages: PromptMessage[] }`, `PromptMessage { role: Role; content: ContentBlock }`, `Role = \"user\" | \"assistant\"`"}
	blobEncoded = map[string]*Clause{
		Legacy: &Clause{Version: v1, URL: spec1 + "server/resources#security-considerations", Keyword: "MUST", Binds: "server",
			Text: "Binary data MUST be properly encoded; schema.ts: `BlobResourceContents { blob: string /* @format byte */ }`"},
		Modern: &Clause{Version: v2, URL: spec2 + "server/resources#security-considerations", Keyword: "MUST", Binds: "server",
			Text: "Binary data MUST be properly encoded; schema.ts: `BlobResourceContents { blob: string /* @format byte */ }`"},
	}
	promptMedia = map[string]*Clause{
		Legacy: &Clause{Version: v1, URL: spec1 + "server/prompts#image-content", Keyword: "MUST", Binds: "server",
			Text: "The image data MUST be base64-encoded and include a valid MIME type. […] The audio data MUST be base64-encoded and include a valid MIME type."},
		Modern: &Clause{Version: v2, URL: spec2 + "server/prompts#image-content", Keyword: "MUST", Binds: "server",
			Text: "The image data MUST be base64-encoded and include a valid MIME type. […] The audio data MUST be base64-encoded and include a valid MIME type."},
	}
	mcpHeader = &Clause{Version: v2, URL: spec2 + "server/tools#x-mcp-header", Keyword: "MUST", Binds: "server",
		Text: "Constraints on `x-mcp-header` values: MUST NOT be empty; MUST match HTTP field-name token syntax (`1*tchar`, RFC 9110 Section 5.1); MUST NOT contain control characters […]; MUST be case-insensitively unique among all `x-mcp-header` values in the `inputSchema`; MUST only be applied to parameters with primitive types (integer, string, boolean). Parameters with type `number` are not permitted. […] Clients using the Streamable HTTP transport MUST reject tool definitions where any `x-mcp-header` value violates these constraints."}
)

// Check ids of the results checks.
const (
	IDCallResult   = "tools.call-result"
	IDStructured   = "tools.structured-content"
	IDReadResult   = "resources.read-result"
	IDPromptResult = "prompts.get-result"
	IDMcpHeader    = "tools.x-mcp-header"
)

func byEra(era string, legacy, modern *Clause) *Clause {
	if era == Modern {
		return modern
	}
	return legacy
}

// results calls up to maxCalled read-only tools, reads the first listed
// resource and gets the first listed prompt, and judges each answer's
// shape; tools.x-mcp-header judges the definitions (modern only).
func results(s *session, era string, caps []byte, lists map[string]Exchange) []Verdict {
	var vs []Verdict
	tools := s.cl.Capture.Tools.Items
	if !declared(caps, "tools") || len(tools) == 0 {
		why := "the server does not declare the tools capability"
		if declared(caps, "tools") {
			why = "the server lists no tools"
		}
		vs = append(vs, notApplicable(IDCallResult, era, why), notApplicable(IDStructured, era, why))
	} else {
		vs = append(vs, callResults(s, era, tools)...)
	}
	if era == Modern {
		vs = append(vs, JudgeMcpHeaders(tools))
	}
	vs = append(vs, readResult(s, era, caps, lists["resources"]), promptResult(s, era, caps, lists["prompts"]))
	return vs
}

// NotRun is why a check that needs a tool call was not run under
// --no-tool-calls: not a failure, nothing was asked.
const NotRun = "not run (no tool calls allowed: --no-tool-calls)"

func callResults(s *session, era string, tools [][]byte) []Verdict {
	if s.o.NoToolCalls {
		return []Verdict{notApplicable(IDCallResult, era, NotRun), notApplicable(IDStructured, era, NotRun)}
	}
	var called []Called
	callable := s.callable()
	skipped := len(tools) - len(callable)
	for _, raw := range callable {
		if len(called) == maxCalled && len(s.o.Calls) == 0 {
			break
		}
		name := gjson.GetBytes(raw, "name")
		a := s.o.argsFor(raw)
		members := `"name":` + name.Raw
		if a != nil {
			members += `,"arguments":` + string(a)
		}
		s.o.say("tools/call " + name.String())
		called = append(called, Called{Tool: raw, X: s.ask("tools/call", members)})
	}
	if len(called) == 0 {
		why := fmt.Sprintf("none of the %d tools is annotated readOnlyHint, and check calls no other: a call could write", skipped)
		if annotatedOnly(s.choices) {
			why = fmt.Sprintf("none of the %d tools may be called without consent (readOnlyHint true, no destructiveHint, every hint a plain boolean), and check calls no other: a call could write; name one with --call", skipped)
		}
		return []Verdict{notApplicable(IDCallResult, era, why), notApplicable(IDStructured, era, why)}
	}
	return JudgeCallResults(era, s.cl.Capture.ProtocolVersion, called)
}

// annotatedOnly: some tool not called is annotated read-only all the
// same (its other hints stopped it), so "not annotated" would mislead.
func annotatedOnly(cs []Choice) bool {
	for _, c := range cs {
		if !c.Call && c.Why != args.NotReadOnly && c.Why != "readOnlyHint false" {
			return true
		}
	}
	return false
}

// Choice is args.Choice: the consent rule's decision on one tool.
type Choice = args.Choice

// Called is one tool called by the check, and its answer.
type Called struct {
	Tool []byte // the raw definition from tools/list
	X    Exchange
}

// JudgeCallResults judges the calls made: the shape of each result
// (content blocks as the schema has them: a warning, the schema's
// requirements carry no keyword) and structuredContent against the
// tool's outputSchema (a MUST). A call refused with an error says nothing
// of either: the arguments were made up from the schema.
func JudgeCallResults(era, version string, called []Called) []Verdict {
	shape := Verdict{ID: IDCallResult, Era: era, Clause: byEra(era, toolResultLegacy, toolResultModern)}
	structured := Verdict{ID: IDStructured, Era: era, Clause: byEra(era, outputSchemaLegacy, outputSchemaModern)}
	var answered, withSchema []string
	var refused []string
	for _, c := range called {
		name := gjson.GetBytes(c.Tool, "name").String()
		x := c.X
		switch {
		case x.NoReply != "":
			v := noReply(IDCallResult, era, x)
			if shape.Outcome == "" || rank(v.Outcome) > rank(shape.Outcome) {
				shape.Outcome, shape.Clause, shape.Sent, shape.Got, shape.Why = v.Outcome, v.Clause, v.Sent, v.Got, "tool "+name+": "+v.Why
			}
			continue
		case x.Err != nil:
			refused = append(refused, fmt.Sprintf("%s (error %d)", name, x.Err.Code))
			continue
		}
		a := result.Analyse(result.Input{Kind: result.KindTool, Result: x.Result, Tool: c.Tool, Version: version})
		if a.ResultType != "" && a.ResultType != "complete" {
			refused = append(refused, fmt.Sprintf("%s (resultType %s)", name, a.ResultType))
			continue
		}
		answered = append(answered, name)
		if bad := findingOf(a.Findings, findings.ResultMalformed, findings.InvalidBase64); bad != "" && rank(Warn) > rank(shape.Outcome) {
			shape.Outcome, shape.Sent, shape.Got = Warn, x.sent(), x.got()
			shape.Why = "tool " + name + ": " + bad + ", which the schema requires (no keyword)"
		}
		if a.Structured == nil || !a.Structured.HasSchema {
			continue
		}
		withSchema = append(withSchema, name)
		if structured.Outcome == Fail {
			continue
		}
		switch {
		case findingOf(a.Findings, findings.StructuredMissing) != "":
			structured.Outcome, structured.Sent, structured.Got = Fail, x.sent(), x.got()
			structured.Why = "tool " + name + " declares an outputSchema and answered a successful call without structuredContent"
		case findingOf(a.Findings, findings.StructuredInvalid) != "":
			structured.Outcome, structured.Sent, structured.Got = Fail, x.sent(), x.got()
			structured.Why = "tool " + name + ": " + findingOf(a.Findings, findings.StructuredInvalid)
		case a.Structured.Unchecked != "" && structured.Outcome == "":
			structured.Outcome, structured.Why = Inconclusive, "tool "+name+": structuredContent not checked: "+a.Structured.Unchecked
		}
	}
	tail := ""
	if len(refused) > 0 {
		tail = "; refused the arguments made from its schema, or asked for more: " + strings.Join(refused, ", ")
	}
	switch {
	case shape.Outcome != "":
	case len(answered) == 0:
		shape.Outcome, shape.Why = Observed, "no read-only tool answered with a result"+tail
	default:
		shape.Outcome, shape.Why = Pass, "each result of "+strings.Join(answered, ", ")+" has the shape the schema gives it"+tail
	}
	switch {
	case structured.Outcome != "":
	case len(withSchema) == 0 && len(answered) == 0:
		structured.Outcome, structured.Clause, structured.Why = NotApplicable, nil, "no read-only tool answered with a result"
	case len(withSchema) == 0:
		structured.Outcome, structured.Clause, structured.Why = NotApplicable, nil, "none of the tools called ("+strings.Join(answered, ", ")+") declares an outputSchema"
	default:
		structured.Outcome, structured.Why = Pass, "structuredContent conforms to the outputSchema of "+strings.Join(withSchema, ", ")
	}
	return []Verdict{shape, structured}
}

// rank orders outcomes by how much a verdict that takes the worst of
// several answers should keep.
func rank(o string) int {
	switch o {
	case Fail:
		return 3
	case Warn:
		return 2
	case Observed, Inconclusive:
		return 1
	}
	return 0
}

// findingOf is the message of the first finding of one of the codes, "" if none.
func findingOf(fs []findings.Finding, codes ...findings.Code) string {
	for _, f := range fs {
		for _, c := range codes {
			if f.Code == c {
				return f.Message
			}
		}
	}
	return ""
}

func readResult(s *session, era string, caps []byte, list Exchange) Verdict {
	uri := gjson.GetBytes(list.Result, "resources.0.uri")
	switch {
	case !declared(caps, "resources"):
		return notApplicable(IDReadResult, era, "the server does not declare the resources capability")
	case uri.Type != gjson.String:
		return notApplicable(IDReadResult, era, "the server lists no resource on the first page")
	}
	s.o.say("resources/read")
	return JudgeRead(era, s.cl.Capture.ProtocolVersion, s.ask("resources/read", `"uri":`+uri.Raw))
}

// JudgeRead judges a resources/read answer's shape.
func JudgeRead(era, version string, x Exchange) Verdict {
	c := byEra(era, readResultLegacy, readResultModern)
	switch {
	case x.NoReply != "":
		return noReply(IDReadResult, era, x)
	case x.Err != nil:
		return verdict(IDReadResult, era, c, Observed, x, fmt.Sprintf("the first listed resource was answered with error %d: a listed resource may still be unreadable (gone, or needing access)", x.Err.Code))
	}
	a := result.Analyse(result.Input{Kind: result.KindResource, Result: x.Result, Version: version})
	if bad := findingOf(a.Findings, findings.InvalidBase64); bad != "" {
		return verdict(IDReadResult, era, blobEncoded[era], Fail, x, bad+": binary data MUST be properly encoded")
	}
	if bad := findingOf(a.Findings, findings.ResultMalformed); bad != "" {
		return verdict(IDReadResult, era, c, Warn, x, bad+", which the schema requires (no keyword)")
	}
	return verdict(IDReadResult, era, c, Pass, x, fmt.Sprintf("contents has %d entries, each with uri and text or blob", len(a.Blocks)))
}

func promptResult(s *session, era string, caps []byte, list Exchange) Verdict {
	p := gjson.GetBytes(list.Result, "prompts.0")
	switch {
	case !declared(caps, "prompts"):
		return notApplicable(IDPromptResult, era, "the server does not declare the prompts capability")
	case p.Get("name").Type != gjson.String:
		return notApplicable(IDPromptResult, era, "the server lists no prompt on the first page")
	}
	members := `"name":` + p.Get("name").Raw
	var given []string
	for _, a := range p.Get("arguments").Array() {
		if a.Get("required").Bool() && a.Get("name").Type == gjson.String {
			given = append(given, a.Get("name").Raw+`:"example"`)
		}
	}
	if len(given) > 0 {
		members += `,"arguments":{` + strings.Join(given, ",") + `}`
	}
	s.o.say("prompts/get")
	return JudgePrompt(era, s.cl.Capture.ProtocolVersion, s.ask("prompts/get", members))
}

// JudgePrompt judges a prompts/get answer's shape; each required argument
// was given the value "example".
func JudgePrompt(era, version string, x Exchange) Verdict {
	c := byEra(era, promptResultLegacy, promptResultModern)
	switch {
	case x.NoReply != "":
		return noReply(IDPromptResult, era, x)
	case x.Err != nil:
		return verdict(IDPromptResult, era, c, Observed, x, fmt.Sprintf("answered with error %d: the server may refuse \"example\" for a required argument", x.Err.Code))
	}
	a := result.Analyse(result.Input{Kind: result.KindPrompt, Result: x.Result, Version: version})
	if bad := findingOf(a.Findings, findings.InvalidBase64); bad != "" {
		return verdict(IDPromptResult, era, promptMedia[era], Fail, x, bad+": a prompt's image and audio data MUST be base64-encoded")
	}
	if bad := findingOf(a.Findings, findings.ResultMalformed); bad != "" {
		return verdict(IDPromptResult, era, c, Warn, x, bad+", which the schema requires (no keyword)")
	}
	msgs := gjson.GetBytes(x.Result, "messages").Array()
	for i, m := range msgs {
		if r := m.Get("role").String(); r != "user" && r != "assistant" {
			return verdict(IDPromptResult, era, c, Warn, x, fmt.Sprintf("message %d has role %s; the schema's Role is \"user\" or \"assistant\" (no keyword)", i, m.Get("role").Raw))
		}
	}
	return verdict(IDPromptResult, era, c, Pass, x, fmt.Sprintf("%d messages, each with a role and a content block", len(msgs)))
}

// JudgeMcpHeaders judges every x-mcp-header of every listed tool's
// inputSchema against the constraints the 2026-07-28 text puts on them.
func JudgeMcpHeaders(tools [][]byte) Verdict {
	n := 0
	for _, raw := range tools {
		name := gjson.GetBytes(raw, "name").String()
		props := gjson.GetBytes(raw, "inputSchema.properties")
		seen := map[string]bool{}
		var bad string
		props.ForEach(func(k, p gjson.Result) bool {
			h := p.Get("x-mcp-header")
			if !h.Exists() {
				return true
			}
			n++
			if why := mcpHeaderFault(h, p.Get("type")); why != "" {
				bad = fmt.Sprintf("tool %s, property %s: x-mcp-header %s %s", name, k.String(), bound(h.Raw), why)
				return false
			}
			if low := strings.ToLower(h.String()); seen[low] {
				bad = fmt.Sprintf("tool %s: x-mcp-header %s is used twice (case-insensitively)", name, bound(h.Raw))
				return false
			} else {
				seen[low] = true
			}
			return true
		})
		if bad != "" {
			return Verdict{ID: IDMcpHeader, Era: Modern, Clause: mcpHeader, Outcome: Fail, Sent: "tools/list", Got: bound(string(raw)),
				Why: bad + "; a Streamable HTTP client MUST exclude this tool from tools/list"}
		}
	}
	if n == 0 {
		return notApplicable(IDMcpHeader, Modern, "no tool's inputSchema has a top-level property with x-mcp-header")
	}
	return Verdict{ID: IDMcpHeader, Era: Modern, Clause: mcpHeader, Outcome: Pass, Sent: "tools/list",
		Why: fmt.Sprintf("each of the %d x-mcp-header values is a token, unique, on a string, integer or boolean property", n)}
}

// mcpHeaderFault says how one x-mcp-header value breaks the constraints,
// "" when it does not.
func mcpHeaderFault(h, typ gjson.Result) string {
	if h.Type != gjson.String {
		return "is not a string"
	}
	if h.String() == "" {
		return "is empty"
	}
	for _, r := range h.String() {
		if r < 0x20 || r == 0x7f {
			return "contains a control character"
		}
		if !tchar(r) {
			return fmt.Sprintf("contains %q, which is not a tchar of RFC 9110's field-name token", r)
		}
	}
	if typ.Type != gjson.String {
		// no type, or a list of types: not declared primitive, but not
		// declared otherwise either; left unjudged
		return ""
	}
	switch typ.String() {
	case "string", "integer", "boolean":
		return ""
	case "number":
		return "is on a property of type number, which is not permitted"
	}
	return "is on a property whose type is " + bound(typ.Raw) + ", not string, integer or boolean"
}

// tchar is RFC 9110's token character.
func tchar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
