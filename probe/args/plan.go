package args

import (
	"fmt"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
)

// Call is one tool to call with its arguments; nil Args are built from
// the tool's input schema when the calls are planned.
type Call struct {
	Tool string
	Args []byte
}

// Plan picks the calls: those named, or (with auto) every tool annotated
// read-only, with minimal arguments from its input schema where none were
// given. Other tools are called only when named: a benchmark or a fault
// run must not write. skipped lists the tools auto left out, and why.
func Plan(c *probe.Capture, named []Call, auto bool) (calls []Call, skipped []string, err error) {
	tools := map[string][]byte{}
	var order []string
	for _, raw := range c.Tools.Items {
		name := gjson.GetBytes(raw, "name").String()
		tools[name] = raw
		order = append(order, name)
	}
	for _, call := range named {
		raw, ok := tools[call.Tool]
		if !ok {
			return nil, nil, fmt.Errorf("the server has no tool %q; it has: %s", call.Tool, strings.Join(order, ", "))
		}
		if call.Args == nil {
			call.Args = ForTool(raw)
		}
		calls = append(calls, call)
	}
	if !auto {
		return calls, nil, nil
	}
	for _, name := range order {
		raw := tools[name]
		if !ReadOnly(raw) {
			skipped = append(skipped, name+" ("+NotReadOnly+")")
			continue
		}
		calls = append(calls, Call{Tool: name, Args: ForTool(raw)})
	}
	return calls, skipped, nil
}

// NotReadOnly is why Plan skips a tool; what to do about it (name the
// tool with --call) is said once by whoever shows the list, not once per
// tool.
const NotReadOnly = "not annotated readOnlyHint"

// ForTool is MinimalArgs of a raw tool definition's inputSchema.
func ForTool(tool []byte) []byte {
	return MinimalArgs([]byte(gjson.GetBytes(tool, "inputSchema").Raw))
}

// ReadOnly says whether a raw tool definition may be called without
// being named: the consent rule (Consented), which asks more than a
// truthy readOnlyHint.
func ReadOnly(tool []byte) bool {
	ok, _ := Consented(tool)
	return ok
}
