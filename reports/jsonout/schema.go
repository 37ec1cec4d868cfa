package jsonout

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/mcpprobe/mcpprobe/internal/jsonschema"
)

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ResultSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "https://github.com/mcpprobe/mcpprobe/reports/result.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// ValidateResult checks one --json output against ResultSchema. Tests run
// every command's output through it, so the documented shape is the real one.
func ValidateResult(out []byte) error {
	s, err := compiled()
	if err != nil {
		return fmt.Errorf("result schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(v)
}
