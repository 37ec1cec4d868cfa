// Package mrtr answers the 2026-07-28 multi round-trip requests
// (basic/patterns/mrtr): a result with resultType "input_required" names
// what the server needs in inputRequests, and the client retries the
// same request with inputResponses and the requestState echoed. check
// answers them to judge the round trip; call, read and prompt to finish
// the request a user made. One answering rule for both.
package mrtr

import (
	"encoding/json"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// MaxRounds bounds the retries of one request: a server decides how often
// it asks again, and each round is a request mcpprobe sends.
const MaxRounds = 8

// maxRequests bounds the input requests answered in one round: a server
// decides how many it names.
const maxRequests = 64

// Answer is one input request and what mcpprobe answered it with.
type Answer struct {
	Key    string // its key in inputRequests, as sent
	Method string // elicitation/create, sampling/createMessage, roots/list
	// By says where the answer came from: the user's flag (--elicit,
	// --sampling-reply, --root), or what mcpprobe built.
	By string
	// Response is the raw JSON sent for it; nil when it was left
	// unanswered (a method mcpprobe does not know).
	Response []byte
}

// Input is an input_required result read: the requests, the state to echo.
type Input struct {
	Requests gjson.Result // the inputRequests object, as sent
	// State is the requestState as sent (raw JSON), "" when absent or
	// not a string, in which case the retry carries none.
	State string
}

// Read reads an input_required result; ok false for any other result.
func Read(result []byte) (Input, bool) {
	res := gjson.ParseBytes(result)
	if res.Get("resultType").String() != "input_required" {
		return Input{}, false
	}
	in := Input{Requests: res.Get("inputRequests")}
	if st := res.Get("requestState"); st.Type == gjson.String {
		in.State = st.Raw
	}
	return in, true
}

// Retry is the members of the retry: the request's own members, the
// responses and the state echoed, byte for byte as the server sent it.
func (in Input) Retry(members, responses string) string {
	if members != "" {
		members += ","
	}
	members += `"inputResponses":` + responses
	if in.State != "" {
		members += `,"requestState":` + in.State
	}
	return members
}

// Responses answers each input request: with a (the user's --elicit,
// --sampling-reply, --root), where it answers that method, described by
// describe; else an elicitation accepted with its requestedSchema's
// defaults and the smallest values its required fields take
// (FormContent), a sampling request with a short
// text, a roots request with no roots. A method mcpprobe does not know is
// left unanswered, and said so. a and describe may be nil.
func Responses(reqs gjson.Result, a probe.Answerer, describe func(method string) string) (string, []Answer) {
	var parts []string
	var answers []Answer
	reqs.ForEach(func(k, v gjson.Result) bool {
		if len(answers) >= maxRequests {
			return false
		}
		method := v.Get("method").String()
		ans := Answer{Key: k.String(), Method: method}
		if a != nil {
			if res, ok := a(method, []byte(v.Get("params").Raw)); ok {
				ans.Response, ans.By = res, "the user's reply"
				if describe != nil {
					ans.By = describe(method)
				}
			}
		}
		if ans.Response == nil {
			switch method {
			case "elicitation/create":
				ans.Response = []byte(`{"action":"accept","content":` + string(FormContent([]byte(v.Get("params.requestedSchema").Raw))) + `}`)
				ans.By = "accepted with values built from the requested schema"
			case "sampling/createMessage":
				ans.Response = []byte(`{"role":"assistant","content":{"type":"text","text":"mcpprobe"},"model":"mcpprobe","stopReason":"endTurn"}`)
				ans.By = "a short text mcpprobe wrote"
			case "roots/list":
				ans.Response = []byte(`{"roots":[]}`)
				ans.By = "no roots"
			default:
				ans.By = "not answered: mcpprobe does not know this method"
			}
		}
		if ans.Response != nil {
			parts = append(parts, quote(ans.Key)+":"+string(ans.Response))
		}
		answers = append(answers, ans)
		return true
	})
	return "{" + strings.Join(parts, ",") + "}", answers
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
