package check

// mrtr.supported-requests: the requests a 2026-07-28 server may answer with
// an InputRequiredResult (the official suite's
// input-required-result-unsupported-methods scenario judges the same
// sentence), judged over every result of the era's session.

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// IDInputRequiredPlaces is the check's stable id.
const IDInputRequiredPlaces = "mrtr.supported-requests"

var inputRequiredPlaces = &Clause{Version: v2, URL: spec2 + "basic/patterns/mrtr#supported-requests", Keyword: "MUST", Binds: "server",
	Text: "Servers MAY send `InputRequiredResult` responses on the following client requests: `prompts/get`, `resources/read`, `tools/call`. Servers MUST NOT send `InputRequiredResult` responses on any other client requests."}

// mayRequireInput are the requests the clause lets a server answer
// input_required. tasks/* are the tasks extension's, which the extension's
// own text governs (tasks.extension-shape), so they are not judged here.
var mayRequireInput = map[string]bool{"prompts/get": true, "resources/read": true, "tools/call": true}

func requiredPlacesChecks() []Check {
	return []Check{{ID: IDInputRequiredPlaces, Title: "input_required only answers tools/call, prompts/get and resources/read", Eras: []string{Modern}, Transports: anyTransport,
		Clauses: map[string]*Clause{Modern: inputRequiredPlaces},
		NotIn:   map[string]string{Legacy: "input_required results are " + modernOnly}}}
}

// JudgeInputRequiredPlaces fails the first result of a request the clause
// does not list that says resultType "input_required".
func JudgeInputRequiredPlaces(xs []Exchange) Verdict {
	const id = IDInputRequiredPlaces
	n := 0
	var methods []string
	seen := map[string]bool{}
	for _, x := range xs {
		if x.Result == nil || mayRequireInput[x.Method] || strings.HasPrefix(x.Method, "tasks/") {
			continue
		}
		n++
		if !seen[x.Method] {
			seen[x.Method] = true
			methods = append(methods, x.Method)
		}
		if gjson.GetBytes(x.Result, "resultType").String() == "input_required" {
			return verdict(id, Modern, inputRequiredPlaces, Fail, x, "the result of "+x.Method+" is input_required, which only tools/call, prompts/get and resources/read may be")
		}
	}
	if n == 0 {
		return inconclusive(id, Modern, inputRequiredPlaces, "no request other than tools/call, prompts/get and resources/read got a result")
	}
	return Verdict{ID: id, Era: Modern, Clause: inputRequiredPlaces, Outcome: Pass, Why: fmt.Sprintf("none of the %d results of %s is input_required", n, strings.Join(methods, ", "))}
}
