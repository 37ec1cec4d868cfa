package result

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/internal/jsonschema"
	"github.com/mcpprobe/mcpprobe/transport"
)

// Bounds on validation. The schema and the instance are the server's, so
// both are bounded before the validator sees them: a schema is compiled
// once per call, and validation walks the instance once per keyword that
// applies to it.
const (
	MaxSchemaBytes     = 1 << 20
	MaxSchemaDepth     = 64
	MaxStructuredBytes = 8 << 20
	MaxStructuredDepth = 256
	// MaxValidation bounds compiling and validating. Size and depth do not
	// bound the time: a small schema whose $refs fan out (allOf of two
	// refs to a definition that does the same, 60 deep) costs 2^60
	// evaluations. Past it the check is abandoned: its goroutine runs on
	// until it ends, but nothing waits for it.
	MaxValidation = 2 * time.Second
)

// schemaURL names the server's schema inside the compiler; nothing is
// ever fetched from it.
const schemaURL = "mcpprobe:///outputSchema.json"

// noLoader refuses every URL: a server's schema may refer only to itself
// (and the metaschemas the library carries), never make the probe read a
// file or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refers outside itself (%s)", url)
}

// validate checks instance against schema, and returns the violations,
// or an error when the check could not be made.
func validate(schema, instance []byte) ([]Violation, error) {
	if len(schema) > MaxSchemaBytes {
		return nil, fmt.Errorf("the outputSchema is %d bytes, over %d", len(schema), MaxSchemaBytes)
	}
	if d, _ := transport.Shape(schema); d > MaxSchemaDepth {
		return nil, fmt.Errorf("the outputSchema nests %d levels, over %d", d, MaxSchemaDepth)
	}
	if len(instance) > MaxStructuredBytes {
		return nil, fmt.Errorf("structuredContent is %d bytes, over %d", len(instance), MaxStructuredBytes)
	}
	if d, _ := transport.Shape(instance); d > MaxStructuredDepth {
		return nil, fmt.Errorf("structuredContent nests %d levels, over %d", d, MaxStructuredDepth)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the outputSchema is not JSON: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return nil, fmt.Errorf("structuredContent is not JSON: %v", err)
	}
	type outcome struct {
		vs  []Violation
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		vs, err := check(doc, v)
		done <- outcome{vs, err}
	}()
	select {
	case o := <-done:
		return o.vs, o.err
	case <-time.After(MaxValidation):
		return nil, fmt.Errorf("validation took longer than %s and was abandoned", MaxValidation)
	}
}

// check compiles the schema and validates the instance.
func check(doc, v any) ([]Violation, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("the outputSchema cannot be loaded: %v", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("the outputSchema does not compile: %s", firstLine(err.Error()))
	}
	err = s.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Violation
	leaves(ve, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if len(out) > MaxViolations {
		out = append(out[:MaxViolations], Violation{Message: fmt.Sprintf("%d more violations", len(out)-MaxViolations)})
	}
	return out, nil
}

// leaves collects the innermost errors: they say what is wrong where; the
// outer ones only say that a subschema failed.
func leaves(e *jsonschema.ValidationError, out *[]Violation) {
	if len(e.Causes) == 0 {
		msg := "invalid"
		if o := e.BasicOutput(); o.Error != nil {
			msg = o.Error.String()
		}
		*out = append(*out, Violation{Path: pointer(e.InstanceLocation), Message: msg})
		return
	}
	for _, c := range e.Causes {
		leaves(c, out)
	}
}

// pointer is an RFC 6901 JSON pointer; "" is the whole value.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
