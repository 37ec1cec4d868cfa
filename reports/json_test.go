package reports

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// --json is valid UTF-8 for every parser, and a value that held bytes
// that are not UTF-8 keeps them exactly in its _b64 companion.
func TestObjectKeepsInvalidUTF8(t *testing.T) {
	bad := "caf\xe9 \xff"
	item := []byte(`{"name":"a","description":"` + bad + `"}`)
	o := &Object{}
	o.Set("plain", "ok").Set("instructions", bad).Set("noise", []string{"fine", bad})
	o.Raw("server_info", item).Raw("clean", []byte(`{"a":1}`))
	o.Items("tools", [][]byte{[]byte(`{"name":"b"}`), item})
	out := o.Bytes()
	if !utf8.Valid(out) || !json.Valid(out) {
		t.Fatalf("not valid UTF-8 JSON: %q", out)
	}
	var strict map[string]any
	if err := json.Unmarshal(out, &strict); err != nil {
		t.Fatal(err)
	}
	v := gjson.ParseBytes(out)
	exact := func(path string) string {
		b, err := base64.StdEncoding.DecodeString(v.Get(path).String())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return string(b)
	}
	for path, want := range map[string]string{
		"instructions_b64": bad,
		"noise_b64.1":      bad,
		"server_info_b64":  string(item),
		"tools_b64.1":      string(item),
	} {
		if got := exact(path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	for _, absent := range []string{"plain_b64", "clean_b64", "noise_b64.0", "tools_b64.0"} {
		if v.Get(absent).Exists() {
			t.Errorf("%s written for a valid value", absent)
		}
	}
	if got := v.Get("tools.1.description").String(); got != "caf\ufffd \ufffd" {
		t.Errorf("the valid copy reads %q", got)
	}
}
