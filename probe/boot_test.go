package probe

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"
)

// booting is h behind a boot: the server reads nothing, and writes
// nothing, until delay after the first message reached it; then it reads
// everything sent meanwhile, in order, as a slow-starting process does.
func booting(delay time.Duration, h serverFunc) serverFunc {
	booted := false
	return func(r req) []string {
		if !booted {
			booted = true
			time.Sleep(delay)
		}
		return h(r)
	}
}

// bootOptions give a slow start room: --discover-timeout is short beside
// the boots below, --startup-timeout long beside them.
func bootOptions() Options {
	o := fastOptions("auto")
	o.StartupTimeout = 6 * time.Second
	return o
}

// codes lists a capture's finding codes, sorted.
func codes(c *Capture) []string {
	var out []string
	for _, f := range c.Findings {
		out = append(out, f.Code.String())
	}
	sort.Strings(out)
	return out
}

func TestDiscoverClockStartsWhenServerIsUp(t *testing.T) {
	const d = 200 * time.Millisecond
	ignorePing := func(h serverFunc) serverFunc {
		return func(r req) []string {
			if r.Method == "ping" {
				return nil
			}
			return h(r)
		}
	}
	legacy := scripted(`{}`, nil)
	silentDiscover := scripted(`{}`, map[string]route{"server/discover": silent})
	modern := scripted(`{}`, map[string]route{"server/discover": func(r req) []string { return ok(r, discoverOK) }})
	const notSupported = "not supported (error -32601: Method not found); fell back to initialize"
	const silentText = "no answer within 200ms after the server was up (its first message); fell back to initialize"
	const deafText = "no answer, and nothing else from the server either (not even to ping) before --startup-timeout ran short; fell back to initialize"
	tests := []struct {
		name     string
		server   serverFunc
		discover string // c.Discover
		era      string
		silent   bool // a discover-silent finding
		unheard  bool // never heard from before initialize
		// like names the case whose findings this one's must equal:
		// a slow start changes nothing but the timings.
		like string
	}{
		{name: "fast -32601", server: legacy, discover: notSupported, era: "legacy"},
		{name: "-32601 after a boot of 1.5 D", server: booting(300*time.Millisecond, legacy), discover: notSupported, era: "legacy", like: "fast -32601"},
		{name: "-32601 after a boot of 5 D", server: booting(time.Second, legacy), discover: notSupported, era: "legacy", like: "fast -32601"},
		{name: "fast silent", server: silentDiscover, discover: silentText, era: "legacy", silent: true},
		{name: "silent after a boot of 5 D", server: booting(time.Second, silentDiscover), discover: silentText, era: "legacy", silent: true, like: "fast silent"},
		// Deaf to both, the server is never heard from before initialize,
		// and initialize is not sent before it is (see dualEra below): it
		// waits out --startup-timeout, less what initialize keeps.
		{name: "silent, deaf to ping too", server: ignorePing(silentDiscover), discover: deafText, era: "legacy", unheard: true},
		{name: "silent, deaf to ping, after a boot of 5 D", server: booting(time.Second, ignorePing(silentDiscover)), discover: deafText, era: "legacy", unheard: true, like: "silent, deaf to ping too"},
		{name: "fast modern", server: modern, discover: "supported", era: "modern"},
		{name: "modern after a boot of 5 D", server: booting(time.Second, modern), discover: "supported", era: "modern", like: "fast modern"},
	}
	found := map[string][]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				conn := startServer(t, tc.server)
				o := bootOptions()
				o.DiscoverTimeout = d
				c, err := run(t, conn, o)
				if err != nil {
					t.Fatal(err)
				}
				if c.Discover != tc.discover {
					t.Errorf("Discover = %q, want %q", c.Discover, tc.discover)
				}
				if c.Era != tc.era {
					t.Errorf("Era = %q, want %q", c.Era, tc.era)
				}
				if tc.silent {
					wantFinding(t, c, "info", "discover-silent", "no answer within 200ms after the server was up (its first message)")
				} else {
					noFinding(t, c, "discover-silent")
				}
				for _, code := range []string{"late-reply", "unknown-id", "nonstandard-error-code"} {
					noFinding(t, c, code)
				}
				if !tc.unheard && (c.Timings.ReadyBy == "" || c.Timings.Ready <= 0) {
					t.Errorf("Timings.Ready %v by %q: the server was heard from", c.Timings.Ready, c.Timings.ReadyBy)
				}
				found[tc.name] = codes(c)
				if tc.like != "" {
					if want, ok := found[tc.like]; ok && !equalStrings(found[tc.name], want) {
						t.Errorf("findings %q, but %q had %q", found[tc.name], tc.like, want)
					}
				}
				sent := requests(conn)
				if tc.era == "modern" && countMethod(sent, "notifications/initialized") > 0 {
					t.Errorf("a modern server was sent notifications/initialized: %q", methodsOf(sent))
				}
				if tc.era == "legacy" && countMethod(sent, "initialize") != 1 {
					t.Errorf("initialize sent %d times: %q", countMethod(sent, "initialize"), methodsOf(sent))
				}
			})
		})
	}
}

// A server that answers server/discover at once is sent nothing else
// before its answer: no ping, no early initialize.
func TestDiscoverFastServerWireUnchanged(t *testing.T) {
	inBubble(t, testDiscoverFastServerWireUnchanged)
}

func testDiscoverFastServerWireUnchanged(t *testing.T) {
	for _, server := range []serverFunc{
		scripted(`{}`, nil),
		scripted(`{}`, map[string]route{"server/discover": func(r req) []string { return ok(r, discoverOK) }}),
	} {
		conn := startServer(t, server)
		o := bootOptions()
		o.DiscoverTimeout = 5 * time.Second // far beyond any load
		if _, err := run(t, conn, o); err != nil {
			t.Fatal(err)
		}
		if n := countMethod(requests(conn), "ping"); n != 0 {
			t.Errorf("ping sent %d times: %q", n, methodsOf(requests(conn)))
		}
	}
}

// A server that answers nothing at all is waited for until
// --startup-timeout and reported against it, not as discover-silent.
func TestDiscoverServerAnswersNothing(t *testing.T) { inBubble(t, testDiscoverServerAnswersNothing) }

func testDiscoverServerAnswersNothing(t *testing.T) {
	conn := startServer(t, func(req) []string { return nil })
	o := fastOptions("auto")
	o.StartupTimeout = 1500 * time.Millisecond
	c, err := run(t, conn, o)
	var fe *FatalError
	if !errors.As(err, &fe) || !strings.Contains(fe.What, "did not answer initialize within 1.5s (--startup-timeout)") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(c.Discover, "nothing else from the server either (not even to ping)") {
		t.Errorf("Discover = %q", c.Discover)
	}
	noFinding(t, c, "discover-silent")
	if got := methodsOf(requests(conn)); !equalStrings(got, []string{"server/discover", "ping", "initialize"}) {
		t.Errorf("sent %q", got)
	}
	if c.Timings.ReadyBy != "" {
		t.Errorf("ReadyBy %q for a server never heard from", c.Timings.ReadyBy)
	}
}

// dualEra is a server that decides its connection's era by the opening
// messages it reads, as the TypeScript SDK 2.x serveStdio does:
// server/discover opens a modern probe, and the first request without
// the 2026-07-28 _meta pins the connection to 2025-11-25, after which
// every result comes back 2025-shaped; a modern request pins it modern,
// after which initialize is refused.
func dualEra() serverFunc {
	era := ""
	legacy := legacyInit(`{"tools":{}}`)
	return func(r req) []string {
		if r.ID == "" || r.Method == "" {
			return nil
		}
		modern := r.Params.Get(`_meta.io\.modelcontextprotocol/protocolVersion`).String() == "2026-07-28"
		if era == "" && r.Method != "server/discover" {
			era = "legacy"
			if modern {
				era = "modern"
			}
		}
		switch {
		case r.Method == "server/discover":
			return ok(r, `{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`)
		case r.Method == "initialize" && era == "modern":
			return fail(r, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2026-07-28"]}`)
		case r.Method == "initialize":
			return legacy(r)
		case r.Method == "ping" && era == "modern":
			return notFound(r)
		case r.Method == "ping":
			return ok(r, `{}`)
		case r.Method == "tools/list" && era == "modern":
			return ok(r, `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}`)
		case r.Method == "tools/list":
			return ok(r, `{"tools":[]}`)
		}
		return notFound(r)
	}
}

// TestSlowDualEraServerOneEra: a dual-era server that boots long after
// --discover-timeout is sent nothing of the 2025 era before it answers,
// and is labelled by the era of its answers, as one that boots at once.
func TestSlowDualEraServerOneEra(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server serverFunc
	}{
		{"at once", dualEra()},
		{"after a boot of 5 D", booting(time.Second, dualEra())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				conn := startServer(t, tc.server)
				o := bootOptions()
				o.DiscoverTimeout = 200 * time.Millisecond
				c, err := run(t, conn, o)
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "modern" || c.Discover != "supported" {
					t.Errorf("era %q, discover %q", c.Era, c.Discover)
				}
				for _, r := range requests(conn) {
					if r.Method == "initialize" {
						t.Errorf("initialize sent to a dual-era server: %q", methodsOf(requests(conn)))
					}
					if r.Method != "" && r.ID != "" && !r.Params.Get(`_meta.io\.modelcontextprotocol/protocolVersion`).Exists() {
						t.Errorf("%s sent without the 2026-07-28 _meta: %s", r.Method, r.Raw)
					}
				}
				noFinding(t, c, "legacy-shaped-result")
			})
		})
	}
}

// TestDiscoverRetriesSupportedVersion: a -32022 naming the supported
// versions gets one retry with the newest both speak, even the version
// refused, and the capture says so; a second -32022 ends it.
func TestDiscoverRetriesSupportedVersion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refuse  int // how many server/discover are refused
		wantErr bool
	}{
		{"refused once", 1, false},
		{"refused twice", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				n := 0
				conn := startServer(t, scripted(`{}`, map[string]route{"server/discover": func(r req) []string {
					n++
					if n <= tc.refuse {
						return fail(r, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
					}
					return ok(r, discoverOK)
				}}))
				c, err := run(t, conn, fastOptions("auto"))
				if tc.wantErr {
					if err == nil {
						t.Fatalf("no error after two -32022; discover %q", c.Discover)
					}
					if got := countMethod(requests(conn), "server/discover"); got != 2 {
						t.Errorf("server/discover sent %d times, want 2", got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if c.Era != "modern" || !strings.Contains(c.Discover, "retried once with 2026-07-28") {
					t.Errorf("era %q discover %q", c.Era, c.Discover)
				}
			})
		})
	}
}
