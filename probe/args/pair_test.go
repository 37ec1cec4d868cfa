package args

import (
	"reflect"
	"strings"
	"testing"
)

func TestPair(t *testing.T) {
	c := func(n string) Flag { return Flag{"call", n} }
	a := func(v string) Flag { return Flag{"args", v} }
	tests := []struct {
		name  string
		flags []Flag
		want  []Call
		err   string // a part of the refusal, "" when none
	}{
		{"none", nil, nil, ""},
		{"one call, no args", []Flag{c("echo")}, []Call{{Tool: "echo"}}, ""},
		{"each its own", []Flag{c("a"), a(`{"x":1}`), c("b"), a(`{"y":2}`)},
			[]Call{{"a", []byte(`{"x":1}`)}, {"b", []byte(`{"y":2}`)}}, ""},
		{"args go to the call before them", []Flag{c("a"), c("b"), a(`{"y":2}`)},
			[]Call{{Tool: "a"}, {"b", []byte(`{"y":2}`)}}, ""},
		{"the first has args, the second none", []Flag{c("a"), a(`{"x":1}`), c("b")},
			[]Call{{"a", []byte(`{"x":1}`)}, {Tool: "b"}}, ""},
		{"bytes kept as given", []Flag{c("a"), a(` {"x" : 1.50} `)}, []Call{{"a", []byte(` {"x" : 1.50} `)}}, ""},
		{"args first", []Flag{a(`{"x":1}`), c("a")}, nil, `--args "{\"x\":1}" comes before any --call`},
		{"args alone", []Flag{a(`{}`)}, nil, "comes before any --call"},
		{"two args for one call", []Flag{c("a"), a(`{"x":1}`), a(`{"x":2}`)}, nil,
			`--args "{\"x\":2}" (--args number 2, for 1 --call): --call a already has --args "{\"x\":1}"`},
		{"more args than calls", []Flag{c("a"), a(`{}`), c("b"), a(`{}`), a(`{"z":3}`)}, nil, "(--args number 3, for 2 --call): --call b already has"},
		{"not an object", []Flag{c("a"), a(`[1]`)}, nil, `--args "[1]" is not a JSON object (for --call a)`},
		{"not JSON", []Flag{c("a"), a(`{x}`)}, nil, "is not a JSON object"},
		{"empty call", []Flag{c(" ")}, nil, "--call needs a tool name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Pair(tc.flags)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Pair = %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Pair = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
