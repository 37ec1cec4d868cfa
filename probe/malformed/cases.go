// Package malformed sends calls a server should refuse, one at a time,
// each followed by a health check, and classifies which channel answered:
// an isError result reaches the model, a JSON-RPC error never does.
package malformed

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/bench"
	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/tidwall/gjson"
)

// Case is one malformed call.
type Case struct {
	Name string // "wrong type"
	Tool string // "" for protocol-level cases
	// Frame builds the bytes to send with the given request id (raw JSON).
	Frame func(id string) []byte
	// ID is false for frames that carry no usable id (invalid JSON, a
	// notification): the answer, if any, cannot be matched.
	NoID bool
	// Fresh: the case needs a server that has not shaken hands.
	Fresh bool
	// Expect is what the spec asks for; see Expected.
	Expect Expectation
}

// Expectation is the channel (and code) the spec asks for.
type Expectation struct {
	Channel string // ok, is_error, rpc_error, no_answer, answered (any answer), skip
	Code    int64  // for rpc_error; 0 means any code
	Why     string
}

func (e Expectation) String() string {
	if e.Channel == "rpc_error" && e.Code != 0 {
		return fmt.Sprintf("rpc_error %d", e.Code)
	}
	return e.Channel
}

// inputError is what a schema violation must get: from 2025-11-25 a
// tool execution error (isError), so the model can correct itself;
// before, a JSON-RPC error -32602.
func inputError(version string) Expectation {
	if version >= "2025-11-25" {
		return Expectation{Channel: "is_error", Why: "2025-11-25: input validation errors are tool execution errors (isError), so the model can fix its call"}
	}
	return Expectation{Channel: "rpc_error", Code: -32602, Why: "before 2025-11-25: invalid arguments are a protocol error -32602"}
}

// call builds a tools/call frame; meta is the modern era's _meta, or "".
func call(tool string, args []byte, meta string) func(id string) []byte {
	return func(id string) []byte {
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":`)
		b.Write(canon.String(tool))
		if args != nil {
			b.WriteString(`,"arguments":`)
			b.Write(args)
		}
		if meta != "" {
			b.WriteString(`,"_meta":` + meta)
		}
		b.WriteString(`}}`)
		return b.Bytes()
	}
}

// ToolCases derives cases from one tool's input schema. Arguments start
// from the minimal valid ones and break one rule each.
func ToolCases(tool []byte, version, meta string) []Case {
	v := gjson.ParseBytes(tool)
	name := v.Get("name").String()
	schema := v.Get("inputSchema")
	base := gjson.ParseBytes(bench.MinimalArgs([]byte(schema.Raw)))
	props := schema.Get("properties")
	with := func(key, value string) []byte { return setMember(base, key, value) }
	var cases []Case
	add := func(n string, args []byte, e Expectation) {
		cases = append(cases, Case{Name: n, Tool: name, Frame: call(name, args, meta), Expect: e})
	}
	props.ForEach(func(k, p gjson.Result) bool {
		if wrong := wrongType(p); wrong != "" {
			add("wrong type ("+k.String()+")", with(k.String(), wrong), inputError(version))
			return false
		}
		return true
	})
	for _, r := range schema.Get("required").Array() {
		add("missing required ("+r.String()+")", without(base, r.String()), inputError(version))
		break
	}
	props.ForEach(func(k, p gjson.Result) bool {
		if max := p.Get("maximum"); max.Type == gjson.Number {
			add("out of range ("+k.String()+")", with(k.String(), canon.Number(fmt.Sprint(max.Float()+1))), inputError(version))
			return false
		}
		if min := p.Get("minimum"); min.Type == gjson.Number {
			add("out of range ("+k.String()+")", with(k.String(), canon.Number(fmt.Sprint(min.Float()-1))), inputError(version))
			return false
		}
		return true
	})
	props.ForEach(func(k, p gjson.Result) bool {
		for _, e := range p.Get("enum").Array() {
			if e.Type == gjson.String && strings.ToUpper(e.String()) != e.String() {
				add("wrong-case enum ("+k.String()+")", with(k.String(), string(canon.String(strings.ToUpper(e.String())))), inputError(version))
				return false
			}
		}
		return true
	})
	props.ForEach(func(k, p gjson.Result) bool {
		if p.Get("type").String() == "integer" {
			add("fractional integer ("+k.String()+")", with(k.String(), "1.5"), inputError(version))
			return false
		}
		return true
	})
	unknown := Expectation{Channel: "ok", Why: "the schema allows other properties (no additionalProperties: false)"}
	if ap := schema.Get("additionalProperties"); ap.Type == gjson.False {
		unknown = inputError(version)
		unknown.Why = "the schema says additionalProperties: false; " + unknown.Why
	}
	add("unknown property", with("mcpprobe_unknown", "1"), unknown)
	nullArgs := inputError(version)
	nullArgs.Why = "arguments must be an object; " + nullArgs.Why
	add("arguments: null", []byte("null"), nullArgs)
	return cases
}

// wrongType is a value of another type than the property's.
func wrongType(p gjson.Result) string {
	switch p.Get("type").String() {
	case "string":
		return "12345"
	case "integer", "number":
		return `"not a number"`
	case "boolean":
		return `"yes"`
	case "array":
		return `{"not":"an array"}`
	case "object":
		return `"not an object"`
	}
	return ""
}

// setMember returns obj with key set to the raw value.
func setMember(obj gjson.Result, key, value string) []byte {
	return rebuild(obj, key, func(b *bytes.Buffer, n int) {
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(canon.String(key))
		b.WriteByte(':')
		b.WriteString(value)
	})
}

func without(obj gjson.Result, key string) []byte {
	return rebuild(obj, key, func(*bytes.Buffer, int) {})
}

// rebuild copies obj's members but key, then lets tail add to it (n is
// the number of members written).
func rebuild(obj gjson.Result, key string, tail func(b *bytes.Buffer, n int)) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.String() == key {
			return true
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(canon.String(k.String()))
		b.WriteByte(':')
		b.WriteString(v.Raw)
		return true
	})
	tail(&b, n)
	b.WriteByte('}')
	return b.Bytes()
}

// ProtocolCases are bad frames at the JSON-RPC and MCP level. A tool, if
// any, carries the big and deep arguments.
func ProtocolCases(version, meta, tool string) []Case {
	modern := meta != ""
	params := func(members string) string {
		if modern {
			if members != "" {
				members += ","
			}
			return `{` + members + `"_meta":` + meta + `}`
		}
		return `{` + members + `}`
	}
	cases := []Case{
		{Name: "unknown tool", Frame: call("mcpprobe_no_such_tool", []byte("{}"), meta),
			Expect: Expectation{Channel: "rpc_error", Code: -32602, Why: "an unknown tool is a protocol error (-32602)"}},
		{Name: "invalid JSON", NoID: true, Frame: func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`)
		}, Expect: Expectation{Channel: "rpc_error", Code: -32700, Why: "JSON-RPC 2.0: a parse error is -32700, with id null"}},
		{Name: "missing method", Frame: func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + id + `}`) },
			Expect: Expectation{Channel: "rpc_error", Code: -32600, Why: "JSON-RPC 2.0: an invalid request is -32600"}},
		{Name: "unknown method", Frame: func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"mcpprobe/no-such-method","params":` + params("") + `}`)
		}, Expect: Expectation{Channel: "rpc_error", Code: -32601, Why: "JSON-RPC 2.0: method not found is -32601"}},
		{Name: "bad cursor", Frame: func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params(`"cursor":"mcpprobe-not-a-cursor"`) + `}`)
		}, Expect: Expectation{Channel: "rpc_error", Code: -32602, Why: "pagination: an invalid cursor is -32602"}},
		{Name: "cancel an unknown id", NoID: true, Frame: func(string) []byte {
			return []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpprobe-never-sent","reason":"test"}}`)
		}, Expect: Expectation{Channel: "no_answer", Why: "a notification gets no answer; the cancellation of an unknown request is ignored"}},
	}
	batch := Expectation{Channel: "rpc_error", Why: "batching was removed in 2025-06-18"}
	if version < "2025-06-18" && !modern {
		batch = Expectation{Channel: "ok", Why: "2025-03-26 and earlier accept batches"}
	}
	cases = append(cases, Case{Name: "batch", Frame: func(id string) []byte {
		return []byte(`[{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params("") + `}]`)
	}, Expect: batch})
	if !modern {
		cases = append(cases,
			Case{Name: "second initialize", Frame: func(id string) []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"mcpprobe","version":"malformed"}}}`)
			}, Expect: Expectation{Channel: "rpc_error", Why: "a session is initialized once"}},
			Case{Name: "request before initialize", Fresh: true, Frame: func(id string) []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
			}, Expect: Expectation{Channel: "rpc_error", Why: "before initialize a server answers nothing but ping (an error, implementation-defined)"}},
		)
	}
	if tool != "" {
		big := `{"mcpprobe_big":"` + strings.Repeat("x", 1<<20) + `"}`
		deep := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
		cases = append(cases,
			Case{Name: "1 MB string", Tool: tool, Frame: call(tool, []byte(big), meta), Expect: Expectation{Channel: "answered", Why: "any answer; no crash, no hang"}},
			Case{Name: "100-deep nesting", Tool: tool, Frame: call(tool, []byte(`{"mcpprobe_deep":`+deep+`}`), meta), Expect: Expectation{Channel: "answered", Why: "any answer; no crash, no hang"}},
		)
	}
	return cases
}
