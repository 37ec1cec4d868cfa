package wwwauth

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	type m = map[string]string
	long := strings.Repeat("a", MaxBytes)
	for _, tc := range []struct {
		name    string
		lines   []string
		want    []Challenge
		wantErr string // substring; "" means no error
	}{
		{"none", nil, nil, ""},
		{"empty line", []string{""}, nil, ""},
		{"only commas", []string{" , ,, "}, nil, ""},
		{"bearer params", []string{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="files:read"`},
			[]Challenge{{Scheme: "bearer", Params: m{"resource_metadata": "https://x/.well-known/oauth-protected-resource", "scope": "files:read"}}}, ""},
		{"case-insensitive names, token values", []string{`BEARER Scope=mcp,Resource_Metadata="https://x/m"`},
			[]Challenge{{Scheme: "bearer", Params: m{"scope": "mcp", "resource_metadata": "https://x/m"}}}, ""},
		{"escapes and commas in quotes", []string{`Bearer error="invalid_token", error_description="say \"no\", twice", scope="a b"`},
			[]Challenge{{Scheme: "bearer", Params: m{"error": "invalid_token", "error_description": `say "no", twice`, "scope": "a b"}}}, ""},
		{"BWS around =", []string{`Bearer scope = "a" , realm= x`},
			[]Challenge{{Scheme: "bearer", Params: m{"scope": "a", "realm": "x"}}}, ""},
		{"scheme alone", []string{`Bearer`}, []Challenge{{Scheme: "bearer"}}, ""},
		{"two challenges one line", []string{`Basic realm="a, Bearer x=1", Bearer scope="mcp"`},
			[]Challenge{{Scheme: "basic", Params: m{"realm": "a, Bearer x=1"}}, {Scheme: "bearer", Params: m{"scope": "mcp"}}}, ""},
		{"bare schemes", []string{`Negotiate, Bearer`}, []Challenge{{Scheme: "negotiate"}, {Scheme: "bearer"}}, ""},
		{"token68", []string{`Negotiate YIIB+w/x==, Basic realm=r`},
			[]Challenge{{Scheme: "negotiate", Token68: "YIIB+w/x=="}, {Scheme: "basic", Params: m{"realm": "r"}}}, ""},
		{"several lines", []string{`Basic realm="x"`, `bearer resource_metadata="https://x/m"`},
			[]Challenge{{Scheme: "basic", Params: m{"realm": "x"}}, {Scheme: "bearer", Params: m{"resource_metadata": "https://x/m"}}}, ""},
		{"not bearer", []string{`Bearerish scope="x"`}, []Challenge{{Scheme: "bearerish", Params: m{"scope": "x"}}}, ""},
		{"duplicate param keeps first", []string{`Bearer scope="a", scope="b"`},
			[]Challenge{{Scheme: "bearer", Params: m{"scope": "a"}}}, ""},
		{"empty quoted value", []string{`Bearer realm=""`}, []Challenge{{Scheme: "bearer", Params: m{"realm": ""}}}, ""},

		// Hostile or malformed: what parsed before the fault is kept.
		{"unterminated quote", []string{`Bearer resource_metadata="unterminated`}, nil, "unterminated quoted-string"},
		{"unterminated after a good challenge", []string{`Basic realm=r, Bearer scope="x`},
			[]Challenge{{Scheme: "basic", Params: m{"realm": "r"}}}, "unterminated"},
		{"trailing backslash", []string{`Bearer scope="x\`}, nil, "unterminated"},
		{"token68 that looks like a param", []string{`Bearer scope=`}, []Challenge{{Scheme: "bearer", Token68: "scope="}}, ""},
		{"no value", []string{`Bearer realm=r, scope=`}, nil, `no value for auth-param "scope"`},
		{"begins with a quote", []string{`"Bearer"`}, nil, "expected an auth-scheme"},
		{"junk after scheme", []string{`Bearer "x"`}, nil, "expected a comma"},
		{"bad line then good line", []string{`@@`, `Bearer scope=s`},
			[]Challenge{{Scheme: "bearer", Params: m{"scope": "s"}}}, "expected an auth-scheme"},
		{"huge header", []string{"Bearer scope=" + long}, nil, "over 65536 bytes"},
		{"huge over lines", []string{"Basic", "Bearer scope=" + long},
			[]Challenge{{Scheme: "basic"}}, "line 2 and later not parsed"},
		{"many challenges", []string{strings.Repeat("X, ", MaxChallenges+5)},
			repeat(Challenge{Scheme: "x"}, MaxChallenges), "more than 64 challenges"},
		{"many params", []string{"Bearer " + strings.Repeat("a=b, ", MaxParams+1)}, nil, "more than 64 parameters"},
		{"control bytes", []string{"Bearer scope=\x00"}, nil, "no value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.lines)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			case err != nil && len(err.Error()) > 300:
				t.Errorf("error message of %d bytes: not clipped", len(err.Error()))
			}
		})
	}
}

func repeat(c Challenge, n int) []Challenge {
	out := make([]Challenge, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func TestFind(t *testing.T) {
	cs, _ := Parse([]string{`Basic realm=r, Bearer scope=a, bearer scope=b`})
	c, ok := Find(cs, "Bearer")
	if !ok || c.Params["scope"] != "a" {
		t.Errorf("Find = %+v, %v; want the first bearer", c, ok)
	}
	if _, ok := Find(cs, "DPoP"); ok {
		t.Error("found a scheme that is not there")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`Basic realm="a, Bearer x=1", Bearer scope="mcp"`)
	f.Add(`Negotiate YIIB+w/x==, Bearer error="a\"b"`)
	f.Fuzz(func(t *testing.T, s string) {
		cs, _ := Parse([]string{s})
		if len(cs) > MaxChallenges {
			t.Fatalf("%d challenges", len(cs))
		}
	})
}
