//go:build e2e

package main

// elicitation/create during a call, without --elicit: accepted as a
// host's form is submitted as shown, pre-filled with the requested
// schema's defaults (2025-11-25 client/elicitation, SEP-1034), as
// input_required is answered; the output says what was sent, with the
// clause. With --elicit, the user's answer goes as given.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestCallElicitDefaults(t *testing.T) {
	t.Parallel()
	const content = `{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}`
	for _, tc := range []struct {
		name   string
		flags  []string
		answer string // the result sent to the request "form"
		by     string // the event's answer starts with it
	}{
		{"defaults", nil, `{"action":"accept","content":` + content + `}`, "accepted with values built from the requested schema"},
		{"--elicit decline", []string{"--elicit", "decline"}, `{"action":"decline"}`, "answered decline (--elicit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			trace := filepath.Join(t.TempDir(), "t.jsonl")
			args := append(append([]string{"--trace", trace}, tc.flags...), "call", "--", bin.raw, "-elicit-defaults")
			v := callJSON(t, 0, "call", args...)
			ev := v.Get(`call.events.#(method=="elicitation/create")`)
			ans := ev.Get("answer").String()
			if !strings.HasPrefix(ans, tc.by) {
				t.Errorf("the event's answer %q, want it to start %q", ans, tc.by)
			}
			if tc.flags == nil && (!strings.Contains(ans, "SEP-1034") || !strings.HasSuffix(ans, content)) {
				t.Errorf("the event's answer %q names no clause or not the content sent", ans)
			}
			var sent string
			for _, f := range readTrace(t, trace) {
				if m := gjson.Parse(f.Raw); f.Dir == "send" && m.Get("id").String() == "form" {
					sent = m.Get("result").Raw
				}
				if m := gjson.Parse(f.Raw); f.Dir == "send" && m.Get("method").String() == "initialize" && !m.Get("params.capabilities.elicitation").Exists() {
					t.Errorf("initialize declares no elicitation: %s", m.Get("params.capabilities").Raw)
				}
			}
			if sent != tc.answer {
				t.Errorf("sent %s to the elicitation, want %s", sent, tc.answer)
			}
			if tc.flags == nil {
				text := mcpprobe(t, "call", "call", "--", bin.raw, "-elicit-defaults")
				if !strings.Contains(text.stdout, "John Doe") {
					t.Errorf("the text output does not say what was answered:\n%s", text.stdout)
				}
			}
		})
	}
}
