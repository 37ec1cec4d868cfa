package canon

import "testing"

func TestJSON(t *testing.T) {
	tests := []struct{ a, b string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{`{ "a" : [ 1 , 2 ] }`, `{"a":[1,2]}`},
		{`1.0`, `1`},
		{`1e3`, `1000`},
		{`-0.50`, `-0.5`},
		{`9007199254740993`, `9007199254740993`},
		{`"\u00e9"`, `"é"`},
		{`"\/"`, `"/"`},
		{`"<&>"`, `"<&>"`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`[true,null,false]`, `[true,null,false]`},
	}
	for _, tc := range tests {
		if got := string(JSON([]byte(tc.a))); got != tc.b {
			t.Errorf("JSON(%s) = %s, want %s", tc.a, got, tc.b)
		}
	}
	if string(JSON([]byte(`[2,1]`))) == string(JSON([]byte(`[1,2]`))) {
		t.Errorf("array order is meaning, not form")
	}
}
