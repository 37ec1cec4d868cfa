package hidden

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

// lookupFields is Fields as it was, a lookup per member: the reference
// the one-pass walk is held to.
func lookupFields(tool gjson.Result) []Field {
	var fs []Field
	add := func(path string, k Kind, v gjson.Result) {
		if v.Type == gjson.String && len(fs) < maxFields {
			s := v.String()
			if len(s) > maxFieldText {
				s = s[:maxFieldText]
			}
			fs = append(fs, Field{path, k, s})
		}
	}
	add("name", KindName, tool.Get("name"))
	add("title", KindTitle, tool.Get("title"))
	add("annotations.title", KindTitle, tool.Get("annotations.title"))
	add("description", KindDescription, tool.Get("description"))
	var walk func(path string, s gjson.Result, depth int)
	walk = func(path string, s gjson.Result, depth int) {
		if !s.IsObject() || depth > maxDepth || len(fs) >= maxFields {
			return
		}
		if depth > 0 {
			add(path+".description", KindDescription, s.Get("description"))
		}
		add(path+".default", KindValue, s.Get("default"))
		add(path+".const", KindValue, s.Get("const"))
		for _, key := range []string{"enum", "examples"} {
			if a := s.Get(key); a.IsArray() {
				for i, v := range a.Array() {
					add(fmt.Sprintf("%s.%s[%d]", path, key, i), KindValue, v)
				}
			}
		}
		s.Get("properties").ForEach(func(k, v gjson.Result) bool {
			p := path + ".properties" + seg(k.String())
			fs = append(fs, Field{p, KindParamName, k.String()})
			walk(p, v, depth+1)
			return len(fs) < maxFields
		})
		for _, key := range []string{"items", "additionalProperties"} {
			walk(path+"."+key, s.Get(key), depth+1)
		}
		for _, key := range []string{"$defs", "definitions"} {
			s.Get(key).ForEach(func(k, v gjson.Result) bool {
				walk(path+"."+key+seg(k.String()), v, depth+1)
				return len(fs) < maxFields
			})
		}
		for _, key := range []string{"anyOf", "oneOf", "allOf"} {
			if a := s.Get(key); a.IsArray() {
				for i, v := range a.Array() {
					walk(fmt.Sprintf("%s.%s[%d]", path, key, i), v, depth+1)
				}
			}
		}
	}
	walk("inputSchema", tool.Get("inputSchema"), 0)
	return fs
}

// odd are definitions whose shape a walk can get wrong: members twice,
// escaped keys, arrays where objects go, nulls, nesting.
var odd = []string{
	`{"name":"a","name":"b","description":"one","description":"two"}`,
	`{"n\u0061me":"esc","titl\u0065":"T","annotations":{"title":"A","title":"B"}}`,
	`{"annotations":[{"title":"x"}],"title":null,"description":7}`,
	`{"inputSchema":{"properties":[{"a":1}],"$defs":["x"],"enum":{"a":"b"},"anyOf":{"x":{}}}}`,
	`{"inputSchema":{"properties":{"p":{"description":"d","description":"e","default":"x","default":"y"}},"properties":{"q":{}}}}`,
	`{"inputSchema":{"items":{"items":{"description":"deep","enum":["a",1,null,"b"]}},"additionalProperties":{"const":"c"},"definitions":{"d":{"examples":["e"]}},"oneOf":[{"description":"o"}],"allOf":[{"properties":{"r":{}}}]}}`,
	`[{"name":"x"}]`, `"tool"`, `null`, `{}`,
}

func TestFieldsOnePass(t *testing.T) {
	var tools []gjson.Result
	for _, c := range loadCorpus(t) {
		tools = append(tools, c.Tool)
	}
	for _, s := range odd {
		tools = append(tools, gjson.Parse(s))
	}
	for _, tool := range tools {
		if got, want := Fields(tool), lookupFields(tool); !reflect.DeepEqual(got, want) {
			t.Errorf("%.200s:\none pass %v\nlookups  %v", tool.Raw, got, want)
		}
	}
	// Deep and wide: the bounds cut both walks at the same field.
	deep := `{"type":"string"}`
	for i := 0; i < maxDepth+5; i++ {
		deep = fmt.Sprintf(`{"description":"level %d","items":%s}`, i, deep)
	}
	props := map[string]any{}
	for i := 0; i < maxFields; i++ {
		props[fmt.Sprintf("p%04d", i)] = map[string]any{"description": "d"}
	}
	wide, _ := json.Marshal(map[string]any{"inputSchema": map[string]any{"properties": props}})
	for _, s := range []string{`{"inputSchema":` + deep + `}`, string(wide)} {
		tool := gjson.Parse(s)
		if got, want := Fields(tool), lookupFields(tool); !reflect.DeepEqual(got, want) {
			t.Errorf("bounded walk differs: %d fields against %d", len(got), len(want))
		}
	}
}

func FuzzFields(f *testing.F) {
	for _, s := range odd {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		tool := gjson.ParseBytes(b)
		if got, want := Fields(tool), lookupFields(tool); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\none pass %v\nlookups  %v", b, got, want)
		}
	})
}
