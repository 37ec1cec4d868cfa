package jsonout

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpprobe/mcpprobe/transport"
)

// TestMarshalFastPath: the scalars marshal writes itself come out as
// encoding/json writes them.
func TestMarshalFastPath(t *testing.T) {
	for _, v := range []any{"", "tool_0001", "a b <c> & d", "quote\"", `back\slash`, "tab\t", "é", "\x7f", 0, -12, int64(1) << 40, true, false, nil} {
		got := string(marshal(v))
		var want string
		switch x := v.(type) {
		case string:
			want = string(marshalSlow(x))
		default:
			want = string(marshalSlow(v))
		}
		if got != want {
			t.Errorf("marshal(%#v) = %s, want %s", v, got, want)
		}
	}
}

// marshalSlow is marshal through encoding/json alone.
func marshalSlow(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	out, _ := transport.EscapeInvisible(bytes.TrimRight(b.Bytes(), "\n"))
	return out
}
