package args

import (
	"strings"
	"testing"
)

const schema = `{"type":"object","properties":{
	"id":{"type":"integer"},"q":{"type":"string"},"full":{"type":"boolean"},
	"tags":{"type":"array","items":{"type":"string"}},"opt":{"type":["string","null"]},
	"ratio":{"type":"number","minimum":0}},"required":["id"]}`

func TestBuildArgs(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		pairs []string
		want  string
		err   string
	}{
		{"args kept byte for byte", `{ "id" : 1 }`, nil, `{ "id" : 1 }`, ""},
		{"nothing", "", nil, "", ""},
		{"typed pairs", "", []string{"id=42", "q=late", "full=true", `tags=["a"]`, "ratio=0.5"}, `{"id":42,"q":"late","full":true,"tags":["a"],"ratio":0.5}`, ""},
		{"a string that looks like a number stays a string", "", []string{"q=42"}, `{"q":"42"}`, ""},
		{"string or null: JSON null, else text", "", []string{"opt=null"}, `{"opt":null}`, ""},
		{"string or null: text", "", []string{"opt=hello world"}, `{"opt":"hello world"}`, ""},
		{"unknown key is text", "", []string{"zzz=1"}, `{"zzz":"1"}`, ""},
		{"pair overrides args, order kept", `{"id":1,"q":"a"}`, []string{"id=2", "full=false"}, `{"id":2,"q":"a","full":false}`, ""},
		{"a key twice in --args is written once", `{"q":"a","q":"b"}`, []string{"id=1"}, `{"q":"b","id":1}`, ""},
		{"value with =", "", []string{"q=a=b"}, `{"q":"a=b"}`, ""},
		{"integer not JSON", "", []string{"id=forty"}, "", "not JSON"},
		{"no =", "", []string{"id"}, "", "key=value"},
		{"args not an object", `[1]`, nil, "", "not a JSON object"},
		{"args invalid", `{x`, nil, "", "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var args []byte
			if tc.args != "" {
				args = []byte(tc.args)
			}
			got, err := BuildArgs(args, tc.pairs, []byte(schema))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []string // substrings, one per violation
		schemaErr          bool
	}{
		{"valid", schema, `{"id":1}`, nil, false},
		{"missing and wrong type", schema, `{"q":3}`, []string{"missing property 'id'", "/q: got number, want string"}, false},
		{"minimum", schema, `{"id":1,"ratio":-1}`, []string{"/ratio: "}, false},
		{"no arguments at all", schema, ``, []string{"missing property 'id'"}, false},
		{"no schema", ``, `{"x":1}`, nil, false},
		{"a remote ref is never fetched", `{"$ref":"https://example.com/s.json"}`, `{}`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var args []byte
			if tc.args != "" {
				args = []byte(tc.args)
			}
			got, err := Validate([]byte(tc.schema), args)
			if (err != nil) != tc.schemaErr {
				t.Fatalf("schema error %v", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("violations %q, want %d", got, len(tc.want))
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("%q lacks %q", all, w)
				}
			}
		})
	}
}
