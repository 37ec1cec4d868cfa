package check

import (
	"strings"
	"testing"
)

// Each case is a server bug (or its absence) injected into the answer.
func TestJudgeReadUnknown(t *testing.T) {
	caps := []byte(`{"resources":{}}`)
	withData := rpcErr(-32602)
	withData.Err.Data = []byte(`{"uri":"` + unknownURI + `"}`)
	for _, tc := range []struct {
		name    string
		caps    []byte
		x       Exchange
		outcome string
	}{
		{"-32602", caps, withData, Pass},
		{"-32002, the older code", caps, rpcErr(-32002), Fail},
		{"-32601", caps, rpcErr(-32601), Fail},
		{"empty contents", caps, res(`{"resultType":"complete","contents":[]}`), Fail},
		{"no contents at all", caps, res(`{"resultType":"complete"}`), Fail},
		{"contents for an unlisted uri", caps, res(`{"resultType":"complete","contents":[{"uri":"x","text":"y"}]}`), Observed},
		{"input_required", caps, res(`{"resultType":"input_required","requestState":"s"}`), Observed},
		{"server ended", caps, Exchange{Method: "resources/read", NoReply: "closed"}, Fail},
		{"slow", caps, Exchange{Method: "resources/read", NoReply: "timeout"}, Warn},
		{"resources not declared", []byte(`{"tools":{}}`), rpcErr(-32601), NotApplicable},
	} {
		v := JudgeReadUnknown(tc.caps, tc.x)
		if v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
		if v.ID != IDReadUnknown || v.Era != Modern {
			t.Errorf("%s: verdict %s/%s", tc.name, v.ID, v.Era)
		}
	}
}

func TestJudgeInputRequiredPlaces(t *testing.T) {
	at := func(method, result string) Exchange {
		x := res(result)
		x.Method = method
		return x
	}
	ir := `{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`
	done := `{"resultType":"complete"}`
	for _, tc := range []struct {
		name    string
		xs      []Exchange
		outcome string
		names   string
	}{
		{"lists complete", []Exchange{at("tools/list", done), at("prompts/list", done)}, Pass, "tools/list, prompts/list"},
		{"input_required on tools/call", []Exchange{at("tools/list", done), at("tools/call", ir), at("prompts/get", ir), at("resources/read", ir)}, Pass, "tools/list"},
		{"input_required on tools/list", []Exchange{at("tools/list", ir)}, Fail, "tools/list"},
		{"input_required on server/discover", []Exchange{at("tools/call", ir), at("server/discover", ir)}, Fail, "server/discover"},
		{"tasks are the extension's", []Exchange{at("tasks/get", ir), at("tools/list", done)}, Pass, "tools/list"},
		{"errors only", []Exchange{rpcErr(-32601), at("tools/call", ir)}, Inconclusive, ""},
	} {
		v := JudgeInputRequiredPlaces(tc.xs)
		if v.Outcome != tc.outcome {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Why, tc.outcome)
		}
		if !strings.Contains(v.Why, tc.names) {
			t.Errorf("%s: %q does not name %q", tc.name, v.Why, tc.names)
		}
	}
}
