package args

import "testing"

func TestMinimalArgs(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object"}`, `{}`},
		{``, `{}`},
		{`{"type":"object","properties":{"q":{"type":"string"},"opt":{"type":"string"}},"required":["q"]}`, `{"q":"a"}`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":3},"m":{"type":"integer","maximum":-2},"f":{"type":"number","exclusiveMinimum":1.5}},"required":["n","m","f"]}`, `{"n":3,"m":-2,"f":2.5}`},
		{`{"type":"object","properties":{"e":{"type":"string","enum":["fast","slow"]},"c":{"const":"x"},"d":{"type":"integer","default":7}},"required":["e","c","d"]}`, `{"e":"fast","c":"x","d":7}`},
		{`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":2},"minItems":2}},"required":["tags"]}`, `{"tags":["aa","aa"]}`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"b":{"type":"boolean"}},"required":["b"]}},"required":["o"]}`, `{"o":{"b":false}}`},
		{`{"type":"object","properties":{"x":{"type":["null","string"]},"y":{"anyOf":[{"type":"integer"},{"type":"string"}]}},"required":["x","y"]}`, `{"x":"a","y":1}`},
		{`{"type":"object","properties":{"s":{"type":"string","minLength":5,"maxLength":3}},"required":["s"]}`, `{"s":"aaa"}`},
	}
	for _, tc := range tests {
		if got := string(MinimalArgs([]byte(tc.schema))); got != tc.want {
			t.Errorf("MinimalArgs(%s) = %s, want %s", tc.schema, got, tc.want)
		}
	}
}

// Arguments meet formats, patterns, references and bounds, and stay small
// whatever the schema asks.
func TestMinimalArgsValid(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"formats", `{"type":"object","properties":{"when":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},"id":{"type":"string","format":"uuid"}},"required":["when","mail","u","id"]}`,
			`{"when":"2025-01-01T00:00:00Z","mail":"user@example.com","u":"https://example.com/","id":"00000000-0000-4000-8000-000000000000"}`},
		{"pattern", `{"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"}},"required":["sku"]}`, `{"sku":"AAA-0000"}`},
		{"pattern and minLength", `{"type":"object","properties":{"s":{"type":"string","pattern":"^x[a-z]*$","minLength":4}},"required":["s"]}`, `{"s":"xaaaa"}`},
		{"alternation and escapes", `{"type":"object","properties":{"s":{"type":"string","pattern":"^(open|closed)\\.v\\d+$"}},"required":["s"]}`, `{"s":"open.v0"}`},
		{"a pattern RE2 cannot read", `{"type":"object","properties":{"s":{"type":"string","pattern":"^(?!x)a$"}},"required":["s"]}`, `{"s":"a"}`},
		{"$ref into $defs", `{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"required":["p"],"$defs":{"P":{"type":"object","properties":{"n":{"type":"integer","minimum":5}},"required":["n"]}}}`, `{"p":{"n":5}}`},
		{"$ref into definitions", `{"type":"object","properties":{"p":{"$ref":"#/definitions/S"}},"required":["p"],"definitions":{"S":{"type":"string","enum":["x"]}}}`, `{"p":"x"}`},
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"integer","minimum":7,"multipleOf":5},"f":{"type":"number","multipleOf":0.5,"minimum":0.6}},"required":["n","f"]}`, `{"n":10,"f":1}`},
		{"draft-4 exclusive bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":1}},"required":["n"]}`, `{"n":1}`},
		{"uniqueItems", `{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"},"minItems":3,"uniqueItems":true}},"required":["t"]}`, `{"t":["a","a1","a2"]}`},
		{"minItems bounded", `{"type":"object","properties":{"t":{"type":"array","items":{"type":"integer"},"minItems":1000000}},"required":["t"]}`, `{"t":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}`},
		{"nullable anyOf", `{"type":"object","properties":{"x":{"anyOf":[{"type":"null"},{"type":"boolean"}]}},"required":["x"]}`, `{"x":false}`},
	}
	for _, tc := range tests {
		if got := string(MinimalArgs([]byte(tc.schema))); got != tc.want {
			t.Errorf("%s: MinimalArgs = %s, want %s", tc.name, got, tc.want)
		}
	}
	// A schema that requires itself, with long strings: bounded.
	self := `{"type":"object","properties":{"s":{"type":"string","minLength":100000},"next":{"$ref":"#"}},"required":["s","next"]}`
	if got := MinimalArgs([]byte(self)); len(got) > maxArgBytes+2*maxArgString {
		t.Errorf("a self-referencing schema built %d bytes", len(got))
	}
}
