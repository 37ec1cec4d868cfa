package secparams

import (
	"slices"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	cases := []struct {
		name     string
		tool     string
		has      bool
		shape    string // a part of Shape, "" for none
		overlap  []string
		required []string
	}{
		{"absent", `{"name":"a","inputSchema":{"type":"object"}}`, false, "", nil, nil},
		{"good", `{"name":"a","inputSchema":{"type":"object","properties":{"q":{}}},"secureInputSchema":{"type":"object","properties":{"tenant":{},"token":{}},"required":["tenant","tenant"]}}`, true, "", nil, []string{"tenant"}},
		{"overlap", `{"inputSchema":{"properties":{"b":{},"a":{},"q":{}}},"secureInputSchema":{"type":"object","properties":{"b":{},"a":{}}}}`, true, "", []string{"a", "b"}, nil},
		{"null", `{"secureInputSchema":null}`, true, "null", nil, nil},
		{"array", `{"secureInputSchema":[]}`, true, "an array", nil, nil},
		{"no type", `{"secureInputSchema":{"properties":{}}}`, true, `no "type"`, nil, nil},
		{"type string", `{"secureInputSchema":{"type":"string"}}`, true, `is "string", not`, nil, nil},
		{"type array", `{"secureInputSchema":{"type":["object","null"]}}`, true, `is an array, not "object"`, nil, nil},
		{"properties array", `{"secureInputSchema":{"type":"object","properties":[]}}`, true, `"properties" is an array`, nil, nil},
		{"required not strings", `{"secureInputSchema":{"type":"object","required":[1]}}`, true, `"required"`, nil, nil},
		{"hostile type", `{"secureInputSchema":{"type":"\u001b[2J` + strings.Repeat("é", 50) + `"}}`, true, `\x1b[2J`, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Read([]byte(c.tool))
			if d.Has != c.has {
				t.Errorf("Has = %v", d.Has)
			}
			if (c.shape == "") != (d.Shape == "") || !strings.Contains(d.Shape, c.shape) {
				t.Errorf("Shape = %q, want it to hold %q", d.Shape, c.shape)
			}
			if !slices.Equal(d.Overlap, c.overlap) {
				t.Errorf("Overlap = %v, want %v", d.Overlap, c.overlap)
			}
			if !slices.Equal(d.Required, c.required) {
				t.Errorf("Required = %v, want %v", d.Required, c.required)
			}
		})
	}
}

func TestReadBoundsNames(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"secureInputSchema":{"type":"object","properties":{`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `` + itoa(i) + `":{}`)
	}
	b.WriteString(`}}}`)
	if d := Read([]byte(b.String())); len(d.Secure) != maxNames {
		t.Errorf("kept %d names, want %d", len(d.Secure), maxNames)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

func TestDeclared(t *testing.T) {
	cases := map[string]bool{
		`{"extensions":{"io.modelcontextprotocol/secure-params":{}}}`:   true,
		`{"extensions":{"io.modelcontextprotocol/secure-params":true}}`: false,
		`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`:           false,
		`{"tools":{}}`:      false,
		`not json`:          false,
		`{"extensions":[]}`: false,
	}
	for caps, want := range cases {
		if got := Declared([]byte(caps)); got != want {
			t.Errorf("Declared(%s) = %v, want %v", caps, got, want)
		}
	}
}
