package mrtr

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A form accepted as shown: every default, in the schema's order, then
// the required fields without one at their smallest values; the
// server's schema cannot make the answer unbounded or invalid.
func TestFormContent(t *testing.T) {
	many := `{"type":"object","properties":{`
	for i := range 1000 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`"f%d":{"type":"string","default":"v"}`, i)
	}
	many += `}}`
	huge := `{"type":"object","properties":{"a":{"type":"string","default":"` + strings.Repeat("x", 100<<10) + `"},"b":{"type":"integer","default":7}}}`
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"SEP-1034 defaults, none required", `{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive"],"default":"active"},"verified":{"type":"boolean","default":true}},"required":[]}`,
			`{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}`},
		{"required without a default", `{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer","default":3}},"required":["ok"]}`, `{"ok":false,"n":3}`},
		{"optional without a default left out", `{"type":"object","properties":{"note":{"type":"string"}}}`, `{}`},
		{"a required default wins over a built value", `{"type":"object","properties":{"who":{"type":"string","default":"me"}},"required":["who"]}`, `{"who":"me"}`},
		{"not an object", `"nope"`, `{}`},
		{"no schema", ``, `{}`},
		{"a default past the bound left out", huge, `{"b":7}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(FormContent([]byte(tc.schema)))
			if got != tc.want {
				t.Errorf("FormContent = %.200s, want %s", got, tc.want)
			}
		})
	}
	got := FormContent([]byte(many))
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil || len(m) != maxFormFields {
		t.Errorf("1,000 defaulted fields: %d answered (err %v), want the first %d", len(m), err, maxFormFields)
	}
}
