package transport

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestParamHeaders(t *testing.T) {
	schema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"n":{"type":"integer","x-mcp-header":"Priority"},
		"f":{"type":"number","x-mcp-header":"Float"},
		"bad":{"type":"string","x-mcp-header":"My Region"},
		"dup":{"type":"string","x-mcp-header":"region"},
		"nested":{"type":"object","properties":{"deep":{"type":"boolean","x-mcp-header":"Deep"}}},
		"arr":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}}}`
	got := ParamHeaders(gjson.Parse(schema))
	want := []ParamHeader{{"Region", []string{"region"}}, {"Priority", []string{"n"}}, {"Deep", []string{"nested", "deep"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParamHeaders = %+v, want %+v", got, want)
	}
}

// A schema nested without end is walked to a bounded depth.
func TestParamHeadersDeepSchema(t *testing.T) {
	s := strings.Repeat(`{"type":"object","properties":{"a":`, 5000) + `{"type":"string","x-mcp-header":"A"}` + strings.Repeat(`}}`, 5000)
	if got := ParamHeaders(gjson.Parse(s)); len(got) != 0 {
		t.Errorf("ParamHeaders found %+v past the depth bound", got)
	}
}

func TestSetParamHeadersEncoding(t *testing.T) {
	c := &HTTP{}
	c.SetParamHeaders(map[string][]ParamHeader{"t": {
		{"Region", []string{"region"}}, {"Priority", []string{"priority"}}, {"Verbose", []string{"verbose"}},
		{"Debug", []string{"debug"}}, {"Empty", []string{"empty"}}, {"NonAscii", []string{"na"}},
		{"Ws", []string{"ws"}}, {"Crlf", []string{"crlf"}}, {"Sentinel", []string{"sentinel"}}, {"Missing", []string{"missing"}},
		{"Deep", []string{"o", "d"}},
	}})
	msg := gjson.Parse(`{"method":"tools/call","params":{"name":"t","arguments":{"region":"us-west1","priority":42,"verbose":null,"debug":true,
		"empty":"","na":"Hello, 世界","ws":" padded ","crlf":"line1\r\nline2","sentinel":"=?base64?literal?=","o":{"d":false}}}}`)
	h := http.Header{}
	c.setParamHeaders(h, msg)
	want := map[string]string{
		"Mcp-Param-Region": "us-west1", "Mcp-Param-Priority": "42", "Mcp-Param-Debug": "true", "Mcp-Param-Empty": "",
		"Mcp-Param-NonAscii": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Mcp-Param-Ws": "=?base64?IHBhZGRlZCA=?=",
		"Mcp-Param-Crlf": "=?base64?bGluZTENCmxpbmUy?=", "Mcp-Param-Sentinel": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"Mcp-Param-Deep": "false",
	}
	for k, v := range want {
		if got, ok := h[k]; !ok || got[0] != v {
			t.Errorf("%s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"Mcp-Param-Verbose", "Mcp-Param-Missing"} {
		if _, ok := h[k]; ok {
			t.Errorf("%s sent for a null or absent value", k)
		}
	}
	if len(h) != len(want) {
		t.Errorf("headers %v", h)
	}
}
