//go:build e2e

package main

// The canary matrix (issue 23): a secret echoed by a server in every form
// a reader would decode (plain, JSON \u escapes one a character, base64
// std and url at the three alignments, percent, hex), through every
// channel a server has, must be in no output mcpprobe writes, in any of
// those forms. The checker decodes every form itself.

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// canary is the secret: it holds / and + so that its base64, percent and
// JSON forms differ from the plain one.
const canary = "Zq9-live/Key+8ab"

// canaryForms is the canary in every form, tagged, as the fixture writes
// them (fixtures/rawserver/canary.go), for the HTTP server.
func canaryForms(s string) string {
	var esc, pct strings.Builder
	for _, r := range s {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	for _, c := range []byte(s) {
		fmt.Fprintf(&pct, "%%%02X", c)
	}
	forms := []string{"[plain] " + s, "[json-escaped] " + esc.String()}
	for off, pad := range []string{"", "x", "xy"} {
		data := []byte(pad + s + "!?")
		forms = append(forms, fmt.Sprintf("[b64std%d] %s", off, base64.StdEncoding.EncodeToString(data)),
			fmt.Sprintf("[b64url%d] %s", off, base64.RawURLEncoding.EncodeToString(data)))
	}
	forms = append(forms, "[percent-all] "+pct.String(), "[percent-query] "+url.QueryEscape(s),
		"[hex] "+hex.EncodeToString([]byte(s)), "[HEX] "+strings.ToUpper(hex.EncodeToString([]byte(s))))
	return strings.Join(forms, " ")
}

var (
	jsonEscapeRE = regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|["\\/bfnrt])`)
	b64Run       = regexp.MustCompile(`[A-Za-z0-9+/_-]{8,}`)
)

// leaks says which decoded forms of secret text holds, undoing JSON
// escapes layer by layer, and at each layer percent-decoding, reading
// hex in either case and decoding every base64 run from each of its
// first three characters in both alphabets.
func leaks(text, secret string) []string {
	var found []string
	lower := hex.EncodeToString([]byte(secret))
	for layer := 0; layer < 5; layer++ {
		add := func(what string) { found = append(found, fmt.Sprintf("%s (layer %d)", what, layer)) }
		if strings.Contains(text, secret) {
			add("plain")
		}
		if strings.Contains(strings.ToLower(text), lower) {
			add("hex")
		}
		if u, err := url.QueryUnescape(text); err == nil && strings.Contains(u, secret) {
			add("percent")
		} else if u, err := url.PathUnescape(text); err == nil && strings.Contains(u, secret) {
			add("percent")
		} else if strings.Contains(pctDecode(text), secret) {
			add("percent")
		}
		for _, run := range b64Run.FindAllString(text, -1) {
			for off := 0; off < 3 && off < len(run); off++ {
				for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
					r := run[off:]
					r = r[:len(r)/4*4+min(len(r)%4, 3)]
					if len(r)%4 == 1 {
						r = r[:len(r)-1]
					}
					if dec, err := enc.DecodeString(r); err == nil && strings.Contains(string(dec), secret) {
						add("base64 " + run)
					}
				}
			}
		}
		next := jsonEscapeRE.ReplaceAllStringFunc(text, func(e string) string {
			var d string
			if json.Unmarshal([]byte(`"`+e+`"`), &d) != nil {
				return e
			}
			return d
		})
		if next == text {
			break
		}
		text = next
	}
	return found
}

// pctDecode decodes every %XX, leaving anything else (url's decoders
// refuse a text with one bad %).
func pctDecode(s string) string {
	return regexp.MustCompile(`%[0-9a-fA-F]{2}`).ReplaceAllStringFunc(s, func(m string) string {
		b, _ := hex.DecodeString(m[1:])
		return string(b)
	})
}

func TestCanaryCheckerFindsEveryForm(t *testing.T) {
	t.Parallel()
	for _, form := range strings.Split(canaryForms(canary), " [") {
		if len(leaks(form, canary)) == 0 {
			t.Errorf("the checker misses %q", form)
		}
	}
	// And a trace line's raw, one layer further.
	b, _ := json.Marshal(`{"d":"` + canaryForms(canary) + `"}`)
	if len(leaks(string(b), canary)) < 10 {
		t.Errorf("the checker misses forms a layer down: %q", leaks(string(b), canary))
	}
}

// canaryHTTP is a Streamable HTTP server that echoes the bearer token in
// every form in its response headers and bodies; under /fail/ it
// refuses with 401.
func canaryHTTP(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		forms := canaryForms(tok)
		str := func(prefix string) string { return `"` + prefix + " " + forms + `"` }
		w.Header().Set("X-Echo", forms)
		if strings.HasPrefix(r.URL.Path, "/fail/") {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+forms+`"`)
			w.WriteHeader(401)
			fmt.Fprintf(w, "denied: %s", forms)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg := gjson.ParseBytes(body)
		id := msg.Get("id").Raw
		w.Header().Set("Content-Type", "application/json; x-echo="+url.QueryEscape(tok))
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(405)
		case msg.Get("method").String() == "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canary","version":"1"},"instructions":%s}}`, id, str("Use"))
		case msg.Get("method").String() == "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","description":%s,"inputSchema":{"type":"object"}}]}}`, id, str("Authenticates with"))
		case msg.Get("id").Exists():
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%s}}`, id, str("no such method for"))
		default:
			w.WriteHeader(202)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCanaryMatrix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	env := []string{"--env", "API_TOKEN=" + canary}
	server := func(extra ...string) []string {
		return append([]string{"--", bin.raw, "-canary", "API_TOKEN"}, extra...)
	}
	hs := canaryHTTP(t)
	bearer := []string{"-H", "Authorization: Bearer " + canary}
	fleet := writeFleet(t, []fleetLine{{ID: "canary", Command: bin.raw, Args: []string{"-canary", "API_TOKEN"}, Env: map[string]string{"API_TOKEN": canary}}})
	type run struct {
		name     string
		args     []string
		wantCode int
	}
	stdio := func(name string, code int, args ...string) run {
		return run{name, append(append(args, env...), server()...), code}
	}
	runs := []run{
		stdio("wire", 0, "wire", "--trace", p("wire.jsonl"), "--save", p("saved")),
		stdio("wire --json", 0, "wire", "--json"),
		stdio("snapshot", 0, "snapshot", "-o", p("lock.json")),
		stdio("snapshot --json", 0, "snapshot", "--json"),
		stdio("report", 0, "report"),
		stdio("report --json", 0, "report", "--json"),
		stdio("call --progress", 0, "call", "--progress", "--trace", p("call.jsonl"), "--save", p("callsaved"), "echo"),
		stdio("call --json --progress", 0, "call", "--json", "--progress", "echo"),
		stdio("call boom", 0, "call", "--progress", "boom"),
		stdio("call boom --json", 0, "call", "--json", "boom"),
		{"initialize error", append(append([]string{"wire", "--json", "--trace", p("fail.jsonl")}, env...), server("-canary-fail", "error")...), 3},
		{"initialize error, text", append(append([]string{"wire"}, env...), server("-canary-fail", "error")...), 3},
		{"exit text", append(append([]string{"wire", "--trace", p("exit.jsonl")}, env...), server("-canary-fail", "exit")...), 3},
		{"exit --json", append(append([]string{"report", "--json"}, env...), server("-canary-fail", "exit")...), 3},
		{"survey", []string{"survey", fleet}, 0},
		{"http wire", append([]string{"wire", "--trace", p("http.jsonl")}, append(bearer, hs.URL+"/ok/mcp")...), 0},
		{"http wire --json", append([]string{"wire", "--json"}, append(bearer, hs.URL+"/ok/mcp")...), 0},
		{"http report", append([]string{"report"}, append(bearer, hs.URL+"/ok/mcp")...), 0},
		{"http 401", append([]string{"wire", "--json", "--trace", p("http401.jsonl")}, append(bearer, hs.URL+"/fail/mcp")...), 3},
	}
	type output struct{ name, text string }
	var mu sync.Mutex
	var outputs []output
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := probeRun(t, nil, nil, r.args...)
			if res.code != r.wantCode {
				t.Errorf("%s: exit %d, want %d: %s", r.name, res.code, r.wantCode, res.stderr)
			}
			mu.Lock()
			outputs = append(outputs, output{r.name + " stdout", res.stdout}, output{r.name + " stderr", res.stderr})
			mu.Unlock()
		}()
	}
	wg.Wait()
	var files []string
	for _, g := range []string{"*.jsonl", "lock.json", "saved/*", "callsaved/*"} {
		m, _ := filepath.Glob(p(g))
		files = append(files, m...)
	}
	if len(files) < 9 {
		t.Errorf("only %d files written: %q", len(files), files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		outputs = append(outputs, output{strings.TrimPrefix(f, dir+"/"), string(b)})
	}
	for _, o := range outputs {
		for _, l := range leaks(o.text, canary) {
			t.Errorf("%s shows the canary, %s", o.name, l)
		}
	}
	// Each output only proves something if the server's echo reached it.
	for _, o := range outputs {
		if strings.HasSuffix(o.name, "stdout") && o.text != "" && !strings.Contains(o.text, "***") {
			t.Errorf("%s shows no *** : the echo never reached it, and it proves nothing:\n%.300s", o.name, o.text)
		}
	}
	for _, o := range outputs {
		if strings.HasSuffix(o.name, "--json stdout") && strings.Contains(o.text, "***") && !strings.Contains(o.text, `"redacted":true`) {
			t.Errorf("%s does not say it was redacted", o.name)
		}
	}
}
