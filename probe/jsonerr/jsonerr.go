// Package jsonerr says what is wrong with a JSON file a user wrote (a host
// config, a hosts file) in the user's terms: where, what was expected and
// what was found, never the Go types encoding/json names.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Explain rewrites an error from encoding/json; any other error is
// returned as its text.
func Explain(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		where := strings.TrimPrefix(te.Field, ".")
		got := Value(te.Value)
		if where == "" {
			return fmt.Sprintf("expected %s, got %s", Kind(te.Type), got)
		}
		return fmt.Sprintf("%q: expected %s, got %s", where, Kind(te.Type), got)
	case errors.As(err, &se) && se.Error() != "unexpected end of JSON input":
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, se.Error())
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	if msg == "unexpected end of JSON input" {
		return "the JSON ends early (a bracket or quote is not closed)"
	}
	return msg
}

// Kind names a Go type as JSON does: text, a number, a list, an object.
func Kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() == "RawMessage" {
			return "a value"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return Kind(t.Elem())
	}
	return "a value"
}

// Value turns encoding/json's names of what it found ("array",
// "number", "string") into what a person reads: "a list", "a number",
// "text".
func Value(v string) string {
	switch {
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "string":
		return "text"
	case v == "bool":
		return "true or false"
	case v == "null":
		return "null"
	case strings.HasPrefix(v, "number"):
		if n := strings.TrimSpace(strings.TrimPrefix(v, "number")); n != "" {
			return "the number " + n
		}
		return "a number"
	}
	return v
}
