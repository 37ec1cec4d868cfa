package wire

import (
	"reflect"
	"testing"

	"github.com/mcpprobe/mcpprobe/probe"
)

func TestTools(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Tool
	}{
		{"minimal", `{"name":"a","inputSchema":{"type":"object"}}`,
			Tool{Name: "a", InputSchemaBytes: 17, OutputSchemaBytes: -1, DefinitionBytes: 44}},
		{"emoji counts two UTF-16 units", `{"name":"e","description":"hi 😀","inputSchema":{}}`,
			Tool{Name: "e", HasDescription: true, DescUTF16: 5, DescRunes: 4, DescBytes: 7, InputSchemaBytes: 2, OutputSchemaBytes: -1, DefinitionBytes: 53}},
		{"escapes decoded before counting", `{"name":"u","description":"\u00e9\n","inputSchema":{ }}`,
			Tool{Name: "u", HasDescription: true, DescUTF16: 2, DescRunes: 2, DescBytes: 3, InputSchemaBytes: 3, OutputSchemaBytes: -1, DefinitionBytes: 55}},
		{"annotations and output schema", `{"name":"r","annotations":{"title":"R","readOnlyHint":true,"destructiveHint":false,"x-custom":1},"inputSchema":{},"outputSchema":{"type":"object"}}`,
			Tool{Name: "r", Title: "R", InputSchemaBytes: 2, OutputSchemaBytes: 17, Annotations: []string{"readOnly", "!destructive", "x-custom"}, DefinitionBytes: 147}},
		// One pass over the members must read what a Get per member read.
		{"the first of duplicate keys", `{"name":"a","name":"b","description":"x","description":"yy","inputSchema":{},"inputSchema":[1]}`,
			Tool{Name: "a", HasDescription: true, DescUTF16: 1, DescRunes: 1, DescBytes: 1, InputSchemaBytes: 2, OutputSchemaBytes: -1, DefinitionBytes: 95}},
		{"an escaped key", `{"na\u006de":"k","inputSchema":{}}`,
			Tool{Name: "k", InputSchemaBytes: 2, OutputSchemaBytes: -1, DefinitionBytes: 34}},
		{"title before annotations.title", `{"name":"t","annotations":{"title":"A"},"title":"T"}`,
			Tool{Name: "t", Title: "T", OutputSchemaBytes: -1, DefinitionBytes: 52}},
		{"invalid UTF-8 and a key nested deeper", "{\"x\":{\"name\":\"no\"},\"name\":\"v\",\"description\":\"a\xffb\"}",
			Tool{Name: "v", HasDescription: true, DescUTF16: 3, DescRunes: 3, DescBytes: 3, OutputSchemaBytes: -1, DefinitionBytes: 50}},
		{"not an object", `"tool"`, Tool{OutputSchemaBytes: -1, DefinitionBytes: 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &probe.Capture{Tools: probe.List{Items: [][]byte{[]byte(tc.raw)}}}
			got := Tools(c)
			if len(got) != 1 {
				t.Fatalf("got %d tools", len(got))
			}
			if tc.want.DefinitionBytes != len(tc.raw) {
				t.Fatalf("test table: DefinitionBytes %d, raw is %d", tc.want.DefinitionBytes, len(tc.raw))
			}
			if !reflect.DeepEqual(got[0], tc.want) {
				t.Errorf("got  %+v\nwant %+v", got[0], tc.want)
			}
		})
	}
}

func TestPages(t *testing.T) {
	page := func(method string, n int) probe.Page {
		return probe.Page{Method: method, N: n, Raw: []byte(method + "#" + string(rune('0'+n)))}
	}
	tests := []struct {
		name string
		c    probe.Capture
		want []string
	}{
		{"nothing received", probe.Capture{}, nil},
		{"handshake first, then each list's pages in order",
			probe.Capture{Handshake: &probe.Page{Method: "initialize", N: 1, Raw: []byte("i")},
				Tools:     probe.List{Pages: []probe.Page{page("tools/list", 1), page("tools/list", 2)}},
				Templates: probe.List{Pages: []probe.Page{page("resources/templates/list", 1)}}},
			[]string{"00-initialize.1.json", "01-tools-list.1.json", "02-tools-list.2.json", "03-resources-templates-list.1.json"}},
		{"no handshake (a server that failed it) still numbers from 00",
			probe.Capture{Prompts: probe.List{Pages: []probe.Page{page("prompts/list", 1)}}},
			[]string{"00-prompts-list.1.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Capture: &tc.c}
			var got []string
			for _, p := range r.Pages() {
				got = append(got, p.Name)
				if len(p.Raw) == 0 {
					t.Errorf("%s has no bytes", p.Name)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
