package check

// mrtr.declared-inputs: a tool that answers input_required, called again by
// a client that declares no input capability (the official suite's
// input-required-result-capability-check judges the same sentence).

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// IDDeclaredInputs is the check's stable id.
const IDDeclaredInputs = "mrtr.declared-inputs"

var declaredInputs = &Clause{Version: v2, URL: spec2 + "basic/patterns/mrtr#server-requirements-basic-workflow", Keyword: "MUST", Binds: "server",
	Text: "Servers MUST NOT send an `inputRequests` that the client has not declared support for in its capabilities. For example, if a client does not declare support for `elicitation`, the server MUST NOT include any `elicitation/create` requests in the `inputRequests` field."}

// noInputCaps declares no elicitation, sampling or roots (nor tasks).
const noInputCaps = `{}`

func declaredInputsChecks() []Check {
	return []Check{{ID: IDDeclaredInputs, Title: "no inputRequests for a capability the client did not declare", Eras: []string{Modern}, Transports: anyTransport,
		Clauses: map[string]*Clause{Modern: declaredInputs},
		NotIn:   map[string]string{Legacy: "input_required results are " + modernOnly}}}
}

// JudgeDeclaredInputs judges the answer to a call, with no input
// capability declared, of a tool that answered input_required when every
// input was declared: an error (-32021 names the capability missing), a
// complete result, or input_required with only requestState pass; any
// inputRequests entry breaks the MUST NOT.
func JudgeDeclaredInputs(tool string, x Exchange) Verdict {
	const id = IDDeclaredInputs
	switch {
	case x.NoReply != "":
		return noReply(id, Modern, x)
	case x.Err != nil:
		return verdict(id, Modern, declaredInputs, Pass, x, tool+" called with no input capability declared answered error "+strconv.FormatInt(x.Err.Code, 10)+", asking for nothing")
	}
	if gjson.GetBytes(x.Result, "resultType").String() != "input_required" {
		return verdict(id, Modern, declaredInputs, Pass, x, tool+" called with no input capability declared answered without input_required")
	}
	var methods []string
	gjson.GetBytes(x.Result, "inputRequests").ForEach(func(_, r gjson.Result) bool {
		methods = append(methods, r.Get("method").String())
		return true
	})
	if len(methods) > 0 {
		return verdict(id, Modern, declaredInputs, Fail, x, tool+" called with no input capability declared asked for "+strings.Join(methods, ", "))
	}
	return verdict(id, Modern, declaredInputs, Pass, x, tool+" called with no input capability declared answered input_required with no inputRequests")
}

// declaredInputsRun calls the input_required tool again, declaring no
// input capability.
func (s *session) declaredInputsRun(version, tool, members string) Verdict {
	s.o.say("tools/call " + tool + " declaring no input capability")
	x, _ := s.windowed("tools/call", members, s.metaFor(version, noInputCaps, ""), bound(members)+" (no input capability declared)", "")
	return JudgeDeclaredInputs(tool, x)
}
