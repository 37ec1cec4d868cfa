//go:build e2e

package main

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// handshakeOf is what of a wire run must not depend on how fast the
// server started: the report's protocol line (version and what became
// of server/discover) and the findings.
type handshakeOf struct {
	version, discover string
	codes             []string
}

func handshake(v gjson.Result) handshakeOf {
	codes := findingCodes(v)
	slices.Sort(codes)
	return handshakeOf{v.Get("protocol_version").String(), v.Get("wire.discover").String(), codes}
}

// TestSlowBootSameReport: --discover-timeout counts from when the server
// is up, so a server that takes longer than it to boot is reported as
// the same server started at once; one truly silent to server/discover
// is reported so however it starts.
func TestSlowBootSameReport(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no sh")
	}
	const notSupported = "not supported (error -32601: Method not found); fell back to initialize"
	const silent = "no answer within 1s after the server was up (its first output on stdout); fell back to initialize"
	const unheard = "no answer, and nothing else from the server either (not even to ping) before --startup-timeout ran short; fell back to initialize"
	tests := []struct {
		name     string
		flags    []string
		server   []string
		discover string
		silent   bool
		unheard  bool   // nothing heard before initialize: no ready time
		like     string // the run whose handshake this one's must equal
	}{
		{name: "fast", server: []string{bin.raw}, discover: notSupported},
		{name: "5s boot", server: []string{bin.raw, "-boot-delay", "5s"}, discover: notSupported, like: "fast"},
		{name: "5s boot, 1s discover timeout", flags: []string{"--discover-timeout", "1s"},
			server: []string{bin.raw, "-boot-delay", "5s"}, discover: notSupported, like: "fast"},
		{name: "fast, silent to discover", flags: []string{"--discover-timeout", "1s"},
			server: []string{bin.raw, "-discover-silent"}, discover: silent, silent: true},
		{name: "5s boot, silent to discover", flags: []string{"--discover-timeout", "1s"},
			server: []string{bin.raw, "-discover-silent", "-boot-delay", "5s"}, discover: silent, silent: true, like: "fast, silent to discover"},
		// Never heard from before initialize, and initialize is sent only
		// to a server heard from (one era per connection) or when
		// --startup-timeout runs short.
		{name: "5s boot, silent to discover and ping", flags: []string{"--discover-timeout", "1s", "--startup-timeout", "7s"},
			server: []string{bin.raw, "-discover-silent", "-ping-silent", "-boot-delay", "5s"}, discover: unheard, unheard: true},
	}
	got := make([]handshakeOf, len(tests))
	// The runs in parallel, then the comparisons: a subtest that waited
	// for another could wait for one not yet allowed to start.
	t.Run("runs", func(t *testing.T) {
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				v := wireJSON(t, append(append(tc.flags, "--"), tc.server...)...)
				got[i] = handshake(v)
				if got[i].discover != tc.discover {
					t.Errorf("discover %q, want %q", got[i].discover, tc.discover)
				}
				if has(got[i].codes, "discover-silent") != tc.silent {
					t.Errorf("findings %q: discover-silent should be there: %v", got[i].codes, tc.silent)
				}
				for _, code := range []string{"late-reply", "unknown-id"} {
					if has(got[i].codes, code) {
						t.Errorf("a %s finding: %s", code, v.Get("findings").Raw)
					}
				}
				if by := v.Get("wire.timings.ready_by").String(); by != "stdout" && !tc.unheard {
					t.Errorf("ready_by %q, want stdout", by)
				}
			})
		}
	})
	for i, tc := range tests {
		for j := range tests {
			if tc.like != "" && tests[j].name == tc.like && !equalHandshake(got[i], got[j]) {
				t.Errorf("%s: handshake %+v, but %q gave %+v", tc.name, got[i], tc.like, got[j])
			}
		}
	}
}

func equalHandshake(a, b handshakeOf) bool {
	return a.version == b.version && a.discover == b.discover && slices.Equal(a.codes, b.codes)
}

// TestSlowBootRealServer: the official everything server, started through
// a wrapper that sleeps 3 s first (as npx or a loaded runner does), is
// reported as started directly: -32601, not discover-silent.
func TestSlowBootRealServer(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	entry := peer(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	direct := handshake(wireJSON(t, "--", "node", entry, "stdio"))
	slow := handshake(wireJSON(t, "--", "sh", "-c", `sleep 3; exec node "$0" stdio`, entry))
	if !strings.HasPrefix(slow.discover, "not supported (error -32601") {
		t.Errorf("discover %q after a 3 s start", slow.discover)
	}
	if !equalHandshake(direct, slow) {
		t.Errorf("started after 3 s: %+v\nstarted at once: %+v", slow, direct)
	}
}

// TestSlowDualEraServerSameReport: the TypeScript SDK 2.x serveStdio
// decides a connection's era by the opening messages it reads. Booting 4 s
// late (longer than --discover-timeout), it is reported as when it boots
// at once; with --discover-timeout 100ms the label still agrees with the
// shape of the answers (no 2025-shaped list or call result under
// "2026-07-28"), where mcpprobe's early ping and initialize used to pin the
// connection to 2025-11-25 under a 2026-07-28 label.
func TestSlowDualEraServerSameReport(t *testing.T) {
	t.Parallel()
	argv := tsServer2(t, "serve")
	const slow = "--boot-delay"
	dir := t.TempDir()
	report := func(flags []string, server ...string) string {
		args := append([]string{"report", "--date", "2026-12-01", "--call", `echo={"text":"hi"}`}, flags...)
		r := mcpprobe(t, append(append(args, "--"), server...)...)
		if r.code != 0 {
			t.Fatalf("report exit %d: %s", r.code, r.stderr)
		}
		return strings.Replace(r.stdout, " "+slow+" 4000", "", 1)
	}
	var fast, late string
	var short gjson.Result
	t.Run("runs", func(t *testing.T) {
		t.Run("at once", func(t *testing.T) { t.Parallel(); fast = report(nil, argv...) })
		t.Run("4s late", func(t *testing.T) {
			t.Parallel()
			late = report([]string{"--trace", filepath.Join(dir, "late.jsonl")}, append(argv, slow, "4000")...)
		})
		t.Run("4s late, 100ms discover timeout", func(t *testing.T) {
			t.Parallel()
			short = wireJSON(t, append([]string{"--trace", filepath.Join(dir, "short.jsonl"), "--discover-timeout", "100ms", "--"}, append(argv, slow, "4000")...)...)
		})
	})
	if fast != late {
		t.Errorf("booting 4 s late changed the report:\n%s\nat once:\n%s", late, fast)
	}
	if !strings.Contains(fast, "protocol 2026-07-28 (server/discover: supported)") {
		t.Errorf("report at once:\n%s", fast)
	}
	if v := short.Get("protocol_version").String(); v != "2026-07-28" || short.Get("wire.era").String() != "modern" {
		t.Errorf("--discover-timeout 100ms: protocol %s era %s, want 2026-07-28 modern", v, short.Get("wire.era"))
	}
	for _, code := range findingCodes(short) {
		if code == "legacy-shaped-result" || code == "discover-silent" {
			t.Errorf("--discover-timeout 100ms: finding %s: %s", code, short.Get("findings").Raw)
		}
	}
	// The answers themselves: under a 2026-07-28 label, every result in
	// that era's shape, and no initialize sent.
	for _, run := range []string{"late", "short"} {
		results := 0
		for _, f := range readTrace(t, filepath.Join(dir, run+".jsonl")) {
			v := gjson.Parse(f.Raw)
			switch {
			case f.Dir == "send" && v.Get("method").String() == "initialize":
				t.Errorf("%s: initialize sent to a server labelled 2026-07-28: %s", run, f.Raw)
			case f.Dir == "recv" && v.Get("result").IsObject() && len(v.Get("result").Map()) > 0:
				results++
				if !v.Get("result.resultType").Exists() {
					t.Errorf("%s: a 2025-shaped result under the 2026-07-28 label: %.200s", run, f.Raw)
				}
			}
		}
		if results < 4 {
			t.Errorf("%s: %d results in the trace", run, results)
		}
	}
}
