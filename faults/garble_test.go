package faults

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestGarble(t *testing.T) {
	// Past the middle of the line, the first three of " { : , become 0x7f.
	garbled := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content` + "\x7f\x7f[\x7f" + `"type":"text","text":"ok"}]}}`
	}
	tests := []struct {
		name  string
		v     Values
		want  []string
		notes []string
	}{
		{"the reply to call 1", Values{"garble-at": "1"},
			[]string{sent("S", call(1, "a")), sent("C", garbled("1")), sent("S", call(2, "b")), sent("C", reply(2))},
			[]string{"1: reply 1 garbled"}},
		{"every call of b", Values{"garble-at": "tool:b"},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b")), sent("C", garbled("2"))},
			[]string{"2: reply 2 garbled"}},
		{"a call that never comes", Values{"garble-at": "3"},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b")), sent("C", reply(2))},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Anywhere, tc.v, 1)
			diffLog(t, r.play("> "+call(1, "a"), "< "+reply(1), "> "+call(2, "b"), "< "+reply(2)), tc.want)
			diffLog(t, r.notes(), tc.notes)
		})
	}
}

func TestGarbledBreaksJSON(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	out := garbled(in)
	if string(out) == string(in) || len(out) != len(in) {
		t.Fatalf("garbled = %q", out)
	}
	if gjson.ValidBytes(out) {
		t.Errorf("a garbled reply still parses: %q", out)
	}
}
