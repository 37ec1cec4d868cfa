//go:build e2e

package main

import (
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
	tests := []struct {
		name     string
		flags    []string
		server   []string
		discover string
		silent   bool
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
		{name: "5s boot, silent to discover and ping", flags: []string{"--discover-timeout", "1s"},
			server: []string{bin.raw, "-discover-silent", "-ping-silent", "-boot-delay", "5s"}, discover: silent, silent: true, like: "fast, silent to discover"},
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
				if by := v.Get("wire.timings.ready_by").String(); by != "stdout" {
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
