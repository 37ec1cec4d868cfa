package faults

import "testing"

func TestCrash(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize"}`
	tests := []struct {
		name   string
		v      Values
		script []string
		want   []string
		notes  []string
	}{
		{"killed once call 2 reached the server; its raced reply is discarded", Values{"crash-at": "2"},
			[]string{"> " + call(1, "a"), "< " + reply(1), "> " + call(2, "b"), "< " + reply(2)},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b")), "KILL"},
			[]string{"2: server process group killed while handling call 2 (b)", "2: reply dropped (call 2)"}},
		{"a request that is not a tools/call is not counted", Values{"crash-at": "1"},
			[]string{"> " + init, "> " + call(1, "a")},
			[]string{sent("S", init), sent("S", call(1, "a")), "KILL"},
			[]string{"1: server process group killed while handling call 1 (a)"}},
		{"by tool name", Values{"crash-at": "tool:b"},
			[]string{"> " + call(1, "a"), "< " + reply(1), "> " + call(2, "b")},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b")), "KILL"},
			[]string{"2: server process group killed while handling call 2 (b)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Anywhere, tc.v, 1)
			diffLog(t, r.play(tc.script...), tc.want)
			diffLog(t, r.notes(), tc.notes)
		})
	}
}
