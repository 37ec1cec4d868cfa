package probe

import "testing"

// TestCallParamsAsRequest: the params CallParams builds in one slice are
// byte for byte what Request builds from the members, in either era.
func TestCallParamsAsRequest(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		for _, tc := range []struct {
			name string
			args []byte
		}{
			{"echo", []byte(`{"text":"a","n":3}`)},
			{"no_args", nil},
			{`odd "name" é`, []byte(`{}`)},
		} {
			o := Options{ClientName: "mcpprobe", ClientVersion: "1"}
			c := &Capture{Era: era, ProtocolVersion: "2026-07-28"}
			cl := &Client{Capture: c, p: &prober{c: c, o: o}}
			members := `"name":` + string(quote(tc.name))
			if tc.args != nil {
				members += `,"arguments":` + string(tc.args)
			}
			want := string(cl.p.params(members))
			if got := string(cl.CallParams(tc.name, tc.args)); got != want {
				t.Errorf("%s, %q: %s; Request sends %s", era, tc.name, got, want)
			}
		}
	}
}
