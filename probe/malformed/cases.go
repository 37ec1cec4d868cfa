// Package malformed sends calls a server should refuse, one at a time,
// each followed by a health check, and classifies which channel answered
// (an isError result reaches the model, a JSON-RPC error never does). Each
// answer is judged by the text of the negotiated version (expect.go), and
// only after a valid baseline call to the tool worked.
package malformed

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/args"
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
	// Notification: the frame is a JSON-RPC notification, which over
	// Streamable HTTP is owed 202 Accepted with no body, or an HTTP error.
	Notification bool
	// Fresh: the case needs a server that has not shaken hands.
	Fresh bool
	// Expect is what the negotiated version asks, with its clause.
	Expect Expectation
	// Baseline: the valid call a tool gets before its cases, with Args.
	Baseline bool
	Args     []byte
	// ClosedSchema: the case is an unknown property on a schema with
	// additionalProperties: false (an SDK may strip it; see sdk.go).
	ClosedSchema bool
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

// BaselineArgs are the arguments of a tool's baseline call: valid ones
// built from its input schema.
func BaselineArgs(tool []byte) []byte {
	return args.ForTool(tool)
}

// BaselineCase is the valid call made to a tool before its cases.
func BaselineCase(tool string, args []byte, meta string) Case {
	return Case{Name: "baseline (valid call)", Tool: tool, Frame: call(tool, args, meta), Expect: baselineExpect(), Baseline: true, Args: args}
}

// ToolCases derives cases from one tool's input schema. Arguments start
// from args, the baseline's valid ones, and break one rule each.
func ToolCases(tool, args []byte, version, meta string) []Case {
	v := gjson.ParseBytes(tool)
	name := v.Get("name").String()
	schema := v.Get("inputSchema")
	base := gjson.ParseBytes(args)
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
		// A bound past float64 (1e999) has no number beyond it to send.
		if max := p.Get("maximum"); max.Type == gjson.Number && !math.IsInf(max.Float()+1, 0) {
			add("out of range ("+k.String()+")", with(k.String(), canon.Number(fmt.Sprint(max.Float()+1))), inputError(version))
			return false
		}
		if min := p.Get("minimum"); min.Type == gjson.Number && !math.IsInf(min.Float()-1, 0) {
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
	if ap := schema.Get("additionalProperties"); ap.Type == gjson.False {
		e := inputError(version)
		e.Why = "the schema says additionalProperties: false; " + e.Why
		add("unknown property", with("mcpprobe_unknown", "1"), e)
		cases[len(cases)-1].ClosedSchema = true
	} else {
		add("unknown property", with("mcpprobe_unknown", "1"), unknownOpen())
	}
	add("arguments: null", []byte("null"), nullArgs(version))
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

// Transports a session can run over, as ProtocolCasesOver takes them:
// each is judged by its own clauses.
const (
	OverStdio      = ""
	OverStreamable = "streamable" // Streamable HTTP
	OverSSE        = "sse"        // the 2024-11-05 HTTP+SSE transport
)

// ProtocolCases are bad frames at the JSON-RPC and MCP level. A tool, if
// any, carries the big and deep arguments; http says the session runs
// over Streamable HTTP, where 2026-07-28 asks more of an unknown method.
func ProtocolCases(version, meta, tool string, http bool) []Case {
	if http {
		return ProtocolCasesOver(version, meta, tool, OverStreamable)
	}
	return ProtocolCasesOver(version, meta, tool, OverStdio)
}

// ProtocolCasesOver is ProtocolCases for a session over the transport
// over (OverStdio, OverStreamable, OverSSE): the clauses a case cites
// are that transport's.
func ProtocolCasesOver(version, meta, tool, over string) []Case {
	http := over != OverStdio
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
		{Name: "unknown tool", Frame: call("mcpprobe_no_such_tool", []byte("{}"), meta), Expect: unknownTool(version)},
		{Name: "invalid JSON", NoID: true, Frame: func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`)
		}, Expect: invalidJSON(version, over)},
		{Name: "missing method", Frame: func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + id + `}`) },
			Expect: missingMethod(version, over)},
		{Name: "unknown method", Frame: func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"mcpprobe/no-such-method","params":` + params("") + `}`)
		}, Expect: unknownMethod(version, http)},
		{Name: "bad cursor", Frame: func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params(`"cursor":"mcpprobe-not-a-cursor"`) + `}`)
		}, Expect: badCursor(version)},
		{Name: "cancel an unknown id", NoID: true, Notification: true, Frame: func(string) []byte {
			return []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpprobe-never-sent","reason":"test"}}`)
		}, Expect: cancelUnknown(version)},
		{Name: "batch", Frame: func(id string) []byte {
			return []byte(`[{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params("") + `}]`)
		}, Expect: batch(version, over)},
	}
	if !modern {
		cases = append(cases,
			Case{Name: "second initialize", Frame: func(id string) []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"mcpprobe","version":"malformed"}}}`)
			}, Expect: secondInitialize(version)},
			Case{Name: "request before initialize", Fresh: true, Frame: func(id string) []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
			}, Expect: beforeInitialize(version)},
		)
	}
	if tool != "" {
		big := `{"mcpprobe_big":"` + strings.Repeat("x", 1<<20) + `"}`
		deep := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
		cases = append(cases,
			Case{Name: "1 MB string", Tool: tool, Frame: call(tool, []byte(big), meta), Expect: answered()},
			Case{Name: "100-deep nesting", Tool: tool, Frame: call(tool, []byte(`{"mcpprobe_deep":`+deep+`}`), meta), Expect: answered()},
		)
	}
	return cases
}
