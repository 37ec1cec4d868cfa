package probe

import "testing"

func TestLegacyShape(t *testing.T) {
	for _, tc := range []struct {
		method, result, want string
	}{
		{"tools/list", `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}`, ""},
		{"tools/list", `{"tools":[]}`, "no resultType, no ttlMs, no cacheScope"},
		{"tools/list", `{"resultType":"complete","tools":[],"ttlMs":0}`, "no cacheScope"},
		{"resources/read", `{"resultType":"input_required","inputRequests":{}}`, ""},
		{"tools/call", `{"content":[]}`, "no resultType"},
		{"tools/call", `{"resultType":"complete","content":[]}`, ""},
		{"tools/call", `[]`, ""},
		{"tools/call", `not json`, ""},
	} {
		if got := LegacyShape(tc.method, []byte(tc.result)); got != tc.want {
			t.Errorf("LegacyShape(%s, %s) = %q, want %q", tc.method, tc.result, got, tc.want)
		}
	}
}
