package budget

import (
	"bytes"
	"testing"
)

// decodeEncode is Serialize without its fast path.
func decodeEncode(raw []byte) []byte { return reencode(raw) }

func TestAlreadySerialized(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast bool
	}{
		{`{"type":"object"}`, true},
		{`{"properties":{"limit":{"type":"integer"},"q":{"description":"what to find","type":"string"}},"type":"object"}`, true},
		{`{"a":[1,-2.5e+3,0,true,false,null,"x",[],{}]}`, true},
		{`{"type": "object"}`, false},                // not compact
		{`{"type":"object","properties":{}}`, false}, // keys out of order
		{`{"a":1,"a":2}`, false},                     // a key twice
		{`{"a ":1,"a":2}`, false},                    // "a" sorts first once decoded
		{`{"a":1,"a ":2}`, true},                     //
		{`{"a":"x\"y"}`, false},                      // an escape
		{`{"a":"é"}`, false},                         // not ASCII
		{`{"a":01}`, false},                          // not a JSON number
		{`{"a":1.}`, false},                          //
		{`{"a":1} `, false},                          // trailing space
		{`{"a":1}{}`, false},                         // a second value
		{`{"a":tru}`, false},                         //
		{``, false},                                  //
	} {
		if got := alreadySerialized([]byte(c.raw)); got != c.fast {
			t.Errorf("%s: already serialized %v, want %v", c.raw, got, c.fast)
		}
		if got, want := Serialize([]byte(c.raw)), decodeEncode([]byte(c.raw)); !bytes.Equal(got, want) {
			t.Errorf("%s: Serialize %s, decoded and encoded %s", c.raw, got, want)
		}
	}
}

// FuzzSerialize: the fast path gives what decoding and encoding gives.
func FuzzSerialize(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"a ":1,"a":2}`, `{"b":[1,2],"a":{"c":"d"}}`, `[0,-0,1e5,1E-5]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if alreadySerialized(raw) {
			if want := decodeEncode(raw); !bytes.Equal(raw, want) {
				t.Fatalf("%q: taken as serialized, but decoding and encoding gives %q", raw, want)
			}
		}
	})
}
