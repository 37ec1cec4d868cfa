package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/internal/jsonschema"
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/tidwall/gjson"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// BuildArgs merges --args JSON and --arg key=value pairs into one JSON
// object. A pair's value is typed by the property's schema: integer,
// number, boolean, object, array and null are read as JSON, anything
// else (string, or no schema) is the text as given. A pair overrides the
// same key of --args. The result keeps --args' own bytes when there is
// no pair, so what the user wrote is what is sent.
func BuildArgs(args []byte, pairs []string, schema []byte) ([]byte, error) {
	if args != nil {
		v := bytes.TrimSpace(args)
		if !json.Valid(v) || len(v) == 0 || v[0] != '{' {
			return nil, probe.Optionf("--args %q is not a JSON object", string(args))
		}
		if len(pairs) == 0 {
			return args, nil
		}
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	obj := map[string]json.RawMessage{}
	var order []string
	if args != nil {
		if err := json.Unmarshal(args, &obj); err != nil {
			return nil, probe.Optionf("--args: %v", err)
		}
		// A key given twice is written once, with the value a JSON
		// decoder keeps (the last).
		seen := map[string]bool{}
		for _, k := range gjsonKeys(args) {
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	props := gjson.GetBytes(schema, "properties")
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, probe.Optionf("--arg %q: want key=value", p)
		}
		raw, err := typed(k, v, props.Get(gjson.Escape(k)))
		if err != nil {
			return nil, err
		}
		if _, seen := obj[k]; !seen {
			order = append(order, k)
		}
		obj[k] = raw
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// typed reads one --arg value as its property's schema says.
func typed(key, value string, prop gjson.Result) (json.RawMessage, error) {
	types := map[string]bool{}
	t := prop.Get("type")
	if t.IsArray() {
		for _, x := range t.Array() {
			types[x.String()] = true
		}
	} else if t.Exists() {
		types[t.String()] = true
	}
	asJSON := false
	for _, k := range []string{"integer", "number", "boolean", "object", "array", "null"} {
		asJSON = asJSON || types[k]
	}
	if asJSON && !(types["string"] && !json.Valid([]byte(value))) {
		if !json.Valid([]byte(value)) {
			want := make([]string, 0, len(types))
			for k := range types {
				want = append(want, k)
			}
			sort.Strings(want)
			return nil, probe.Optionf("--arg %s=%s: the schema wants %s, and %q is not JSON", key, value, strings.Join(want, " or "), value)
		}
		return json.RawMessage(value), nil
	}
	b, _ := json.Marshal(value)
	return b, nil
}

func gjsonKeys(obj []byte) []string {
	var keys []string
	gjson.ParseBytes(obj).ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, k.String())
		return true
	})
	return keys
}

// Validate checks arguments against a tool's inputSchema (JSON Schema
// 2020-12 unless the schema names another draft). It returns one line per
// violation, with its path; none when they conform. A schema that cannot
// be compiled is reported as such: the call is not refused for it.
func Validate(schema, args []byte) (violations []string, schemaErr error) {
	if len(schema) == 0 {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the inputSchema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// A server's schema must not make mcpprobe fetch anything.
	c.UseLoader(noLoader{})
	if err := c.AddResource("mcpprobe:input.json", doc); err != nil {
		return nil, fmt.Errorf("the inputSchema cannot be read: %v", err)
	}
	sch, err := c.Compile("mcpprobe:input.json")
	if err != nil {
		return nil, fmt.Errorf("the inputSchema does not compile: %v", err)
	}
	if args == nil {
		args = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []string{"the arguments are not JSON: " + err.Error()}, nil
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}, nil
	}
	return leaves(ve), nil
}

// leaves flattens a validation error to its innermost causes.
func leaves(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			path := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, path+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("… and %d more", len(out)-20))
	}
	return out
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpprobe does not fetch %s: a schema's $ref must stay inside it", url)
}
