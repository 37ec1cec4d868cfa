package mrtr

import (
	"bytes"
	"encoding/json"

	"github.com/mcpprobe/mcpprobe/probe/args"
	"github.com/tidwall/gjson"
)

// ClauseFormDefaults is what a form answer follows.
const ClauseFormDefaults = `MCP 2025-11-25 client/elicitation (SEP-1034): "Clients that support defaults SHOULD pre-populate form fields with these values"`

// maxFormBytes bounds a form answer: the requested schema is the
// server's, and so are its defaults.
const maxFormBytes = 64 << 10

// maxFormFields bounds the fields read from a requested schema.
const maxFormFields = 256

// FormContent is what a host's form holds when the user accepts it as
// shown: every property the requested schema gives a default, at that
// default (ClauseFormDefaults), then each required property without one
// at the smallest value it takes (probe/args), in the schema's order.
// A default that would take the answer past its bound is left out; what
// is not a JSON object is answered with the smallest content.
func FormContent(schema []byte) []byte {
	minimal := args.MinimalArgs(schema)
	built := map[string]string{}
	var order []string
	gjson.ParseBytes(minimal).ForEach(func(k, v gjson.Result) bool {
		built[k.String()] = v.Raw
		order = append(order, k.String())
		return true
	})
	var b bytes.Buffer
	b.WriteByte('{')
	seen := map[string]bool{}
	add := func(k, raw string) {
		key, _ := json.Marshal(k)
		if seen[k] || b.Len()+len(key)+len(raw)+2 > maxFormBytes || !json.Valid([]byte(raw)) {
			return
		}
		seen[k] = true
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.WriteString(raw)
	}
	n := 0
	gjson.GetBytes(schema, "properties").ForEach(func(k, v gjson.Result) bool {
		if n++; n > maxFormFields {
			return false
		}
		if d := v.Get("default"); d.Exists() {
			add(k.String(), d.Raw)
		} else if raw, ok := built[k.String()]; ok {
			add(k.String(), raw)
		}
		return true
	})
	for _, k := range order {
		add(k, built[k])
	}
	b.WriteByte('}')
	if !json.Valid(b.Bytes()) {
		return minimal
	}
	return b.Bytes()
}
