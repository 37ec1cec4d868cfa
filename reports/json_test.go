package reports

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpprobe/mcpprobe/probe/survey"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/tidwall/gjson"
)

// --json is valid UTF-8 for every parser, and a value that held bytes
// that are not UTF-8 keeps them exactly in its _b64 companion.
func TestObjectKeepsInvalidUTF8(t *testing.T) {
	bad := "caf\xe9 \xff"
	item := []byte(`{"name":"a","description":"` + bad + `"}`)
	o := &jsonout.Object{}
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

// A survey line that had a secret hidden says so, as --json does; one
// that had none does not.
func TestSurveyLineRedacted(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   bool
	}{{"srv --name tok-abcdef123", true}, {"srv --name plain", false}} {
		line := SurveyLine("dev", &survey.Record{ID: "a", Target: tc.target, Secrets: []string{"tok-abcdef123"}})
		if !json.Valid(line) || strings.Contains(string(line), "tok-abcdef123") {
			t.Errorf("%s", line)
		}
		if got := strings.HasSuffix(string(line), `,"redacted":true}`+"\n"); got != tc.want {
			t.Errorf("redacted mark %v, want %v: %s", got, tc.want, line)
		}
	}
}

// The envelope escapes C1 and invisible characters the server's bytes
// held, and says so; what it encodes itself is escaped without a word.
func TestEnvelopeEscapesInvisible(t *testing.T) {
	e := jsonout.Envelope{Version: "dev", Command: "wire", Target: "srv \u009b"}
	plain := e.JSON([]byte(`{"a":1}`))
	if strings.Contains(string(plain), "\u009b") || !strings.Contains(string(plain), `srv \u009b`) || strings.Contains(string(plain), `"escaped"`) {
		t.Errorf("%s", plain)
	}
	server := e.JSON([]byte("{\"d\":\"x\u202ey\"}"))
	if strings.Contains(string(server), "\u202e") || !strings.Contains(string(server), `"d":"x\u202ey"`) || !strings.HasSuffix(string(server), `,"escaped":true}`+"\n") {
		t.Errorf("%s", server)
	}
}
