// Package secparams reads what the Secure Parameters extension (SEP-3221,
// io.modelcontextprotocol/secure-params) adds to MCP: a secureInputSchema
// beside a tool's inputSchema, and the extension's declaration among
// capabilities. It is a leaf that only reads raw JSON, so the lint, the
// conformance check and the host budget judge one reading of a
// definition, not three.
package secparams

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Extension is the identifier clients and servers declare under
// capabilities.extensions.
const Extension = "io.modelcontextprotocol/secure-params"

// The text every verdict on the extension cites. No dated revision of the
// spec has it; the SEP was read at its pull request's head commit.
const (
	SEP = "SEP-3221 (draft, 2026-08-10)"
	URL = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/037503708d529dc4e71e1981ad5bb97f98e7f8ad/seps/3221-secure-parameters.md"
)

// Capabilities is a client capabilities object that declares the
// extension and nothing else.
const Capabilities = `{"extensions":{"` + Extension + `":{}}}`

// maxNames bounds the names a Def keeps of a schema a server controls.
const maxNames = 1000

// Def is what a tool definition says of secure parameters.
type Def struct {
	// Has: the tool carries a secureInputSchema member (of any type).
	Has bool
	// Shape says why secureInputSchema is not an object schema with
	// top-level "type": "object"; "" when it is (or is absent).
	Shape string
	// Secure are secureInputSchema's property names, in wire order.
	Secure []string
	// Required are the names its "required" lists, in wire order, once.
	Required []string
	// Overlap are the property names in both schemas, sorted.
	Overlap []string
}

// Read reads a raw tool definition.
func Read(tool []byte) Def {
	var d Def
	s := gjson.GetBytes(tool, "secureInputSchema")
	if !s.Exists() {
		return d
	}
	d.Has = true
	d.Shape = shape(s)
	if !s.IsObject() {
		return d
	}
	s.Get("properties").ForEach(func(k, _ gjson.Result) bool {
		d.Secure = append(d.Secure, k.String())
		return len(d.Secure) < maxNames
	})
	seen := map[string]bool{}
	for _, r := range s.Get("required").Array() {
		if r.Type == gjson.String && !seen[r.String()] && len(d.Required) < maxNames {
			seen[r.String()] = true
			d.Required = append(d.Required, r.String())
		}
	}
	model := map[string]bool{}
	gjson.GetBytes(tool, "inputSchema.properties").ForEach(func(k, _ gjson.Result) bool {
		model[k.String()] = true
		return len(model) < maxNames
	})
	both := map[string]bool{}
	for _, n := range d.Secure {
		if model[n] {
			both[n] = true
		}
	}
	for n := range both {
		d.Overlap = append(d.Overlap, n)
	}
	sort.Strings(d.Overlap)
	return d
}

// RequiresSecure reports whether the tool has a required secure
// parameter: the tools an un-negotiated client is not to be listed.
func (d Def) RequiresSecure() bool { return len(d.Required) > 0 }

func shape(s gjson.Result) string {
	switch {
	case !s.IsObject():
		return "secureInputSchema is " + kind(s) + ", not a JSON Schema object"
	case !s.Get("type").Exists():
		return `secureInputSchema has no "type"; its top level must be "type": "object"`
	case s.Get("type").Type != gjson.String || s.Get("type").String() != "object":
		return `secureInputSchema's "type" is ` + short(s.Get("type")) + `, not "object"`
	case s.Get("properties").Exists() && !s.Get("properties").IsObject():
		return `secureInputSchema's "properties" is ` + kind(s.Get("properties")) + ", not an object"
	case s.Get("required").Exists() && !stringArray(s.Get("required")):
		return `secureInputSchema's "required" is not an array of strings`
	}
	return ""
}

func stringArray(v gjson.Result) bool {
	if !v.IsArray() {
		return false
	}
	ok := true
	v.ForEach(func(_, x gjson.Result) bool {
		ok = x.Type == gjson.String
		return ok
	})
	return ok
}

func kind(v gjson.Result) string {
	switch {
	case v.Type == gjson.Null:
		return "null"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	case v.IsArray():
		return "an array"
	}
	return "an object"
}

// short is a string value quoted (control and format characters
// escaped) and cut, since it is the server's text; any other value is
// named by its kind.
func short(v gjson.Result) string {
	if v.Type != gjson.String {
		return kind(v)
	}
	t := v.String()
	if len(t) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		return strconv.Quote(t[:cut]) + "…"
	}
	return strconv.Quote(t)
}

// Declared reports whether a capabilities object (raw JSON, as a server
// answered it in initialize or server/discover) declares the extension:
// its member under "extensions" is an object.
func Declared(caps []byte) bool { return DeclaresExtension(caps, Extension) }

// DeclaresExtension reports whether a capabilities object declares the
// extension id (an object under "extensions"); ids hold dots and slashes,
// so they are compared, not used as a path.
func DeclaresExtension(caps []byte, id string) bool {
	found := false
	gjson.GetBytes(caps, "extensions").ForEach(func(k, v gjson.Result) bool {
		if k.String() == id && v.IsObject() {
			found = true
			return false
		}
		return true
	})
	return found
}
