package bench

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
