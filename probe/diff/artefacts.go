package diff

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Known artefacts of the MCP SDKs: what they add or change on the way out,
// measured on the TypeScript SDK 1.32 (McpServer with zod 4) and the Go
// SDK 1.8 (schemas inferred from structs). Each explains a change so that
// an author can tell their own edit from their SDK's.
func explain(c Change, refFormat string) string {
	last := c.Path[strings.LastIndexAny(c.Path, ".[")+1:]
	newV := gjson.ParseBytes(c.New)
	oldV := gjson.ParseBytes(c.Old)
	switch {
	case (last == "minimum" || last == "maximum") && (c.Kind == "added" || c.Kind == "changed") &&
		(newV.Raw == "-9007199254740991" || newV.Raw == "9007199254740991"):
		return "SDK artefact: zod's .int() bounds every integer by ±9007199254740991 (Number.MAX_SAFE_INTEGER), the TypeScript SDK's McpServer sends it; not a real bound"
	case last == "$schema" && c.Kind == "added":
		return "SDK artefact: the TypeScript SDK's McpServer adds \"$schema\" (JSON Schema draft-07) to every schema it generates, first on the wire"
	case strings.HasSuffix(c.Path, ".execution") && c.Kind == "added" || strings.HasSuffix(c.Path, ".execution.taskSupport"):
		return "SDK artefact: the TypeScript SDK's McpServer adds execution: {taskSupport: \"forbidden\"} to every tool (tasks, 2025-11-25)"
	case last == "additionalProperties" && c.Kind == "added" && newV.Type == gjson.False:
		return "SDK artefact: the Go SDK's schema inference (and zod's strict objects) close every object with additionalProperties: false; a model may no longer send extra properties"
	case last == "required" && c.Kind == "removed" && oldV.IsArray() && len(oldV.Array()) == 0:
		return "SDK artefact: zod leaves out \"required\" when no property is required; an empty required list means the same"
	case strings.Contains(c.Path, ".annotations.") && strings.HasSuffix(last, "Hint") && c.Kind == "added" && newV.Type == gjson.False:
		return "SDK artefact: the Go SDK writes readOnlyHint and idempotentHint even when false (plain bools); false is their default, so the meaning is unchanged"
	case last == "type" && c.Kind == "changed" && newV.IsArray() && strings.Contains(newV.Raw, `"null"`):
		return "SDK artefact: the Go SDK types a slice or pointer as nullable ([\"null\", …]); a model may send null"
	case c.Kind == "order" && strings.HasSuffix(c.Path, "tools"):
		return ""
	case c.Kind == "order":
		return "key order only: SDKs write keys in their own order (the TypeScript SDK puts description after type, enum, items and properties; the Go SDK writes a tool's fields in its struct's order, name after inputSchema); JSON objects are unordered, but snapshots, caches and reviews see it"
	case c.Kind == "added" && c.Part == PartTools && refFormat != "" && !strings.HasPrefix(refFormat, "mcp") && !strings.HasPrefix(refFormat, "mcpprobe") && refFormat != "jsonrpc-response" && isMCPOnly(c.Path):
		return "MCP-only field: " + formatLabel(refFormat) + " definitions cannot carry it"
	}
	return ""
}

// isMCPOnly: fields of an MCP tool that Anthropic and OpenAI definitions
// have no place for.
func isMCPOnly(path string) bool {
	parts := strings.Split(path, ".")
	if len(parts) != 2 {
		return false
	}
	switch parts[1] {
	case "title", "annotations", "outputSchema", "_meta", "icons", "execution":
		return true
	}
	return false
}

func formatLabel(f string) string {
	switch {
	case strings.HasPrefix(f, "anthropic"):
		return "Anthropic"
	case strings.HasPrefix(f, "openai"):
		return "OpenAI"
	}
	return f
}
