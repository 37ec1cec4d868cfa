package reports

import (
	"testing"

	"github.com/mcpprobe/mcpprobe/probe/diff"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

// A comparison that could not be made is null in diff's JSON, where the
// text says "not comparable" or "—"; false would say the sides differ.
func TestDiffSectionUnansweredIsNull(t *testing.T) {
	lists := []diff.Part{diff.PartTools}
	values := []diff.Part{diff.PartTools, diff.PartInstructions}
	cases := []struct {
		name                   string
		c                      diff.Comparison
		bytes, canon, metadata string // the JSON each answer is
	}{
		{"two servers, same", diff.Comparison{Compared: values, BytesComparable: true, IdenticalBytes: true, IdenticalCanonical: true, IdenticalMetadata: true},
			"true", "true", "true"},
		{"two servers, different bytes", diff.Comparison{Compared: lists, BytesComparable: true, IdenticalCanonical: true},
			"false", "true", "null"},
		{"anthropic reference", diff.Comparison{RefFormat: "anthropic", Compared: lists, IdenticalCanonical: true},
			"null", "true", "null"},
		{"anthropic reference, drift", diff.Comparison{RefFormat: "anthropic", Compared: lists},
			"null", "false", "null"},
		{"no list compared", diff.Comparison{Compared: []diff.Part{diff.PartInstructions}, BytesComparable: true, IdenticalCanonical: true, IdenticalMetadata: false},
			"null", "null", "false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := DiffSection(&diff.Result{Comparison: c.c})
			for key, want := range map[string]string{"identical_bytes": c.bytes, "identical_canonical": c.canon, "identical_metadata": c.metadata} {
				if got := gjson.GetBytes(out, key).Raw; got != want {
					t.Errorf("%s = %s, want %s\n%s", key, got, want, out)
				}
			}
			env := jsonout.Envelope{Version: "dev", Command: "diff", Target: "./s"}
			if err := jsonout.ValidateResult(env.JSON(out)); err != nil {
				t.Errorf("schema: %v\n%s", err, out)
			}
		})
	}
}
