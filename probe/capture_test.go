package probe

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// req is one message the probe sent, as the fake server sees it.
type req struct {
	Raw    string
	Method string // "" for a response the probe sent
	ID     string // raw id, "" for a notification
	Params gjson.Result
}

func parseReq(raw []byte) req {
	v := gjson.ParseBytes(raw)
	r := req{Raw: string(raw), Method: v.Get("method").String(), Params: v.Get("params")}
	if id := v.Get("id"); id.Exists() {
		r.ID = id.Raw
	}
	return r
}

// serverFunc answers one message with raw replies, sent in order.
type serverFunc func(r req) []string

// startServer runs h as a scripted server on a fake conn until the test ends.
func startServer(t *testing.T, h serverFunc) *fakeConn {
	t.Helper()
	c := newFakeConn()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case raw := <-c.sent:
				for _, out := range h(parseReq(raw)) {
					c.reply(out)
				}
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
		c.end(nil)
	})
	return c
}

func ok(r req, result string) []string {
	return []string{`{"jsonrpc":"2.0","id":` + r.ID + `,"result":` + result + `}`}
}

func fail(r req, code int, msg, data string) []string {
	e := `{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(msg)
	if data != "" {
		e += `,"data":` + data
	}
	return []string{`{"jsonrpc":"2.0","id":` + r.ID + `,"error":` + e + `}}`}
}

// route is one method's handler in a scripted server.
type route func(r req) []string

// pages answers a list method by the cursor it was asked with.
func pages(byCursor map[string]string) route {
	return func(r req) []string {
		res, found := byCursor[r.Params.Get("cursor").String()]
		if !found {
			return fail(r, -32602, "unknown cursor", "")
		}
		return ok(r, res)
	}
}

func notFound(r req) []string { return fail(r, CodeMethodNotFound, "Method not found", "") }

func silent(req) []string { return nil }

// legacyInit answers initialize with the version asked for.
func legacyInit(caps string) route {
	return func(r req) []string {
		v := r.Params.Get("protocolVersion").String()
		return ok(r, `{"protocolVersion":"`+v+`","capabilities":`+caps+`,"serverInfo":{"name":"fake","version":"1.0"}}`)
	}
}

// scripted dispatches requests to routes; server/discover answers -32601
// unless routed, ping {}, and initialize answers with caps.
func scripted(caps string, routes map[string]route) serverFunc {
	return func(r req) []string {
		if r.ID == "" || r.Method == "" {
			return nil // a notification, or the probe's answer to us
		}
		if h, found := routes[r.Method]; found {
			return h(r)
		}
		switch r.Method {
		case "server/discover":
			return notFound(r)
		case "initialize":
			return legacyInit(caps)(r)
		case "ping":
			// Every legacy revision makes answering ping a MUST; a -32601
			// to it is the 2026-07-28 era's (see awaitDiscover).
			return ok(r, `{}`)
		}
		return notFound(r)
	}
}

const discoverOK = `{"resultType":"complete","supportedVersions":["2026-07-28"],` +
	`"capabilities":{"tools":{"listChanged":true},"prompts":{}},"instructions":"be nice",` +
	`"_meta":{"io.modelcontextprotocol/serverInfo":{ "name":"modern-fake","version":"2" }}}`

func fastOptions(protocol string) Options {
	return Options{
		Protocol:        protocol,
		Timeout:         200 * time.Millisecond,
		StartupTimeout:  time.Second,
		DiscoverTimeout: 200 * time.Millisecond,
	}
}

// requests returns what the probe sent of its own accord: requests and
// notifications, not its answers to the server.
func requests(c *fakeConn) []req {
	var out []req
	for _, raw := range c.sentLog() {
		if r := parseReq(raw); r.Method != "" {
			out = append(out, r)
		}
	}
	return out
}

func methodsOf(rs []req) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Method
	}
	return out
}

func countMethod(rs []req, m string) int {
	n := 0
	for _, r := range rs {
		if r.Method == m {
			n++
		}
	}
	return n
}

func findingsOf(c *Capture, code string) []Finding {
	var out []Finding
	for _, f := range c.Findings {
		if f.Code.String() == code {
			out = append(out, f)
		}
	}
	return out
}

func wantFinding(t *testing.T, c *Capture, severity, code string, inMessage ...string) {
	t.Helper()
	fs := findingsOf(c, code)
	if len(fs) == 0 {
		t.Errorf("no %q finding in %+v", code, c.Findings)
		return
	}
	for _, f := range fs {
		if string(f.Severity) != severity {
			continue
		}
		all := true
		for _, s := range inMessage {
			all = all && strings.Contains(f.Message, s)
		}
		if all {
			return
		}
	}
	t.Errorf("no %s %q finding containing %q in %+v", severity, code, inMessage, fs)
}

func noFinding(t *testing.T, c *Capture, code string) {
	t.Helper()
	if fs := findingsOf(c, code); len(fs) > 0 {
		t.Errorf("unexpected %q finding: %+v", code, fs)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// run captures over c. Every caller runs in a bubble, so the guard is on
// the bubble's clock: it fires only once every goroutine waits, which no
// load can bring about early, and then at once.
func run(t *testing.T, c *fakeConn, o Options) (*Capture, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	capt, err := Run(ctx, c, o)
	if capt == nil {
		t.Fatalf("Run returned no capture (err %v)", err)
	}
	if capt.Trace != c.Trace() {
		t.Errorf("capture trace is not the conn's")
	}
	return capt, err
}

func TestRunEra(t *testing.T) {
	metaVersion := "params._meta." + gjson.Escape(MetaProtocolVersion)
	tests := []struct {
		name   string
		proto  string
		server serverFunc
		check  func(t *testing.T, c *Capture, err error, sent []req)
	}{
		{
			name:  "modern: discover answered",
			proto: "auto",
			server: scripted("", map[string]route{
				"server/discover": func(r req) []string { return ok(r, discoverOK) },
				"tools/list": pages(map[string]string{
					"":   `{"resultType":"complete","tools":[{"name":"a","inputSchema":{}}],"nextCursor":"n2","ttlMs":0,"cacheScope":"public"}`,
					"n2": `{"resultType":"complete","tools":[{"name":"b","inputSchema":{}}],"ttlMs":0,"cacheScope":"public"}`,
				}),
				"prompts/list": pages(map[string]string{"": `{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}`}),
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if c.Era != "modern" || c.ProtocolVersion != "2026-07-28" || c.RequestedVersion != "2026-07-28" {
					t.Errorf("era %q version %q requested %q", c.Era, c.ProtocolVersion, c.RequestedVersion)
				}
				if c.Discover != "supported" {
					t.Errorf("Discover = %q", c.Discover)
				}
				want := []string{"server/discover", "tools/list", "tools/list", "prompts/list"}
				if got := methodsOf(sent); !equalStrings(got, want) {
					t.Errorf("sent %q, want %q", got, want)
				}
				for _, r := range sent {
					if r.ID == "" {
						t.Errorf("modern probe sent a notification: %s", r.Raw)
					}
					if v := gjson.Get(r.Raw, metaVersion).String(); v != "2026-07-28" {
						t.Errorf("%s carries protocol version %q in _meta: %s", r.Method, v, r.Raw)
					}
					if n := gjson.Get(r.Raw, "params._meta."+gjson.Escape(MetaClientInfo)+".name").String(); n != "mcpprobe" {
						t.Errorf("%s carries client name %q", r.Method, n)
					}
					if !gjson.Get(r.Raw, "params._meta."+gjson.Escape(MetaClientCapabilities)).IsObject() {
						t.Errorf("%s has no client capabilities", r.Method)
					}
				}
				if cur := sent[2].Params.Get("cursor").String(); cur != "n2" {
					t.Errorf("page 2 cursor %q", cur)
				}
				if sent[1].Params.Get("cursor").Exists() {
					t.Errorf("page 1 sent a cursor: %s", sent[1].Raw)
				}
				if c.Handshake == nil || c.Handshake.Method != "server/discover" {
					t.Fatalf("Handshake = %+v", c.Handshake)
				}
				if string(c.Handshake.Result) != discoverOK {
					t.Errorf("handshake result %s", c.Handshake.Result)
				}
				if string(c.ServerInfo) != `{ "name":"modern-fake","version":"2" }` {
					t.Errorf("ServerInfo = %s", c.ServerInfo)
				}
				if string(c.Capabilities) != `{"tools":{"listChanged":true},"prompts":{}}` {
					t.Errorf("Capabilities = %s", c.Capabilities)
				}
				if c.Instructions == nil || *c.Instructions != "be nice" {
					t.Errorf("Instructions = %v", c.Instructions)
				}
				if len(c.Tools.Items) != 2 || string(c.Tools.Items[1]) != `{"name":"b","inputSchema":{}}` {
					t.Errorf("tools %q", c.Tools.Items)
				}
				if !c.Prompts.Asked || c.Resources.Asked || c.Templates.Asked {
					t.Errorf("asked: prompts %v resources %v templates %v", c.Prompts.Asked, c.Resources.Asked, c.Templates.Asked)
				}
				if c.Timings.Handshake != c.Handshake.T || c.Timings.Handshake <= 0 {
					t.Errorf("handshake timing %v", c.Timings.Handshake)
				}
				if len(c.Findings) != 0 {
					t.Errorf("findings: %+v", c.Findings)
				}
			},
		},
		{
			name:  "modern: lists answered in the 2025 shape",
			proto: "auto",
			server: scripted("", map[string]route{
				"server/discover": func(r req) []string { return ok(r, discoverOK) },
				"tools/list": pages(map[string]string{
					"":   `{"tools":[{"name":"a","inputSchema":{}}],"nextCursor":"n2"}`,
					"n2": `{"tools":[{"name":"b","inputSchema":{}}]}`,
				}),
				"prompts/list": pages(map[string]string{"": `{"resultType":"complete","prompts":[],"ttlMs":0}`}),
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got := findingsOf(c, "legacy-shaped-result"); len(got) != 2 {
					t.Fatalf("legacy-shaped-result findings %+v, want one per list", got)
				}
				wantFinding(t, c, "warning", "legacy-shaped-result", "tools/list (page 1 of 2) has no resultType, no ttlMs, no cacheScope")
				wantFinding(t, c, "warning", "legacy-shaped-result", "prompts/list (page 1 of 1) has no cacheScope")
			},
		},
		{
			name:  "modern: serverInfo at top level, no resultType",
			proto: "auto",
			server: scripted("", map[string]route{
				"server/discover": func(r req) []string {
					return ok(r, `{"supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{},"serverInfo":{"name":"top"}}`)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "modern" || c.ProtocolVersion != "2026-07-28" {
					t.Errorf("era %q version %q", c.Era, c.ProtocolVersion)
				}
				if string(c.ServerInfo) != `{"name":"top"}` {
					t.Errorf("ServerInfo = %s", c.ServerInfo)
				}
				wantFinding(t, c, "warning", "no-result-type")
				if got := methodsOf(sent); !equalStrings(got, []string{"server/discover"}) {
					t.Errorf("sent %q: no capability, no list", got)
				}
			},
		},
		{
			name:  "legacy: discover answered -32601",
			proto: "auto",
			server: scripted(`{"tools":{}}`, map[string]route{
				"tools/list": pages(map[string]string{"": `{"tools":[]}`}),
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "legacy" || c.ProtocolVersion != "2025-11-25" || c.RequestedVersion != "2025-11-25" {
					t.Errorf("era %q version %q requested %q", c.Era, c.ProtocolVersion, c.RequestedVersion)
				}
				if want := "not supported (error -32601: Method not found); fell back to initialize"; c.Discover != want {
					t.Errorf("Discover = %q", c.Discover)
				}
				want := []string{"server/discover", "initialize", "notifications/initialized", "tools/list"}
				if got := methodsOf(sent); !equalStrings(got, want) {
					t.Fatalf("sent %q, want %q", got, want)
				}
				init := sent[1]
				if init.Params.Get("protocolVersion").String() != "2025-11-25" ||
					init.Params.Get("capabilities").Raw != `{}` ||
					init.Params.Get("clientInfo").Raw != `{"name":"mcpprobe","version":"dev"}` {
					t.Errorf("initialize params %s", init.Params.Raw)
				}
				if sent[2].Raw != `{"jsonrpc":"2.0","method":"notifications/initialized"}` {
					t.Errorf("initialized notification %s", sent[2].Raw)
				}
				if sent[3].Params.Exists() {
					t.Errorf("legacy first page carries params: %s", sent[3].Raw)
				}
				if c.Handshake == nil || c.Handshake.Method != "initialize" {
					t.Fatalf("Handshake %+v", c.Handshake)
				}
				if string(c.ServerInfo) != `{"name":"fake","version":"1.0"}` || string(c.Capabilities) != `{"tools":{}}` {
					t.Errorf("ServerInfo %s Capabilities %s", c.ServerInfo, c.Capabilities)
				}
				if !c.Tools.Asked || len(c.Tools.Pages) != 1 || len(c.Tools.Items) != 0 || c.Tools.Error != "" {
					t.Errorf("tools %+v", c.Tools)
				}
			},
		},
		{
			name:  "legacy: -32022 naming only 2025-11-25",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"server/discover": func(r req) []string {
					return fail(r, CodeUnsupportedProtocolVersion, "Unsupported protocol version",
						`{"supported":["2025-11-25"],"requested":"2026-07-28"}`)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "legacy" || c.ProtocolVersion != "2025-11-25" {
					t.Errorf("era %q version %q", c.Era, c.ProtocolVersion)
				}
				if !strings.Contains(c.Discover, `naming only legacy versions ["2025-11-25"]; fell back to initialize`) {
					t.Errorf("Discover = %q", c.Discover)
				}
				want := []string{"server/discover", "initialize", "notifications/initialized"}
				if got := methodsOf(sent); !equalStrings(got, want) {
					t.Fatalf("sent %q, want %q", got, want)
				}
				if v := sent[1].Params.Get("protocolVersion").String(); v != "2025-11-25" {
					t.Errorf("initialize asked for %q", v)
				}
			},
		},
		{
			name:  "fatal: -32022 naming no version mcpprobe speaks",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"server/discover": func(r req) []string {
					return fail(r, CodeUnsupportedProtocolVersion, "Unsupported", `{"supported":["2099-01-01"]}`)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				var fe *FatalError
				if !errors.As(err, &fe) {
					t.Fatalf("err = %v, want *FatalError", err)
				}
				if !strings.Contains(fe.What, "does not support protocol version 2026-07-28") || !strings.Contains(fe.Received, "2099-01-01") {
					t.Errorf("FatalError %+v", fe)
				}
				var re *RPCError
				if !errors.As(err, &re) || re.Code != CodeUnsupportedProtocolVersion {
					t.Errorf("cause not kept: %v", fe.Err)
				}
				if countMethod(sent, "initialize") != 0 {
					t.Errorf("initialize sent after a fatal discover")
				}
			},
		},
		{
			name:  "legacy: discover supports only legacy versions",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"server/discover": func(r req) []string {
					return ok(r, `{"supportedVersions":["2025-06-18"],"capabilities":{}}`)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "legacy" || c.Handshake.Method != "initialize" {
					t.Errorf("era %q handshake %s", c.Era, c.Handshake.Method)
				}
				if !strings.Contains(c.Discover, `supports only legacy versions ["2025-06-18"]`) {
					t.Errorf("Discover = %q", c.Discover)
				}
			},
		},
		{
			name:  "legacy: discover silent",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"server/discover": silent,
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "legacy" || c.ProtocolVersion != "2025-11-25" {
					t.Errorf("era %q version %q", c.Era, c.ProtocolVersion)
				}
				if c.Discover != "no answer within 200ms after the server was up (its first message); fell back to initialize" {
					t.Errorf("Discover = %q", c.Discover)
				}
				wantFinding(t, c, "info", "discover-silent", "200ms after the server was up")
				// Silent and so far unheard from: a ping asks whether it is up.
				if got := methodsOf(sent)[:3]; !equalStrings(got, []string{"server/discover", "ping", "initialize"}) {
					t.Errorf("sent %q", got)
				}
			},
		},
		{
			name:   "pinned legacy 2025-06-18 never sends server/discover",
			proto:  "2025-06-18",
			server: scripted(`{"tools":{}}`, map[string]route{"tools/list": pages(map[string]string{"": `{"tools":[]}`})}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"initialize", "notifications/initialized", "tools/list"}
				if got := methodsOf(sent); !equalStrings(got, want) {
					t.Fatalf("sent %q, want %q", got, want)
				}
				if v := sent[0].Params.Get("protocolVersion").String(); v != "2025-06-18" {
					t.Errorf("initialize asked for %q", v)
				}
				if c.Era != "legacy" || c.ProtocolVersion != "2025-06-18" || c.RequestedVersion != "2025-06-18" {
					t.Errorf("era %q version %q requested %q", c.Era, c.ProtocolVersion, c.RequestedVersion)
				}
				if c.Discover != "not tried: --protocol 2025-06-18 pins a legacy version" {
					t.Errorf("Discover = %q", c.Discover)
				}
				noFinding(t, c, "version-not-pinned")
			},
		},
		{
			name:  "pinned legacy answered with another version",
			proto: "2025-06-18",
			server: scripted(`{}`, map[string]route{
				"initialize": func(r req) []string {
					return ok(r, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x"}}`)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				if c.ProtocolVersion != "2025-11-25" || c.RequestedVersion != "2025-06-18" {
					t.Errorf("version %q requested %q", c.ProtocolVersion, c.RequestedVersion)
				}
				wantFinding(t, c, "warning", "version-not-pinned", "2025-06-18", "2025-11-25")
			},
		},
		{
			name:   "pinned modern: -32601 to discover is fatal",
			proto:  "2026-07-28",
			server: scripted(`{}`, nil),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				var fe *FatalError
				if !errors.As(err, &fe) || fe.What != "server/discover failed" {
					t.Fatalf("err = %#v", err)
				}
				if !IsMethodNotFound(err) {
					t.Errorf("cause lost: %v", err)
				}
				if got := methodsOf(sent); !equalStrings(got, []string{"server/discover"}) {
					t.Errorf("sent %q", got)
				}
			},
		},
		{
			name:  "initialize rejected for 2025-11-25, accepted for 2025-06-18",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"initialize": func(r req) []string {
					if r.Params.Get("protocolVersion").String() == "2025-11-25" {
						return fail(r, CodeInvalidParams, "Unsupported protocol version", `{"supported":["2025-06-18"]}`)
					}
					return legacyInit(`{}`)(r)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"server/discover", "initialize", "initialize", "notifications/initialized"}
				if got := methodsOf(sent); !equalStrings(got, want) {
					t.Fatalf("sent %q, want %q", got, want)
				}
				if a, b := sent[1].Params.Get("protocolVersion").String(), sent[2].Params.Get("protocolVersion").String(); a != "2025-11-25" || b != "2025-06-18" {
					t.Errorf("initialize versions %q then %q", a, b)
				}
				if c.Era != "legacy" || c.ProtocolVersion != "2025-06-18" || c.RequestedVersion != "2025-06-18" {
					t.Errorf("era %q version %q requested %q", c.Era, c.ProtocolVersion, c.RequestedVersion)
				}
				wantFinding(t, c, "warning", "initialize-rejected", "2025-11-25", "-32602", "Unsupported protocol version")
				if n := len(findingsOf(c, "initialize-rejected")); n != 1 {
					t.Errorf("%d initialize-rejected findings", n)
				}
			},
		},
		{
			name:  "initialize rejected for every version",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"initialize": func(r req) []string { return fail(r, CodeInvalidParams, "nope", "") },
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				var fe *FatalError
				if !errors.As(err, &fe) {
					t.Fatalf("err = %v", err)
				}
				if !strings.Contains(fe.What, "(2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)") {
					t.Errorf("What = %q", fe.What)
				}
				var re *RPCError
				if !errors.As(err, &re) || re.Code != CodeInvalidParams {
					t.Errorf("cause %v", fe.Err)
				}
				if n := len(findingsOf(c, "initialize-rejected")); n != 4 {
					t.Errorf("%d initialize-rejected findings, want 4", n)
				}
				if countMethod(sent, "initialize") != 4 || countMethod(sent, "notifications/initialized") != 0 {
					t.Errorf("sent %q", methodsOf(sent))
				}
				if c.Era != "" {
					t.Errorf("Era = %q", c.Era)
				}
			},
		},
		{
			name:  "initialize result without protocolVersion or serverInfo",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"initialize": func(r req) []string { return ok(r, `{"capabilities":{}}`) },
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				wantFinding(t, c, "error", "no-protocol-version")
				wantFinding(t, c, "warning", "no-server-info")
				if c.ServerInfo != nil {
					t.Errorf("ServerInfo = %s", c.ServerInfo)
				}
			},
		},
		{
			name:  "initialize result without capabilities",
			proto: "auto",
			server: scripted(`{}`, map[string]route{
				"initialize": func(r req) []string {
					return ok(r, `{"protocolVersion":"2099-01-01","serverInfo":{},"instructions":42}`)
				},
			}),
			check: func(t *testing.T, c *Capture, err error, sent []req) {
				if err != nil {
					t.Fatal(err)
				}
				wantFinding(t, c, "error", "no-capabilities", "initialize")
				wantFinding(t, c, "warning", "unknown-protocol-version", "2099-01-01")
				wantFinding(t, c, "warning", "instructions-not-string")
				if c.Instructions != nil {
					t.Errorf("Instructions = %q", *c.Instructions)
				}
				if c.Tools.Asked || c.Prompts.Asked || c.Resources.Asked || c.Templates.Asked {
					t.Errorf("a list was asked with no capabilities")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				conn := startServer(t, tc.server)
				c, err := run(t, conn, fastOptions(tc.proto))
				tc.check(t, c, err, requests(conn))
			})
		})
	}
}

func TestRunInitializeTimeout(t *testing.T) { inBubble(t, testRunInitializeTimeout) }

func testRunInitializeTimeout(t *testing.T) {
	conn := startServer(t, scripted(`{}`, map[string]route{
		"server/discover": silent,
		"initialize":      silent,
	}))
	o := fastOptions("auto")
	o.StartupTimeout = 400 * time.Millisecond
	c, err := run(t, conn, o)
	var fe *FatalError
	if !errors.As(err, &fe) || !strings.Contains(fe.What, "did not answer initialize within") {
		t.Fatalf("err = %v", err)
	}
	var te *TimeoutError
	if !errors.As(err, &te) || te.Method != "initialize" {
		t.Errorf("cause %v", fe.Err)
	}
	// The ping's answer showed the server up; initialize then went
	// unanswered for what was left of --startup-timeout.
	if got := methodsOf(requests(conn)); !equalStrings(got, []string{"server/discover", "ping", "initialize"}) {
		t.Errorf("sent %q", got)
	}
	if c.Era != "" {
		t.Errorf("Era %q", c.Era)
	}
}

func TestRunPagination(t *testing.T) { inBubble(t, testRunPagination) }

func testRunPagination(t *testing.T) {
	// Items carry odd spacing, escapes and tabs: they must come back as the
	// very bytes the server wrote.
	items := []string{
		`{"name" : "a","inputSchema":{ }}`,
		`{ "name":"b",	"description":"caf\u00e9 \"q\"",  "inputSchema":{"type":"object"} }`,
		`{"name":"c","inputSchema":{"type" : "object","properties":{ "x":{"type":"string"} }}}`,
		`{"inputSchema":{},"name":"d"}`,
		`{"name":"e",
"inputSchema":{}}`,
	}
	results := map[string]string{
		"":       `{"tools":[ ` + items[0] + ` ,` + items[1] + `	],"nextCursor":"c 2"}`,
		"c 2":    `{ "nextCursor" : "c\"3" , "tools" : [` + items[2] + `]}`,
		`c"3`:    `{"tools":[` + items[3] + `,  ` + items[4] + `],"nextCursor":null}`,
		"unused": `{"tools":[]}`,
	}
	conn := startServer(t, scripted(`{"tools":{}}`, map[string]route{"tools/list": pages(results)}))
	c, err := run(t, conn, fastOptions("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Tools
	if l.Method != "tools/list" || l.Key != "tools" || !l.Asked || l.Error != "" {
		t.Errorf("list %+v", l)
	}
	if len(l.Items) != len(items) {
		t.Fatalf("%d items, want %d: %q", len(l.Items), len(items), l.Items)
	}
	for i, it := range l.Items {
		if !bytes.Equal(it, []byte(items[i])) {
			t.Errorf("item %d:\n got %q\nwant %q", i, it, items[i])
		}
	}
	wantCursors := []string{"", "c 2", `c"3`}
	if len(l.Pages) != 3 {
		t.Fatalf("%d pages", len(l.Pages))
	}
	frames := conn.Trace().Frames()
	for i, p := range l.Pages {
		if p.N != i+1 || p.Cursor != wantCursors[i] || p.Method != "tools/list" {
			t.Errorf("page %d: N %d cursor %q method %q", i, p.N, p.Cursor, p.Method)
		}
		if !bytes.Equal(p.Result, []byte(results[wantCursors[i]])) {
			t.Errorf("page %d Result %s", i, p.Result)
		}
		if !bytes.Equal(p.Raw, frames[p.Seq].Raw) || !bytes.Contains(p.Raw, p.Result) {
			t.Errorf("page %d Raw %s is not frame %d", i, p.Raw, p.Seq)
		}
	}
	if c.Timings.LastPage != l.Pages[2].T {
		t.Errorf("LastPage %v, want %v", c.Timings.LastPage, l.Pages[2].T)
	}
	sent := requests(conn)
	var listReqs []req
	for _, r := range sent {
		if r.Method == "tools/list" {
			listReqs = append(listReqs, r)
		}
	}
	if len(listReqs) != 3 {
		t.Fatalf("%d tools/list requests", len(listReqs))
	}
	wantParams := []string{"", `{"cursor":"c 2"}`, `{"cursor":"c\"3"}`}
	for i, r := range listReqs {
		if r.Params.Raw != wantParams[i] {
			t.Errorf("request %d params %q, want %q", i, r.Params.Raw, wantParams[i])
		}
	}
	if len(c.Findings) != 0 {
		t.Errorf("findings %+v", c.Findings)
	}
}

func TestRunLists(t *testing.T) {
	tests := []struct {
		name   string
		caps   string
		routes map[string]route
		opts   func(*Options)
		check  func(t *testing.T, c *Capture, sent []req)
	}{
		{
			name: "cursor loop",
			caps: `{"tools":{}}`,
			routes: map[string]route{"tools/list": pages(map[string]string{
				"":  `{"tools":[{"name":"a"}],"nextCursor":"A"}`,
				"A": `{"tools":[{"name":"b"}],"nextCursor":"B"}`,
				"B": `{"tools":[{"name":"c"}],"nextCursor":"A"}`,
			})},
			check: func(t *testing.T, c *Capture, sent []req) {
				if n := countMethod(sent, "tools/list"); n != 3 {
					t.Errorf("%d tools/list requests, want 3", n)
				}
				wantFinding(t, c, "error", "cursor-loop", `page 3 returned nextCursor "A", which page 1 had already returned`)
				if c.Tools.Error != "cursor loop" || len(c.Tools.Pages) != 3 || len(c.Tools.Items) != 3 {
					t.Errorf("tools %+v", c.Tools)
				}
			},
		},
		{
			name: "cursor repeated at once",
			caps: `{"prompts":{}}`,
			routes: map[string]route{"prompts/list": pages(map[string]string{
				"":     `{"prompts":[],"nextCursor":"same"}`,
				"same": `{"prompts":[],"nextCursor":"same"}`,
			})},
			check: func(t *testing.T, c *Capture, sent []req) {
				if n := countMethod(sent, "prompts/list"); n != 2 {
					t.Errorf("%d prompts/list requests, want 2", n)
				}
				wantFinding(t, c, "error", "cursor-loop", "prompts/list page 2")
			},
		},
		{
			name: "too many pages",
			caps: `{"tools":{}}`,
			routes: map[string]route{"tools/list": func(r req) []string {
				n := len(r.Params.Get("cursor").String())
				return ok(r, `{"tools":[],"nextCursor":"`+strings.Repeat("x", n+1)+`"}`)
			}},
			opts: func(o *Options) { o.MaxPages = 3 },
			check: func(t *testing.T, c *Capture, sent []req) {
				if n := countMethod(sent, "tools/list"); n != 3 {
					t.Errorf("%d tools/list requests, want 3", n)
				}
				wantFinding(t, c, "error", "too-many-pages", "after 3 pages")
				if c.Tools.Error != "stopped after 3 pages" {
					t.Errorf("Error %q", c.Tools.Error)
				}
			},
		},
		{
			name: "duplicate tool names",
			caps: `{"tools":{}}`,
			routes: map[string]route{"tools/list": pages(map[string]string{
				"":   `{"tools":[{"name":"echo"},{"name":"add"}],"nextCursor":"2"}`,
				"2":  `{"tools":[{"name":"echo"},{"name":"sub"},{"name":"sub"}]}`,
				"no": `{}`,
			})},
			check: func(t *testing.T, c *Capture, sent []req) {
				wantFinding(t, c, "error", "duplicate-tool", `tool "echo" appears 2 times (pages 1, 2)`)
				wantFinding(t, c, "error", "duplicate-tool", `tool "sub" appears 2 times (pages 2, 2)`)
				if n := len(findingsOf(c, "duplicate-tool")); n != 2 {
					t.Errorf("%d duplicate-tool findings, want 2", n)
				}
				if len(c.Tools.Items) != 5 {
					t.Errorf("%d items: duplicates are kept", len(c.Tools.Items))
				}
			},
		},
		{
			name: "duplicate resource templates",
			caps: `{"resources":{}}`,
			routes: map[string]route{
				"resources/list": pages(map[string]string{"": `{"resources":[{"uri":"file:///a"},{"uri":"file:///b"}]}`}),
				"resources/templates/list": pages(map[string]string{
					"": `{"resourceTemplates":[{"uriTemplate":"file:///{x}"},{"uriTemplate":"file:///{x}"}]}`,
				}),
			},
			check: func(t *testing.T, c *Capture, sent []req) {
				wantFinding(t, c, "error", "duplicate-resource-template", `"file:///{x}" appears 2 times`)
				noFinding(t, c, "duplicate-resource")
				if len(c.Resources.Items) != 2 || len(c.Templates.Items) != 2 {
					t.Errorf("resources %d templates %d", len(c.Resources.Items), len(c.Templates.Items))
				}
			},
		},
		{
			name: "capability not advertised: list never requested",
			caps: `{"prompts":{},"logging":{}}`,
			routes: map[string]route{
				"prompts/list": pages(map[string]string{"": `{"prompts":[{"name":"p"}]}`}),
			},
			check: func(t *testing.T, c *Capture, sent []req) {
				for _, m := range []string{"tools/list", "resources/list", "resources/templates/list"} {
					if countMethod(sent, m) != 0 {
						t.Errorf("%s requested though not advertised", m)
					}
				}
				if countMethod(sent, "prompts/list") != 1 {
					t.Errorf("prompts/list not requested")
				}
				if c.Tools.Asked || c.Tools.Skipped != "the server does not advertise the tools capability" {
					t.Errorf("tools %+v", c.Tools)
				}
				if c.Templates.Asked || c.Templates.Skipped != "the server does not advertise the resources capability" {
					t.Errorf("templates %+v", c.Templates)
				}
				if c.Tools.Method != "tools/list" || c.Templates.Key != "resourceTemplates" {
					t.Errorf("skipped lists still named: %+v %+v", c.Tools, c.Templates)
				}
				if !c.Prompts.Asked || len(c.Prompts.Items) != 1 {
					t.Errorf("prompts %+v", c.Prompts)
				}
			},
		},
		{
			name: "-32601 on an advertised list, the probe goes on",
			caps: `{"tools":{},"prompts":{},"resources":{}}`,
			routes: map[string]route{
				"tools/list":               notFound,
				"prompts/list":             pages(map[string]string{"": `{"prompts":[{"name":"p1"},{"name":"p2"}]}`}),
				"resources/list":           pages(map[string]string{"": `{"resources":[{"uri":"mem://x"}]}`}),
				"resources/templates/list": notFound,
			},
			check: func(t *testing.T, c *Capture, sent []req) {
				wantFinding(t, c, "warning", "method-not-found", "tools/list answered -32601")
				wantFinding(t, c, "warning", "method-not-found", "resources/templates/list answered -32601")
				if !c.Tools.Asked || c.Tools.Error != "JSON-RPC error -32601: Method not found" || len(c.Tools.Pages) != 0 {
					t.Errorf("tools %+v", c.Tools)
				}
				if len(c.Prompts.Items) != 2 || len(c.Resources.Items) != 1 {
					t.Errorf("prompts %d resources %d", len(c.Prompts.Items), len(c.Resources.Items))
				}
				want := []string{"server/discover", "initialize", "notifications/initialized",
					"tools/list", "prompts/list", "resources/list", "resources/templates/list"}
				if got := methodsOf(sent); !equalStrings(got, want) {
					t.Errorf("sent %q", got)
				}
			},
		},
		{
			name: "other list error and timeout",
			caps: `{"tools":{},"prompts":{}}`,
			routes: map[string]route{
				"tools/list":   func(r req) []string { return fail(r, -32603, "internal", "") },
				"prompts/list": silent,
			},
			check: func(t *testing.T, c *Capture, sent []req) {
				wantFinding(t, c, "warning", "list-error", "tools/list page 1 answered error -32603: internal")
				wantFinding(t, c, "error", "list-timeout", "prompts/list page 1 got no answer within 200ms")
				noFinding(t, c, "method-not-found")
			},
		},
		{
			name: "malformed page",
			caps: `{"tools":{}}`,
			routes: map[string]route{
				"tools/list": pages(map[string]string{"": `{"items":[{"name":"x"}]}`}),
			},
			check: func(t *testing.T, c *Capture, sent []req) {
				wantFinding(t, c, "error", "malformed-list", `page 1 of tools/list has no "tools" array`)
				if len(c.Tools.Items) != 0 || len(c.Tools.Pages) != 1 {
					t.Errorf("tools %+v", c.Tools)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				conn := startServer(t, scripted(tc.caps, tc.routes))
				o := fastOptions("auto")
				if tc.opts != nil {
					tc.opts(&o)
				}
				c, err := run(t, conn, o)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				tc.check(t, c, requests(conn))
			})
		})
	}
}

func TestRunModernPaginationCarriesMeta(t *testing.T) {
	inBubble(t, testRunModernPaginationCarriesMeta)
}

func testRunModernPaginationCarriesMeta(t *testing.T) {
	conn := startServer(t, scripted("", map[string]route{
		"server/discover": func(r req) []string { return ok(r, discoverOK) },
		"tools/list": pages(map[string]string{
			"":   `{"tools":[{"name":"a"}],"nextCursor":"p2"}`,
			"p2": `{"tools":[{"name":"b"}],"nextCursor":"p3"}`,
			"p3": `{"tools":[{"name":"c"}]}`,
		}),
		"prompts/list": pages(map[string]string{"": `{"prompts":[]}`}),
	}))
	c, err := run(t, conn, fastOptions("auto"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools.Items) != 3 {
		t.Fatalf("items %q", c.Tools.Items)
	}
	wantCursor := []string{"", "p2", "p3"}
	i := 0
	for _, r := range requests(conn) {
		if r.Method != "tools/list" {
			continue
		}
		if got := r.Params.Get("cursor").String(); got != wantCursor[i] {
			t.Errorf("request %d cursor %q", i, got)
		}
		meta := r.Params.Get("_meta")
		if meta.Get(gjson.Escape(MetaProtocolVersion)).String() != "2026-07-28" {
			t.Errorf("request %d lacks the protocol version: %s", i, r.Raw)
		}
		i++
	}
	if i != 3 {
		t.Errorf("%d tools/list requests", i)
	}
}

func TestRunServerTrafficDuringProbe(t *testing.T) { inBubble(t, testRunServerTrafficDuringProbe) }

func testRunServerTrafficDuringProbe(t *testing.T) {
	conn := startServer(t, scripted(`{"tools":{}}`, map[string]route{
		"tools/list": func(r req) []string {
			return append([]string{
				`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listing"}}`,
				`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`,
				`{"jsonrpc":"2.0","id":5,"method":"roots/list"}`,
				`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
				`{"jsonrpc":"2.0","id":777,"result":{}}`,
			}, ok(r, `{"tools":[]}`)...)
		},
	}))
	c, err := run(t, conn, fastOptions("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range c.Events {
		kinds = append(kinds, e.Kind+":"+e.Method)
	}
	want := []string{"notification:notifications/message", "request:ping", "request:roots/list", "notification:notifications/message", "unknown_id:"}
	if !equalStrings(kinds, want) {
		t.Errorf("events %q, want %q", kinds, want)
	}
	wantFinding(t, c, "info", "notification", "notifications/message ×2")
	wantFinding(t, c, "info", "server-request", "ping ×1", "mcpprobe answered it")
	wantFinding(t, c, "info", "server-request", "roots/list ×1", "answered -32601")
	wantFinding(t, c, "warning", "unknown-id", "id 777")

	var answers []string
	// The answers are written by the session's writer: wait until it is
	// idle.
	synctest.Wait()
	for _, raw := range conn.sentLog() {
		if parseReq(raw).Method == "" {
			answers = append(answers, string(raw))
		}
	}
	wantAnswers := []string{
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"mcpprobe declared no roots capability"}}`,
	}
	if !equalStrings(answers, wantAnswers) {
		t.Errorf("answers %q, want %q", answers, wantAnswers)
	}
}

func TestCaptureSortFindings(t *testing.T) {
	c := &Capture{}
	c.Add(findings.Notification, "x")
	c.Add(findings.StdoutNoise, "x")
	c.Add(findings.Batch, "x")
	c.Add(findings.CursorLoop, "n=%d", 1)
	c.Add(findings.HTTP, "x")
	c.SortFindings()
	var got []string
	for _, f := range c.Findings {
		got = append(got, string(f.Severity)+"/"+f.Code.String())
	}
	want := []string{"error/cursor-loop", "error/stdout-noise", "warning/batch", "info/http", "info/notification"}
	if !equalStrings(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
	if c.Findings[0].Message != "n=1" {
		t.Errorf("message %q", c.Findings[0].Message)
	}
}

func TestVersions(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		if !KnownVersion(v) {
			t.Errorf("KnownVersion(%s) = false", v)
		}
	}
	if KnownVersion("2025-01-01") || KnownVersion("") {
		t.Errorf("unknown versions known")
	}
	if !IsModern("2026-07-28") || !IsModern("2027-01-01") || IsModern("2025-11-25") {
		t.Errorf("IsModern wrong")
	}
}

// Every list names its duplicates with a registered code: a missing one
// would make the finding panic.
func TestListSpecsHaveDuplicateCodes(t *testing.T) {
	for _, s := range listSpecs {
		if _, ok := findings.Lookup(duplicateCodes[s.noun]); !ok {
			t.Errorf("%s: no duplicate code for %q", s.method, s.noun)
		}
	}
}
