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
