package args

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

func TestPlan(t *testing.T) {
	c := &probe.Capture{}
	c.Tools.Items = [][]byte{
		[]byte(`{"name":"get","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`),
		[]byte(`{"name":"put","inputSchema":{"type":"object"}}`),
		[]byte(`{"name":"list","annotations":{"readOnlyHint":true}}`),
	}
	tests := []struct {
		name        string
		named       []Call
		auto        bool
		want        []Call
		wantSkipped []string
		err         string
	}{
		{"auto: the read-only tools, minimal arguments", nil, true,
			[]Call{{"get", []byte(`{"id":"a"}`)}, {"list", []byte(`{}`)}},
			[]string{"put (not annotated readOnlyHint)"}, ""},
		{"named: its own arguments kept, the rest built", []Call{{"put", []byte(`{"v":1}`)}, {Tool: "get"}}, false,
			[]Call{{"put", []byte(`{"v":1}`)}, {"get", []byte(`{"id":"a"}`)}}, nil, ""},
		{"a tool the server lacks", []Call{{Tool: "nope"}}, false, nil, nil, `the server has no tool "nope"; it has: get, put, list`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped, err := Plan(c, tc.named, tc.auto)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Plan error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(skipped, tc.wantSkipped) {
				t.Fatalf("Plan = %q, %q, %v; want %q, %q", got, skipped, err, tc.want, tc.wantSkipped)
			}
		})
	}
}
