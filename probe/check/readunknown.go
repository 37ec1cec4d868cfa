package check

// resources.read-unknown: what a 2026-07-28 server answers a resources/read
// of a URI it does not have (SEP-2164; the official suite's
// sep-2164-resource-not-found scenario judges the same sentence).

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// IDReadUnknown is the check's stable id.
const IDReadUnknown = "resources.read-unknown"

// unknownURI is a URI no server lists: a scheme of mcpprobe's own, fixed so
// that verdicts are the same run to run.
const unknownURI = "mcpprobe-nonexistent://resources-read-unknown/does-not-exist"

var readUnknown = &Clause{Version: v2, URL: spec2 + "server/resources#error-handling", Keyword: "MUST", Binds: "server",
	Text: "If the requested resource does not exist, servers MUST return a JSON-RPC error with code `-32602` (Invalid Params). […] Servers MUST NOT return an empty `contents` array for a non-existent resource."}

func readUnknownChecks() []Check {
	return []Check{{ID: IDReadUnknown, Title: "resources/read of a URI the server does not have is error -32602, never an empty contents", Eras: []string{Modern}, Transports: anyTransport,
		Clauses: map[string]*Clause{Modern: readUnknown},
		NotIn:   map[string]string{Legacy: "2025-11-25 names -32002 for a resource not found, with no keyword; -32602 and the empty-contents MUST NOT are 2026-07-28's (SEP-2164)"}}}
}

// JudgeReadUnknown judges the answer to a resources/read of unknownURI.
// -32602 passes; an empty contents breaks the MUST NOT; another error code
// (the older -32002 included: the text lets clients accept it, not servers
// send it) breaks the MUST; contents for a URI nobody lists is observed,
// since a server may serve URIs it does not list (templates).
func JudgeReadUnknown(caps []byte, x Exchange) Verdict {
	const id = IDReadUnknown
	if !declared(caps, "resources") {
		return notApplicable(id, Modern, "the server does not declare the resources capability")
	}
	switch {
	case x.NoReply != "":
		return noReply(id, Modern, x)
	case x.Err != nil && x.Err.Code == -32602:
		return verdict(id, Modern, readUnknown, Pass, x, "a URI the server does not have was answered -32602")
	case x.Err != nil:
		return verdict(id, Modern, readUnknown, Fail, x, fmt.Sprintf("a URI the server does not have was answered error %d, not -32602", x.Err.Code))
	}
	contents := gjson.GetBytes(x.Result, "contents")
	switch {
	case gjson.GetBytes(x.Result, "resultType").String() == "input_required":
		return verdict(id, Modern, readUnknown, Observed, x, "a URI the server does not have was answered input_required: whether it exists is not known yet")
	case !contents.IsArray() || len(contents.Array()) == 0:
		return verdict(id, Modern, readUnknown, Fail, x, "a URI the server does not have was answered a result with no contents, which MUST NOT be")
	}
	return verdict(id, Modern, readUnknown, Observed, x, fmt.Sprintf("a URI the server does not list was answered %d contents: a server may serve URIs it does not list", len(contents.Array())))
}

// readUnknown reads unknownURI when resources are declared.
func (s *session) readUnknown(caps []byte) Verdict {
	x := Exchange{}
	if declared(caps, "resources") {
		s.o.say("resources/read of a URI the server does not have")
		x = s.ask("resources/read", `"uri":`+quoteJSON(unknownURI))
	}
	return JudgeReadUnknown(caps, x)
}
