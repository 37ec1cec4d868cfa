package malformed

import (
	"regexp"
	"sync"

	"github.com/tidwall/gjson"
)

// The SDK notes explain an answer that an SDK, not the server's author,
// chose, as diff does for schema artefacts. They are heuristics: a server
// rarely names its SDK (the TypeScript SDK's serverInfo is the
// application's), so they read the shape of the answer and of the tool
// schemas, and each note says what it recognised. The verdict stays what
// the text makes it; the note says whose behaviour it is.

// tsUnknownTool is how the TypeScript SDK 1.x McpServer words an unknown
// tool inside an isError result: McpError's message, "MCP error <code>: …".
var tsUnknownTool = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^MCP error -32602: Tool \S+ not found`) })

const (
	noteTSUnknownTool = "TypeScript SDK 1.x behaviour, not the author's: its McpServer (1.21 and later) throws \"Tool … not found\" inside the block that turns tool errors into isError results; 2.x answers -32602 (recognised by the text \"MCP error -32602: Tool … not found\", a heuristic)"
	noteZodStrips     = "SDK behaviour, not the author's: zod, which the TypeScript SDK's McpServer validates arguments with, strips unknown keys before the handler runs, although the schema it publishes says additionalProperties: false (recognised by the draft-07 \"$schema\" zod-to-json-schema writes, a heuristic)"
)

// explainSDK sets the SDK note of each outcome an SDK's known behaviour
// explains.
func explainSDK(outs []Outcome, tools [][]byte) {
	zod := map[string]bool{}
	for _, t := range tools {
		if zodSchema(gjson.GetBytes(t, "inputSchema")) {
			zod[gjson.GetBytes(t, "name").String()] = true
		}
	}
	for i := range outs {
		o := &outs[i]
		switch {
		case o.Case == "unknown tool" && o.Channel == IsError && tsUnknownTool().MatchString(o.Message):
			o.SDK = noteTSUnknownTool
		case o.closedSchema && o.Channel == OK && zod[o.Tool]:
			o.SDK = noteZodStrips
		}
	}
}

// zodSchema: a schema as zod-to-json-schema writes it for the TypeScript
// SDK's McpServer, which puts the draft-07 "$schema" first.
func zodSchema(s gjson.Result) bool {
	return s.Get(`\$schema`).String() == "http://json-schema.org/draft-07/schema#"
}
