//go:build e2e

package main

// HTTP answers are answers: over Streamable HTTP, an HTTP error status
// is classified by its body and status, a notification's POST answer is
// judged by the transport's 202 rule, and faults that act on a process
// are refused for a URL, which has none mcpprobe started.

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// mcpgoBinary builds the mcp-go fixture once, for the tests that need it.
func mcpgoBinary(t *testing.T) string { return fixtureBin(t, "mcpgoserver") }

var listenURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`)

func serveOn(t *testing.T, argv ...string) string {
	t.Helper()
	line := startHTTPServer(t, nil, "listening on", argv...)
	u := listenURL.FindString(line)
	if u == "" {
		t.Fatalf("no URL in %q", line)
	}
	return u
}

// No case reads no_answer from a server that answered at once: mcp-go's
// 400 with a JSON-RPC error is rpc_error -32700 (http 400); the Go SDK's
// 400 text/plain is http_error 400; a frame it takes for a response is
// accepted (202). Each open case cites the Streamable HTTP clause, not
// stdio's.
func TestMalformedHTTPAnswers(t *testing.T) {
	t.Parallel()
	servers := []struct {
		name  string
		argv  []string
		wants map[string]string // case → answer
	}{
		{"mcp-go", []string{mcpgoBinary(t), "-http", "127.0.0.1:0"}, map[string]string{
			"|invalid JSON": "rpc_error -32700 (http 400)",
			"|batch":        "rpc_error -32700 (http 400)",
		}},
		{"Go SDK", []string{bin.good, "-http", "127.0.0.1:0"}, map[string]string{
			"|invalid JSON":   "http_error 400",
			"|missing method": "accepted",
		}},
	}
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			env := malformedRun(t, "--timeout", "5s", serveOn(t, sv.argv...))
			got := casesOf(env)
			for key, want := range sv.wants {
				c, ok := got[key]
				if !ok {
					t.Errorf("no case %q", key)
					continue
				}
				a := answerOf(c)
				if c.Get("http_status").Int() >= 300 {
					a += " (http " + c.Get("http_status").Raw + ")"
				}
				if c.Get("channel").String() == "http_error" {
					a = "http_error " + c.Get("http_status").Raw
				}
				if a != want {
					t.Errorf("%s: answered %s, want %s (%s)", key, a, want, c.Get("message"))
				}
			}
			for key, c := range got {
				// A notification accepted with 202 is owed no reply: that
				// no_answer is the right one.
				accepted := key == "|cancel an unknown id" && c.Get("http_status").Int() == 202
				if c.Get("channel").String() == "no_answer" && c.Get("http_status").Type == gjson.Number && !accepted {
					t.Errorf("%s: no_answer from a server that answered HTTP %s", key, c.Get("http_status").Raw)
				}
				if url := c.Get("clause.url").String(); strings.Contains(url, "#stdio") || strings.Contains(url, "/stdio") {
					t.Errorf("%s: an HTTP target judged by the stdio clause %s", key, url)
				}
			}
			for _, key := range []string{"|invalid JSON", "|missing method"} {
				if u := got[key].Get("clause.url").String(); !strings.HasSuffix(u, "#sending-messages-to-the-server") && !strings.HasSuffix(u, "/streamable-http#sending-messages") {
					t.Errorf("%s cites %s, want Streamable HTTP's Sending Messages", key, u)
				}
			}
			checkVerdictsCite(t, sv.name, env)
		})
	}
}

// A notification answered 200 with a body breaks Streamable HTTP's MUST
// (202 Accepted, no body): malformed fails its cancel case on that clause,
// and wire reports it for notifications/initialized; the Go SDK as it is
// (202) passes both.
func TestHTTPNotificationAnswered200(t *testing.T) {
	t.Parallel()
	bad := serveOn(t, bin.good, "-http", "127.0.0.1:0", "-notify-body")
	c := casesOf(malformedRun(t, "--timeout", "5s", bad))["|cancel an unknown id"]
	if c.Get("verdict").String() != "fail" || c.Get("http_status").Int() != 200 {
		t.Errorf("cancel answered 200 with a body: %s", c.Raw)
	}
	if u := c.Get("clause.url").String(); !strings.HasSuffix(u, "/basic/transports#sending-messages-to-the-server") || c.Get("clause.keyword").String() != "MUST" {
		t.Errorf("the verdict cites %s %s, want the transport's MUST", c.Get("clause.keyword"), u)
	}
	w := wireJSON(t, bad)
	var found bool
	for _, f := range w.Get("findings").Array() {
		if f.Get("code").String() == "http-notification-answer" {
			found = true
			if !strings.Contains(f.Get("message").String(), "notifications/initialized") || !strings.Contains(f.Get("message").String(), "HTTP 200") {
				t.Errorf("finding: %s", f.Get("message"))
			}
		}
	}
	if !found {
		t.Errorf("wire found no http-notification-answer: %s", w.Get("findings").Raw)
	}

	good := serveOn(t, bin.good, "-http", "127.0.0.1:0")
	c = casesOf(malformedRun(t, "--timeout", "5s", good))["|cancel an unknown id"]
	if c.Get("verdict").String() != "pass" || c.Get("http_status").Int() != 202 {
		t.Errorf("cancel answered 202: %s", c.Raw)
	}
	for _, f := range wireJSON(t, good).Get("findings").Array() {
		if f.Get("code").String() == "http-notification-answer" {
			t.Errorf("a 202 reported: %s", f.Get("message"))
		}
	}
}

// faults on a URL refuses what acts on a process, with exit 2 and the
// faults that apply, and runs those.
func TestFaultsURLRefusesProcessFaults(t *testing.T) {
	t.Parallel()
	u := serveOn(t, bin.good, "-http", "127.0.0.1:0")
	for _, args := range [][]string{
		{"faults", "--crash-at", "2", u},
		{"faults", "--drop-at", "2", "--restart", u},
		{"faults", "--pollute", "line", u},
		{"faults", "--exit-at-startup", u},
	} {
		r := mcpprobe(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "--drop-at, --garble-at") && !strings.Contains(r.stderr, "--slow-at, --drop-at, --garble-at") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "process group killed") || strings.Contains(r.stdout, "restarts") {
			t.Errorf("%v claims what it did not do: %s", args, r.stdout)
		}
	}
	r := mcpprobe(t, "faults", "--json", "--drop-at", "2", "--calls", "3", "--timeout", "2s", u)
	if r.code != 0 {
		t.Fatalf("--drop-at on a URL: exit %d: %s", r.code, r.stderr)
	}
	if got := gjson.Get(r.stdout, "faults.runs.0.calls.1.outcome").String(); got != "timeout" {
		t.Errorf("call 2 dropped: outcome %q, want timeout (%s)", got, gjson.Get(r.stdout, "faults.runs.0.calls").Raw)
	}
}

// report --faults on a URL runs the held-reply scenario only, and says
// which it left out and why.
func TestReportFaultsURL(t *testing.T) {
	t.Parallel()
	u := serveOn(t, bin.good, "-http", "127.0.0.1:0")
	r := mcpprobe(t, "report", "--faults", "--timeout", "2s", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "call 2 held 2 s") || strings.Contains(r.stdout, "| crash during call 3") {
		t.Errorf("scenarios run on a URL:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "not run for a URL target") || !strings.Contains(r.stdout, "crash during call 3, client restarts") {
		t.Errorf("the report does not say what it left out:\n%s", r.stdout)
	}
}
