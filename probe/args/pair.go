package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Flag is one --call or --args as the command line gave it. A flag
// parser that keeps each flag's values apart loses which --args followed
// which --call; a list of Flags in command-line order keeps it.
type Flag struct {
	Name  string // "call" or "args"
	Value string
}

// Pair reads --call and --args in command-line order into calls: each
// --args is the arguments of the --call before it, and a --call with
// none gets minimal arguments when the calls are planned (nil Args). An
// --args before every --call, or a second --args for one --call, is
// refused with a message that names it: sending one tool's arguments to
// another, or keeping one of two silently, would time or test a call
// nobody asked for.
func Pair(flags []Flag) ([]Call, error) {
	ncalls, nargs := 0, 0
	for _, f := range flags {
		if f.Name == "call" {
			ncalls++
		}
	}
	var calls []Call
	for _, f := range flags {
		switch f.Name {
		case "call":
			if strings.TrimSpace(f.Value) == "" {
				return nil, fmt.Errorf("--call needs a tool name")
			}
			calls = append(calls, Call{Tool: f.Value})
		case "args":
			nargs++
			if len(calls) == 0 {
				return nil, fmt.Errorf("--args %q comes before any --call: each --args is the arguments of the --call before it (--call TOOL --args JSON)", f.Value)
			}
			last := &calls[len(calls)-1]
			if last.Args != nil {
				return nil, fmt.Errorf("--args %q (--args number %d, for %d --call): --call %s already has --args %q; give each --call at most one --args, right after it",
					f.Value, nargs, ncalls, last.Tool, last.Args)
			}
			a, err := Object(f.Value)
			if err != nil {
				return nil, fmt.Errorf("%v (for --call %s)", err, last.Tool)
			}
			last.Args = a
		}
	}
	return calls, nil
}

// Object checks that s is one JSON object, as arguments are, and returns
// its bytes as given: what the user wrote is what is sent.
func Object(s string) ([]byte, error) {
	v := bytes.TrimSpace([]byte(s))
	if len(v) == 0 || v[0] != '{' || !json.Valid(v) {
		return nil, fmt.Errorf("--args %q is not a JSON object", s)
	}
	return []byte(s), nil
}
