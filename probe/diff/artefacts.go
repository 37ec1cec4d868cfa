package diff

import (
	"encoding/json"
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
		return orderNote(c)
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

// schemaKeywords are the keywords a schema generator writes for the type
// itself; where description falls among them tells how it was written.
var schemaKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "items": true, "properties": true, "required": true,
	"additionalProperties": true, "anyOf": true, "oneOf": true, "allOf": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
}

// descriptionAt says where description stands among the schema keywords
// of keys: "first" (before all of them), "last" (after all of them),
// "between", or "" when keys lack either.
func descriptionAt(keys []string) string {
	d, first, last := -1, -1, -1
	for i, key := range keys {
		switch {
		case key == "description" && d < 0:
			d = i
		case schemaKeywords[key]:
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	switch {
	case d < 0 || first < 0:
		return ""
	case d < first:
		return "first"
	case d > last:
		return "last"
	}
	return "between"
}

// orderNote explains a key-order change by the order the compared side
// wrote, and claims only what produces that order. Measured on zod 4's
// toJSONSchema (the TypeScript SDK's McpServer): description goes where
// .describe() was called. On the type itself (z.string().describe(…),
// then .optional() or not) it comes after the type's keywords; on the
// wrapper (z.string().optional().describe(…), .nullable().describe(…))
// it comes first. The Go SDK writes a tool's fields in its struct's
// order: annotations, description, inputSchema, name.
func orderNote(c Change) string {
	var was, now []string
	if json.Unmarshal(c.Old, &was) != nil || json.Unmarshal(c.New, &now) != nil {
		return "order only: the same elements in another order"
	}
	var why []string
	if c.Part == PartTools && c.Path == c.Item && before(now, "inputSchema", "name") {
		why = append(why, "the Go SDK writes a tool's fields in its struct's order, name after description and inputSchema")
	}
	if atNow, atWas := descriptionAt(now), descriptionAt(was); atNow != atWas && atWas != "" {
		switch atNow {
		case "first":
			why = append(why, "description first is what zod writes for .describe() called after .optional() or .nullable() (z.string().optional().describe(…)); .describe() called before them puts it last")
		case "last":
			why = append(why, "description after the type's keywords (type, enum, items, properties, bounds) is what zod writes for .describe() called on the type itself (z.string().describe(…).optional(), or a required field); .optional().describe(…) puts it first")
		}
	}
	note := "key order only"
	if len(why) > 0 {
		note += ": " + strings.Join(why, "; ")
	}
	return note + ". JSON objects are unordered, but snapshots, caches and reviews see it"
}

// before reports whether a comes before b in keys, both present.
func before(keys []string, a, b string) bool {
	ia, ib := -1, -1
	for i, k := range keys {
		if k == a {
			ia = i
		}
		if k == b {
			ib = i
		}
	}
	return ia >= 0 && ib >= 0 && ia < ib
}
